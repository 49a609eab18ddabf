import Foundation
import PassboxCore
import PassboxCrypto
import PassboxStore

extension Commands {
    /// `passbox run [--env-file F] -- COMMAND …`: runs COMMAND with every environment variable whose value is
    /// a passbox:// reference replaced by the secret, and masks those secrets in what it prints.
    static func runCommand(_ context: Context, _ words: [String]) throws {
        guard let dash = words.firstIndex(of: "--"), dash + 1 < words.count else {
            throw CLIError.usage("usage: passbox run [--env-file FILE] -- COMMAND [ARGS…]")
        }
        let args = try Arguments(Array(words[..<dash]), valued: ["env-file"], flags: ["no-masking"])
        try args.expectPositionals(0...0, usage: "passbox run [--env-file FILE] -- COMMAND [ARGS…]")
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
        let resolver = ReferenceResolver(context)
        var secrets = [String]()
        for (name, value) in environment where value.hasPrefix(SecretReference.scheme) {
            do {
                let secret = try resolver.value(value)
                environment[name] = secret
                secrets.append(secret)
            } catch {
                let e = CLIError.from(error)
                throw CLIError(message: "\(name): \(e.message)", hint: e.hint, code: e.code)
            }
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.environment = environment
        let masker = OutputMasker(secrets: args.flag("no-masking") ? [] : secrets)
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
        let resolver = ReferenceResolver(context)
        var output = ""
        var cursor = template.startIndex
        for match in matches {
            let whole = Range(match.range, in: template)!
            let reference = String(template[Range(match.range(at: 1), in: template)!])
            output += template[cursor..<whole.lowerBound]
            do {
                output += try resolver.value(reference)
            } catch {
                let e = CLIError.from(error)
                throw CLIError(message: "\(reference): \(e.message); nothing was written", hint: e.hint, code: e.code)
            }
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

/// Copies a child's output, replacing every secret with a mask — also across read boundaries, by holding
/// back the last (longest secret − 1) bytes until more arrive.
final class OutputMasker: @unchecked Sendable {
    // @unchecked: immutable after init.
    let secrets: [[UInt8]]
    let mask = Array("<concealed by passbox>".utf8)

    init(secrets: [String]) {
        self.secrets = secrets.filter { $0.count >= 3 }.map { Array($0.utf8) }.sorted { $0.count > $1.count }
    }

    func masked(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count)
        var i = 0
        outer: while i < bytes.count {
            for s in secrets where i + s.count <= bytes.count && bytes[i] == s[0] && Array(bytes[i..<(i + s.count)]) == s {
                out += mask
                i += s.count
                continue outer
            }
            out.append(bytes[i])
            i += 1
        }
        return out
    }

    func copy(from source: FileHandle, to target: FileHandle) {
        let keep = max(0, (secrets.first?.count ?? 1) - 1)
        var pending = [UInt8]()
        while true {
            let chunk = source.availableData
            if chunk.isEmpty { break }
            pending += chunk
            // Emit all but a tail that could be the start of a secret.
            var cut = max(0, pending.count - keep)
            // Never cut inside a secret that starts before the cut and ends after it.
            for s in secrets {
                var start = max(0, cut - s.count + 1)
                while start < cut {
                    if start + s.count <= pending.count, Array(pending[start..<(start + s.count)]) == s { cut = min(cut, start) }
                    start += 1
                }
            }
            let emit = masked(Array(pending[..<cut]))
            pending.removeFirst(cut)
            target.write(Data(emit))
        }
        target.write(Data(masked(pending)))
    }
}
