import Foundation
import PassboxProcess

/// Runs a CLI transcript: blocks of a command, its standard input, the expected output and exit code.
///
/// ```
/// $ passbox list            the command ("passbox" is the real executable; $DATA, $FIXTURES and $NAME expand)
/// < a line of stdin
/// > an expected stdout line  (ids, version ids and dates are normalised to <ID>, <ID8>, <VER>, <DATE>)
/// >*                         ignore the rest of stdout
/// ! an expected stderr line
/// !*                         ignore the rest of stderr
/// ? 0                        the exit code
/// = NAME regex               capture group 1 of the regex in stdout into $NAME
/// ```
/// Without `>` lines stdout must be empty; likewise stderr.
public struct Transcript {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    struct Block {
        var line = 0
        var command = ""
        var stdin = [String]()
        var stdout = [String]()
        var stdoutRest = false
        var stderr = [String]()
        var stderrRest = false
        var exitCode: Int32 = 0
        var captures = [(String, String)]()
    }

    let blocks: [Block]

    public init(text: String) throws {
        var blocks = [Block]()
        for (number, raw) in text.components(separatedBy: "\n").enumerated() {
            if raw.hasPrefix("#") || raw.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            if raw.hasPrefix("$ ") {
                blocks.append(Block(line: number + 1, command: String(raw.dropFirst(2))))
                continue
            }
            guard !blocks.isEmpty else { throw Failure(description: "line \(number + 1): text before the first command") }
            let body = raw.count > 2 ? String(raw.dropFirst(2)) : ""
            switch raw.prefix(2) {
            case "< ", "<": blocks[blocks.count - 1].stdin.append(body)
            case ">*": blocks[blocks.count - 1].stdoutRest = true
            case "> ", ">": blocks[blocks.count - 1].stdout.append(body)
            case "!*": blocks[blocks.count - 1].stderrRest = true
            case "! ", "!": blocks[blocks.count - 1].stderr.append(body)
            case "? ": blocks[blocks.count - 1].exitCode = Int32(body) ?? -1
            case "= ":
                let parts = body.split(separator: " ", maxSplits: 1).map(String.init)
                blocks[blocks.count - 1].captures.append((parts[0], parts.count > 1 ? parts[1] : ""))
            default: throw Failure(description: "line \(number + 1): cannot read \"\(raw)\"")
            }
        }
        self.blocks = blocks
    }

    /// Runs every block with `executable` in a fresh data directory; throws at the first difference.
    public func run(executable: String, dataDirectory: String, fixtures: String = "", environment: [String: String] = [:]) throws {
        var variables = ["DATA": dataDirectory, "FIXTURES": fixtures]
        for block in blocks {
            var words = Transcript.split(block.command)
            guard words.first == "passbox" else { throw Failure(description: "line \(block.line): commands must start with passbox") }
            func expand(_ text: String) -> String {
                var w = text
                for (name, value) in variables.sorted(by: { $0.key.count > $1.key.count }) { w = w.replacingOccurrences(of: "$" + name, with: value) }
                return w
            }
            words = words.dropFirst().map(expand)
            let result = try Transcript.execute(executable, words, stdin: block.stdin, environment: environment.merging(["PASSBOX_DATA_DIR": dataDirectory, "TZ": "UTC", "NO_COLOR": "1"]) { $1 })
            func check(_ stream: String, _ actual: String, _ expected: [String], _ rest: Bool) throws {
                var lines = actual.components(separatedBy: "\n")
                if lines.last == "" { lines.removeLast() }
                let normalised = lines.map(Transcript.normalise)
                let expected = expected.map { Transcript.normalise(expand($0)) }
                let compared = rest ? Array(normalised.prefix(expected.count)) : normalised
                if compared != expected {
                    throw Failure(description: "line \(block.line): $ \(block.command)\n\(stream) expected:\n\(expected.joined(separator: "\n"))\n\(stream) got:\n\(normalised.joined(separator: "\n"))")
                }
            }
            try check("stdout", result.stdout, block.stdout, block.stdoutRest)
            try check("stderr", result.stderr, block.stderr, block.stderrRest)
            if result.status != block.exitCode {
                throw Failure(description: "line \(block.line): $ \(block.command)\nexit code \(result.status), expected \(block.exitCode)\nstderr: \(result.stderr)")
            }
            for (name, pattern) in block.captures {
                let regex = try NSRegularExpression(pattern: pattern)
                let range = NSRange(result.stdout.startIndex..., in: result.stdout)
                guard let match = regex.firstMatch(in: result.stdout, range: range), match.numberOfRanges > 1,
                    let r = Range(match.range(at: 1), in: result.stdout)
                else { throw Failure(description: "line \(block.line): capture \(name) found nothing") }
                variables[name] = String(result.stdout[r])
            }
        }
    }

    static let replacements: [(NSRegularExpression, String)] = [
        (try! NSRegularExpression(pattern: "\\b[0-9a-hjkmnp-tv-z]{26}\\b"), "<ID>"),
        (try! NSRegularExpression(pattern: "^[0-9a-hjkmnp-tv-z]{8}(?=  )"), "<ID8>"),
        (try! NSRegularExpression(pattern: "\\b[0-9a-hjkmnp-tv-z]{13}\\b"), "<VER>"),
        (try! NSRegularExpression(pattern: "\\b[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z"), "<ISO>"),
        (try! NSRegularExpression(pattern: "\\b[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}"), "<DATE>"),
        (try! NSRegularExpression(pattern: "restore [0-9a-hjkmnp-tv-z]{8}\\b"), "restore <ID8>"),
        (try! NSRegularExpression(pattern: "history [0-9a-hjkmnp-tv-z]{8}\\b"), "history <ID8>"),
        (try! NSRegularExpression(pattern: "show [0-9a-hjkmnp-tv-z]{8}\\b"), "show <ID8>"),
        (try! NSRegularExpression(pattern: "totp add [0-9a-hjkmnp-tv-z]{8}\\b"), "totp add <ID8>"),
        (try! NSRegularExpression(pattern: "(edit|fix-https) [0-9a-hjkmnp-tv-z]{8}\\b"), "$1 <ID8>"),
        (try! NSRegularExpression(pattern: "\\([0-9a-hjkmnp-tv-z]{8}\\)"), "(<ID8>)"),
    ]

