import Foundation
import PassboxAgent
import PassboxCore
import PassboxCrypto
internal import CXcbSupport

extension Commands {
    static let clipboardSeconds = 90

    /// The clipboard tool for this session: wl-copy on Wayland, xclip on X11; nil without a display.
    static func clipboardTool() -> (copy: [String], paste: [String])? {
        let env = ProcessInfo.processInfo.environment
        func exists(_ name: String) -> Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/" + name) }
        // An empty variable (DISPLAY= in a script) means no display, as it does for X clients.
        if !(env["WAYLAND_DISPLAY"] ?? "").isEmpty, exists("wl-copy"), exists("wl-paste") {
            return (["/usr/bin/wl-copy", "--type", "text/plain;charset=utf-8"], ["/usr/bin/wl-paste", "--no-newline"])
        }
        if !(env["DISPLAY"] ?? "").isEmpty, exists("xclip") {
            return (["/usr/bin/xclip", "-selection", "clipboard", "-in", "-target", "UTF8_STRING"], ["/usr/bin/xclip", "-selection", "clipboard", "-out"])
        }
        return nil
    }

    /// Runs a clipboard tool with posix_spawn and waitpid: xclip leaves a child serving the selection that
    /// holds inherited descriptors, so its output is read only when asked for (paste) and copies write to
    /// /dev/null.
    static func runTool(_ command: [String], input: Data?, readOutput: Bool = false, wait: Bool = true) -> (status: Int32, output: Data) {
        guard let inPipe = try? ChildProcess.pipe() else { return (-1, Data()) }
        let outPipe = readOutput ? try? ChildProcess.pipe() : nil
        let pid = try? ChildProcess.spawn(command, stdin: inPipe.read, stdout: outPipe?.write)
        close(inPipe.read)
        if let outPipe { close(outPipe.write) }
        guard let pid else {
            close(inPipe.write)
            if let outPipe { close(outPipe.read) }
            return (-1, Data())
        }
        if let input, !input.isEmpty { _ = input.withUnsafeBytes { write(inPipe.write, $0.baseAddress, $0.count) } }
        close(inPipe.write)
        var output = Data()
        if let outPipe {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = Glibc.read(outPipe.read, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                output.append(contentsOf: buffer[0..<n])
            }
            close(outPipe.read)
        }
        // The clearing helper runs on in its own time; it is reaped by init when this process ends.
        guard wait else { return (0, output) }
        return (ChildProcess.wait(pid), output)
    }

