import Foundation
import PassboxCore
import PassboxProtocol

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
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { throw CLIError.failure("cannot read \(file)") }
            for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = raw.trimmingCharacters(in: .whitespaces)
                if line.isEmpty || line.hasPrefix("#") { continue }
                guard let eq = line.firstIndex(of: "="), eq != line.startIndex else {
                    throw CLIError.failure("\(file) line \(number + 1) is not NAME=VALUE")
                }
                var value = String(line[line.index(after: eq)...])
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
                environment[String(line[..<eq])] = value
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
        let masker = OutputMasker(secrets: args.flag("no-masking") ? [] : values)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do { try process.run() } catch { throw CLIError.failure("cannot run \(command[0]): \(error.localizedDescription)") }
        let group = DispatchGroup()
        for (pipe, target) in [(out, FileHandle.standardOutput), (err, FileHandle.standardError)] {
            group.enter()
            Thread.detachNewThread {
                masker.copy(from: pipe.fileHandleForReading, to: target)
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
        guard let template = try? String(contentsOfFile: input, encoding: .utf8) else { throw CLIError.failure("cannot read \(input)") }
        let regex = try NSRegularExpression(pattern: #"\{\{\s*(passbox://[^\s}]+)\s*\}\}"#)
        let matches = regex.matches(in: template, range: NSRange(template.startIndex..., in: template))
        var values = [String]()
        for match in matches {
            guard let range = Range(match.range(at: 1), in: template) else { continue }
            let reference = String(template[range])
            do {
                values += try resolve([reference], context)
            } catch let e as ProtocolError {
                let (message, hint) = Wording.error(e, context.language)
                throw CLIError(message: "\(reference): \(message); nothing was written", hint: hint, code: CLIError.Code(rawValue: e.exitCode) ?? .failure)
            }
        }
        var output = ""
        var cursor = template.startIndex
        for (match, value) in zip(matches, values) {
            guard let whole = Range(match.range, in: template) else { continue }
            output += template[cursor..<whole.lowerBound]
            output += value
            cursor = whole.upperBound
        }
        output += template[cursor...]
        if let path = args.value("o") ?? args.value("out-file"), path != "-" {
            let directory = (path as NSString).deletingLastPathComponent
            let temporary = (directory.isEmpty ? "." : directory) + "/.passbox-inject-" + UUID().uuidString
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw CLIError.failure("cannot write \(path): \(String(cString: strerror(errno)))") }
            let bytes = Array(output.utf8)
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            fsync(fd)
            close(fd)
            guard written == bytes.count, rename(temporary, path) == 0 else {
                unlink(temporary)
                throw CLIError.failure("cannot write \(path)")
            }
            Console.err("Wrote \(path) (mode 0600) with \(matches.count) secret\(matches.count == 1 ? "" : "s").")
        } else {
            Console.write(output, error: false)
        }
    }
}