    static func normalise(_ line: String) -> String {
        var out = line
        for (regex, template) in replacements {
            out = regex.stringByReplacingMatches(in: out, range: NSRange(out.startIndex..., in: out), withTemplate: template)
        }
        return out
    }

    /// Splits a command line on spaces, honouring double and single quotes.
    static func split(_ line: String) -> [String] {
        var words = [String]()
        var current = ""
        var quote: Character?
        var inWord = false
        for c in line {
            if let q = quote {
                if c == q { quote = nil } else { current.append(c) }
            } else if c == "\"" || c == "'" {
                quote = c
                inWord = true
            } else if c == " " {
                if inWord { words.append(current); current = ""; inWord = false }
            } else {
                current.append(c)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }

    /// Ignores SIGPIPE in the test process, once.
    static let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    public struct Result {
        public let status: Int32
        public let stdout: String
        public let stderr: String
        /// The child's peak resident memory (wait4's ru_maxrss), in KiB. It counts this process's memory too
        /// (posix_spawn shares it until exec): measure through a small parent when that matters.
        public var peakKiB: Int = 0
    }

    /// Runs the executable with `stdin` lines on standard input (not a terminal). Uses posix_spawn and
    /// waitpid rather than Foundation's Process, which also waits for a socket its child passes on — and a
    /// detached agent the child starts would hold it for as long as the agent lives.
    public static func execute(_ executable: String, _ arguments: [String], stdin: [String], environment: [String: String]) throws -> Result {
        // Close-on-exec pipes: a child spawned by another test at the same moment must not inherit these ends
        // (it would hold a write end open, and this reader would never see end of file).
        let inPipe = try ChildProcess.pipe(), outPipe = try ChildProcess.pipe(), errPipe = try ChildProcess.pipe()
        let env = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0)=\($1)" }
        let spawned = Swift.Result { try ChildProcess.spawn([executable] + arguments, stdin: inPipe.read, stdout: outPipe.write, stderr: errPipe.write, environment: env) }
        close(inPipe.read)
        close(outPipe.write)
        close(errPipe.write)
        guard case .success(let pid) = spawned else {
            [inPipe.write, outPipe.read, errPipe.read].forEach { close($0) }
            throw Failure(description: "cannot run \(executable)")
        }
        let input = Array(stdin.map { $0 + "\n" }.joined().utf8)
        let stdinWrite = inPipe.write
        // A child that exits before reading its input (a refused option) must not kill the test process
        // with SIGPIPE: the write then fails with EPIPE, which ends the writer.
        _ = Self.ignoreBrokenPipes

        let writer = Thread {
            var done = 0
            while done < input.count {
                let n = input.withUnsafeBytes { write(stdinWrite, $0.baseAddress! + done, input.count - done) }
                if n <= 0 { break }
                done += n
            }
            close(stdinWrite)
        }
        writer.start()
        let errorData = ReadAll(fd: errPipe.read)
        let reader = Thread { errorData.run() }
        reader.start()
        let outputData = ReadAll(fd: outPipe.read)
        outputData.run()
        while !errorData.finished { usleep(1000) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        close(outPipe.read)
        close(errPipe.read)
        return Result(
            status: exit, stdout: String(decoding: outputData.bytes, as: UTF8.self), stderr: String(decoding: errorData.bytes, as: UTF8.self), peakKiB: usage.ru_maxrss)
    }

    /// Starts a long-running helper (an X server, a bus) with its output discarded; returns its pid. Stop it with
    /// `stop(_:)`.
    public static func startBackground(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Int32 {
        let env = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0)=\($1)" }
        return try ChildProcess.spawn([executable] + arguments, environment: env)
    }

    /// Ends a helper started with `startBackground` and reaps it.
    public static func stop(_ pid: Int32) {
        kill(pid, SIGTERM)
        ChildProcess.wait(pid)
    }

    final class ReadAll: @unchecked Sendable {
        // @unchecked: written by one thread, read after `finished` is set.
        let fd: Int32
        var bytes = [UInt8]()
        var finished = false
        init(fd: Int32) { self.fd = fd }
        func run() {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                bytes += buffer[0..<n]
            }
            finished = true
        }
    }

    /// The `passbox` executable built beside the test bundle (or named by PASSBOX_BIN).
    public static func executablePath() throws -> String {
        if let path = ProcessInfo.processInfo.environment["PASSBOX_BIN"] { return path }
        var candidates = [URL]()
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        candidates.append(bundle.appendingPathComponent("passbox"))
        candidates.append(Bundle.main.bundleURL.appendingPathComponent("passbox"))
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("passbox"))
        for url in candidates where FileManager.default.isExecutableFile(atPath: url.path) { return url.path }
        throw Failure(description: "the passbox executable was not found next to the tests (\(candidates.map(\.path))); run swift build first")
    }
}
