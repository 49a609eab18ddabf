import Foundation
import PassboxCrypto
import PassboxProtocol

/// Where a command reads its input: the local terminal or standard input, or (in the agent) the client's.
protocol InputSource: AnyObject {
    var isTerminal: Bool { get }
    func readLine() -> String?
    func readRest() throws -> String
    func secret(prompt: String) throws -> String
    func secretText(prompt: String) throws -> SecretText
}

/// Reads secrets: from the terminal with echo off, or, when standard input is not a terminal, one line at a
/// time from it (the vault password first, then `--password-stdin`, then `--notes-stdin`).
final class SecretInput: InputSource {
    /// How long a terminal prompt waits for an answer (debug builds, which `make test` runs, take
    /// PASSBOX_TEST_PROMPT_SECONDS so a test need not wait a minute; the release binary has no such hook).
    #if DEBUG
        static let promptSeconds = getenv("PASSBOX_TEST_PROMPT_SECONDS").flatMap { Int(String(cString: $0)) } ?? 60
    #else
        static let promptSeconds = 60
    #endif
    private var buffered = [UInt8]()
    private var reachedEnd = false

    var isTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// One line from standard input without its newline, or nil at end of input.
    func readLine() -> String? {
        guard var line = readLineBytes() else { return nil }
        defer { ConstantTime.wipe(&line) }
        return String(decoding: line, as: UTF8.self)
    }

    /// One line's bytes, which the caller wipes.
    func readLineBytes() -> [UInt8]? {
        // Only bytes not yet searched are searched for the line's end, so a line of many megabytes is read in
        // one pass (searching the whole buffer after every read made an 8 MB line take minutes).
        var searched = 0
        while true {
            // Input may hold secrets: every buffer a line passed through is wiped once it is taken.
            if let newline = buffered[searched...].firstIndex(of: 10) {
                var line = Array(buffered[..<newline])
                var rest = Array(buffered[(newline + 1)...])
                swap(&rest, &buffered)
                ConstantTime.wipe(&rest)
                if line.last == 13 { line[line.count - 1] = 0; line.removeLast() }
                return line
            }
            if reachedEnd {
                guard !buffered.isEmpty else { return nil }
                defer { buffered = [] }
                return buffered
            }
            searched = buffered.count
            var chunk = [UInt8](repeating: 0, count: 65536)
            defer { ConstantTime.wipe(&chunk) }
            let n = read(STDIN_FILENO, &chunk, chunk.count)
            if n <= 0 {
                if n < 0 && errno == EINTR { continue }
                reachedEnd = true
            } else {
                // Grown by doubling; the old storage is wiped when a growth moves the bytes.
                if buffered.count + n > buffered.capacity {
                    var grown = [UInt8]()
                    grown.reserveCapacity(max(buffered.capacity * 2, buffered.count + n))
                    grown += buffered
                    ConstantTime.wipe(&buffered)
                    buffered = grown
                }
                buffered += chunk[0..<n]
            }
        }
    }

    /// Everything left on standard input. On a terminal each line must come within a minute of the one before
    /// (a prompt never waits forever: a held prompt must not hold the command, and what was typed is dropped).
    func readRest() throws -> String {
        var lines = [String]()
        while true {
            if isTerminal, !buffered.contains(10), !reachedEnd {
                var ready = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, Int32(Self.promptSeconds * 1000)) > 0 else {
                    throw CLIError.failure("no input within \(Self.promptSeconds) seconds; nothing was changed", hint: "run the command again")
                }
            }
            guard let line = readLine() else { break }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// Asks for a secret: on a terminal the prompt goes to stderr and echo is off; otherwise the next line
    /// of standard input is taken.
    func secret(prompt: String) throws -> String {
        var line = try secretBytes(prompt: prompt)
        defer { ConstantTime.wipe(&line) }
        return String(decoding: line, as: UTF8.self)
    }

    /// A password for the agent: its bytes go from the input buffer into a `SecretText` without becoming a
    /// String, unless they need NFC normalisation (text beyond ASCII), which only Foundation's String does.
    func secretText(prompt: String) throws -> SecretText {
        var line = try secretBytes(prompt: prompt)
        defer { ConstantTime.wipe(&line) }
        if line.allSatisfy({ $0 < 0x80 }) { return line.withUnsafeBytes { SecretText(bytes: $0) } }
        return SecretText(String(decoding: line, as: UTF8.self))
    }

    private func secretBytes(prompt: String) throws -> [UInt8] {
        if isTerminal {
            Console.write(prompt, error: true)
            var original = termios()
            tcgetattr(STDIN_FILENO, &original)
            var silent = original
            silent.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
            defer {
                tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
                FileHandle.standardError.write(Data("\n".utf8))
            }
            // A prompt is answered within a minute or the command ends: nothing waits for a person forever.
            var ready = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            guard buffered.contains(10) || poll(&ready, 1, Int32(Self.promptSeconds * 1000)) > 0 else {
                throw CLIError.failure("no answer within \(Self.promptSeconds) seconds; nothing was changed", hint: "run the command again")
            }
            guard let line = readLineBytes() else { throw CLIError.failure("no input", hint: "type the password at the prompt") }
            return line
        }
        guard let line = readLineBytes() else {
            throw CLIError.usage("expected a line on standard input for \(prompt.trimmingCharacters(in: CharacterSet(charactersIn: ": ")).lowercased())", hint: "pipe the password as the first line of standard input, or run in a terminal")
        }
        return line
    }
}

/// Writing to stdout and stderr.
enum Console {
    static func out(_ text: String) { write(text + "\n", error: false) }
    static func err(_ text: String) { write(text + "\n", error: true) }

    static func write(_ text: String, error: Bool) {
        (error ? FileHandle.standardError : FileHandle.standardOutput).write(Data(text.utf8))
    }

    static var colors: Bool {
        isatty(STDOUT_FILENO) == 1 && getenv("NO_COLOR") == nil
    }

    /// Text made safe to print (`VisibleText.visible`, shared with the agent, which measures table cells).
    static func visible(_ text: String) -> String { VisibleText.visible(text) }

    /// One line of text made safe to print (`VisibleText.visibleLine`).
    static func visibleLine(_ text: String) -> String { VisibleText.visibleLine(text) }

    static func isHidden(_ s: Unicode.Scalar) -> Bool { VisibleText.isHidden(s) }
}