    /// `passbox copy ITEM [FIELD] [--clear-after SECONDS]`: copies a value (the password by default) and
    /// clears the clipboard after 90 seconds, only if it still holds that value. On X11 Passbox owns the
    /// clipboard itself (a detached helper, `clipboard-serve`) so the copy carries the
    /// `x-kde-passwordManagerHint: secret` mark; on Wayland it uses wl-copy.
    static func copy(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...2, usage: "passbox copy ITEM [FIELD]")
        let env = ProcessInfo.processInfo.environment
        let tool = clipboardTool()
        let x11 = !(env["DISPLAY"] ?? "").isEmpty
        guard tool != nil || x11 else {
            throw CLIError.failure("there is no display to copy to (no WAYLAND_DISPLAY with wl-copy, no DISPLAY); nothing was copied", hint: "use \"passbox read passbox://local/ITEM/FIELD\" in scripts")
        }
        let field = args.positionals.count > 1 ? args.positionals[1] : "password"
        let item = args.positionals[0].addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? args.positionals[0]
        let value = try resolve(["passbox://local/\(item)/\(field)"], context, markUsed: true)[0]
        let seconds = Int(args.value("clear-after") ?? "") ?? clipboardSeconds
        let done = "Copied \(field) of \(args.positionals[0]); the clipboard clears in \(seconds) s if it still holds it."
        let nativeWayland = tool?.copy.first == "/usr/bin/wl-copy"
        if x11 && !nativeWayland {
            switch serveOnX11(value, seconds: seconds) {
            case .served:
                Console.out(done)
                return
            case .failed(let why) where tool == nil:
                throw CLIError.failure("could not copy to the X11 clipboard: \(why); nothing was copied")
            case .failed:
                break  // xclip below, without the password-manager mark
            }
        }
        guard let tool else { throw CLIError.failure("no clipboard tool was found; nothing was copied", hint: "install wl-clipboard (Wayland) or xclip (X11)") }
        guard runTool(tool.copy, input: Data(value.utf8)).status == 0 else {
            throw CLIError.failure("the clipboard tool \(tool.copy[0]) failed; nothing was copied")
        }
        // A detached helper clears it later; it gets only the value's SHA-256, on standard input.
        let fingerprint = Hash.sha256(Array(value.utf8)).map { String(format: "%02x", $0) }.joined()
        _ = runTool([selfExecutable(), "clipboard-clear", "--after", String(seconds)], input: Data((fingerprint + "\n").utf8), wait: false)
        Console.out(done)
    }

    static func selfExecutable() -> String { URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path }

    enum X11Outcome {
        case served
        case failed(String)
    }

    /// Starts the detached `clipboard-serve` helper with the value on its standard input and waits for its
    /// first line: "ok" once it owns the clipboard, else "error: …".
    static func serveOnX11(_ value: String, seconds: Int) -> X11Outcome {
        guard let input = try? ChildProcess.pipe() else { return .failed("cannot create a pipe") }
        guard let status = try? ChildProcess.pipe() else {
            close(input.read)
            close(input.write)
            return .failed("cannot create a pipe")
        }
        let pid = try? ChildProcess.spawn([selfExecutable(), "clipboard-serve", "--after", String(seconds)], stdin: input.read, stdout: status.write, newSession: true)
        close(input.read)
        close(status.write)
        defer { close(status.read) }
        guard pid != nil else {
            close(input.write)
            return .failed("cannot start the clipboard helper")
        }
        let bytes = Array(value.utf8)
        _ = bytes.withUnsafeBytes { write(input.write, $0.baseAddress, $0.count) }
        close(input.write)
        var line = [UInt8]()
        var byte: UInt8 = 0
        while line.count < 512, Glibc.read(status.read, &byte, 1) == 1, byte != 0x0a { line.append(byte) }
        let answer = String(decoding: line, as: UTF8.self)
        if answer == "ok" { return .served }
        return .failed(answer.hasPrefix("error: ") ? String(answer.dropFirst(7)) : "the clipboard helper stopped")
    }

    /// The helper `copy` starts on X11 (its own session, core dumps off): reads the value from standard input
    /// into locked memory, owns the clipboard, says "ok" (or "error: …") on standard output and closes it, then
    /// serves the value with its password-manager mark until the delay ends or another program copies.
    static func clipboardServe(_ context: Context, _ args: Arguments) throws {
        ProcessHardening.disableCoreDumps()
        signal(SIGHUP, SIG_IGN)
        let seconds = Double(args.value("after") ?? "90") ?? 90
        var data = [UInt8](FileHandle.standardInput.readDataToEndOfFile())
        let value = SecretBytes(copying: data)
        ConstantTime.wipe(&data)
        var error = [CChar](repeating: 0, count: 256)
        let display = ProcessInfo.processInfo.environment["DISPLAY"] ?? ""
        let result = value.withUnsafeBytes { bytes in
            CXcb_serveClipboard(display, bytes.bindMemory(to: UInt8.self).baseAddress, UInt32(bytes.count), seconds, { _ in
                _ = "ok\n".withCString { write(STDOUT_FILENO, $0, 3) }
                let null = open("/dev/null", O_WRONLY)
                dup2(null, STDOUT_FILENO)
                close(null)
            }, nil, &error, error.count)
        }
        if result == -1 {
            let why = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            _ = "error: \(why)\n".withCString { write(STDOUT_FILENO, $0, strlen($0)) }
            throw ExitCode(1)
        }
    }

    /// The helper `copy` starts: waits, then clears the clipboard if it still holds the copied value.
    static func clipboardClear(_ context: Context, _ args: Arguments) throws {
        guard let fingerprint = context.input.readLine(), let tool = clipboardTool() else { return }
        let seconds = Double(args.value("after") ?? "90") ?? 90
        // Survive the terminal closing: the wait must finish.
        signal(SIGHUP, SIG_IGN)
        Thread.sleep(forTimeInterval: seconds)
        let current = runTool(tool.paste, input: nil, readOutput: true).output
        let hash = Hash.sha256(Array(current)).map { String(format: "%02x", $0) }.joined()
        guard hash == fingerprint else { return }
        _ = runTool(tool.copy, input: Data())
    }

    /// The large-type view: one character per numbered box, digits and symbols in their own colours.
    static func largeType(_ value: String, colors: Bool) -> String {
        let characters = Array(value)
        var lines = [String]()
        for start in stride(from: 0, to: characters.count, by: 10) {
            let row = Array(characters[start..<min(start + 10, characters.count)])
            lines.append("┌" + row.map { _ in "───" }.joined(separator: "┬") + "┐")
            lines.append("│" + row.map { c -> String in
                let text = " \(c) "
                guard colors else { return text }
                if c.isNumber { return "\u{1b}[34m\(text)\u{1b}[0m" }
                if !c.isLetter { return "\u{1b}[31m\(text)\u{1b}[0m" }
                return text
            }.joined(separator: "│") + "│")
            lines.append("└" + row.map { _ in "───" }.joined(separator: "┴") + "┘")
            lines.append(" " + row.indices.map { i in String(start + i + 1).padding(toLength: 3, withPad: " ", startingAt: 0) }.joined(separator: " "))
        }
        return lines.joined(separator: "\n")
    }
}
