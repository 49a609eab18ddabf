import Foundation
import PassboxCore
import PassboxProtocol
import PassboxService

extension Commands {
    /// `passbox read passbox://VAULT/ITEM/FIELD [--no-newline] [--mark-used]`
    static func read(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: "passbox read passbox://VAULT/ITEM/FIELD [--no-newline]")
        let value = try resolve([args.positionals[0]], context, markUsed: args.flag("mark-used"))[0]
        // Printing the value is what read is for.
        Console.write(value + (args.flag("no-newline") ? "" : "\n"), error: false)
    }

    /// The values of passbox:// references, in one request (through the agent, or unlocking here once).
    static func resolve(_ references: [String], _ context: Context, markUsed: Bool = false) throws -> [String] {
        guard !references.isEmpty else { return [] }
        return try context.send(.resolve(ResolveRequest(references: references, markUsed: markUsed))).resolved().values
    }

    /// `passbox run [--env-file F] -- COMMAND …`: runs COMMAND with every environment variable whose value is
    /// a passbox:// reference replaced by the secret, and masks those secrets in what it prints.
    static func runCommand(_ context: Context, _ words: [String]) throws {
        let usage = "passbox run [--env-file FILE] [--no-masking] -- COMMAND [ARGS…]"
        guard let dash = words.firstIndex(of: "--"), dash + 1 < words.count else { throw CLIError.usage("usage: \(usage)") }
        let args = try Arguments(Array(words[..<dash]), valued: ["env-file"], flags: ["no-masking"])
        try args.expectPositionals(0...0, usage: usage)
        let command = Array(words[(dash + 1)...])
        var environment = ProcessInfo.processInfo.environment
        if let file = args.value("env-file") {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { throw unreadable(file) }
            do {
                for (key, value) in try DotEnv.parse(text) { environment[key] = value }
            } catch {
                throw CLIError.failure("\(file) line \(error.line) is not NAME=VALUE (\(error.reason.rawValue))", hint: "write one NAME=VALUE per line; quote values with spaces")
            }
        }
        var values = [String]()
        for name in environment.keys.sorted() where environment[name]!.hasPrefix(SecretReference.scheme) {
            do {
                let value = try resolve([environment[name]!], context)[0]
                environment[name] = value
                values.append(value)
            } catch let e as ProtocolError {
                let (message, hint) = Wording.error(e, context.language)
                throw CLIError(message: "\(name): \(message)", hint: hint, code: CLIError.Code(rawValue: e.exitCode) ?? .failure)
            }
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.environment = environment
        let secrets = args.flag("no-masking") ? [] : values
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do { try process.run() } catch { throw CLIError.failure("cannot run \(command[0]): \(error.localizedDescription)") }
        let group = DispatchGroup()
        for (pipe, target) in [(out, FileHandle.standardOutput), (err, FileHandle.standardError)] {
            group.enter()
            Thread.detachNewThread {
                // One masker per stream: it holds back the bytes that could be the start of a secret.
                var masker = OutputMasker(secrets: secrets)
                while true {
                    let chunk = pipe.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    target.write(Data(masker.process(chunk)))
                }
                target.write(Data(masker.finish()))
                group.leave()
            }
        }
        process.waitUntilExit()
        group.wait()
        throw ExitCode(process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus)
    }

    /// `passbox inject -i TEMPLATE [-o FILE]`: fills `{{ passbox://… }}` references; the output file is 0600.
    static func inject(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: "passbox inject -i TEMPLATE [-o FILE]")
        guard let input = args.value("i") ?? args.value("in-file") else { throw CLIError.usage("usage: passbox inject -i TEMPLATE [-o FILE]") }
        guard let template = try? String(contentsOfFile: input, encoding: .utf8) else { throw unreadable(input) }
        let parsed = SecretTemplate(parsing: template)
        let output: String
        do {
            output = try parsed.rendered { reference throws(ProtocolError) -> String in
                do {
                    return try resolve([reference], context)[0]
                } catch let e as ProtocolError {
                    throw e.adding(["reference": reference])
                } catch {
                    throw ProtocolError.from(error)
                }
            }
        } catch {
            let (message, hint) = Wording.error(error, context.language)
            throw CLIError(message: "\(error.facts["reference"] ?? ""): \(message); nothing was written", hint: hint, code: CLIError.Code(rawValue: error.exitCode) ?? .failure)
        }
        let count = parsed.references.count
        if let path = args.value("o") ?? args.value("out-file"), path != "-" {
            let directory = (path as NSString).deletingLastPathComponent
            let temporary = (directory.isEmpty ? "." : directory) + "/.passbox-inject-" + UUID().uuidString
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                throw CLIError.failure(
                    "cannot write \(Console.visibleLine(path)): \(String(cString: strerror(errno)))", hint: "check that the directory exists and is writable; nothing was written")
            }
            let bytes = Array(output.utf8)
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            fsync(fd)
            close(fd)
            guard written == bytes.count, rename(temporary, path) == 0 else {
                unlink(temporary)
                throw CLIError.failure("cannot write \(Console.visibleLine(path))", hint: "check the free space; nothing was kept")
            }
            Console.err("Wrote \(path) (mode 0600) with \(count) secret\(count == 1 ? "" : "s").")
        } else {
            Console.write(output, error: false)
        }
    }

    /// A file given to read that cannot be: why (missing, a directory, no permission, not UTF-8).
    static func unreadable(_ path: String) -> CLIError {
        var info = stat()
        let why: String
        if stat(path, &info) != 0 {
            why = String(cString: strerror(errno))
        } else if info.st_mode & S_IFMT == S_IFDIR {
            why = "it is a directory"
        } else if access(path, R_OK) != 0 {
            why = String(cString: strerror(errno))
        } else {
            why = "it is not UTF-8 text"
        }
        return CLIError.failure("cannot read \(Console.visibleLine(path)): \(why)", hint: "check the path; nothing was run or written")
    }
}
