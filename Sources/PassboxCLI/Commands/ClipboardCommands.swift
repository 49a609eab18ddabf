import Foundation
import PassboxAgent
import PassboxCore
import PassboxCrypto
import PassboxProtocol
import PassboxStore
internal import CXcbSupport

extension Commands {
    /// The display of this command's session, for the clipboard.
    static func clipboardDisplay() -> ClipboardDisplay { ClipboardDisplay.fromEnvironment() }

    /// `passbox copy ITEM [FIELD] [--clear-after SECONDS]`: copies a value (the password by default) and
    /// clears the clipboard after 90 seconds, only if it still holds that value — and, through the agent, when
    /// the agent locks. The agent does the copying when one runs (it owns the helpers); else this process does.
    static func copy(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...2, usage: "passbox copy ITEM [FIELD]")
        var seconds = Settings.load(context.dataDirectory).effectiveClipboardSeconds
        if let given = args.value("clear-after") {
            guard let value = Int(given), (1...3600).contains(value) else {
                throw CLIError.usage("--clear-after takes 1 to 3600 seconds, not \"\(Console.visibleLine(given))\"", hint: "for example --clear-after 30")
            }
            seconds = value
        }
        let display = clipboardDisplay()
        // Say there is nowhere to copy to before asking for any password.
        guard Clipboard.tool(display) != nil || !(display.display ?? "").isEmpty else { throw ProtocolError(.noDisplay) }
        let field = args.positionals.count > 1 ? args.positionals[1] : "password"
        let item = args.positionals[0].addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? args.positionals[0]
        let reference = "passbox://local/\(item)/\(field)"
        if context.endpoint.agentIsRunning {
            try context.send(.copy(CopyRequest(reference: reference, clearAfter: seconds, display: display)))
        } else {
            let value = try resolve([reference], context, markUsed: true)[0]
            try Clipboard().copy(value, seconds: seconds, display: display)
        }
        Console.out(Console.visible("Copied \(field) of \(args.positionals[0]); the clipboard clears in \(seconds) s if it still holds it."))
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
        if args.flag("primary") { return clearPrimary(context) }
        guard let fingerprint = context.input.readLine(), let tool = Clipboard.tool(clipboardDisplay()) else { return }
        let seconds = Double(args.value("after") ?? "90") ?? 90
        // Survive the terminal closing: the wait must finish.
        signal(SIGHUP, SIG_IGN)
        Thread.sleep(forTimeInterval: seconds)
        // At most two seconds: on a compositor without the data-control protocol wl-paste may wait for a focus
        // it never gets, and this helper must end.
        let current = Clipboard.runTool(["/usr/bin/timeout", "2"] + tool.paste, input: nil, readOutput: true)
        guard current.status == 0, Hash.sha256Hex(Array(current.output)) == fingerprint else { return }
        // wl-copy empties it (an empty copy would leave a process serving ""); xclip is given nothing to serve.
        if tool.copy.first == "/usr/bin/wl-copy" {
            _ = Clipboard.runTool(["/usr/bin/timeout", "2", "/usr/bin/wl-copy", "--clear"], input: nil)
        } else {
            _ = Clipboard.runTool(tool.copy, input: Data())
        }
    }

    /// The helper the agent starts at lock (CLIP-1): the fingerprints of the values it showed come on standard
    /// input, one a line; PRIMARY is cleared if it holds one of them (without the blanks around it). On X11 it is
    /// read and cleared with one timestamp, so a selection made meanwhile stays; on Wayland through wl-paste and
    /// wl-copy.
    static func clearPrimary(_ context: Context) {
        ProcessHardening.disableCoreDumps()
        signal(SIGHUP, SIG_IGN)
        var fingerprints = Set<String>()
        while let line = context.input.readLine(), fingerprints.count <= ShownValues.limit {
            if line.count == 64 { fingerprints.insert(line) }
        }
        guard !fingerprints.isEmpty else { return }
        let display = clipboardDisplay()
        if let wayland = display.waylandDisplay, !wayland.isEmpty, FileManager.default.isExecutableFile(atPath: "/usr/bin/wl-paste") {
            let current = Clipboard.runTool(["/usr/bin/timeout", "2", "/usr/bin/wl-paste", "--primary", "--no-newline"], input: nil, readOutput: true)
            guard current.status == 0, current.output.count <= 1 << 20, let shown = ShownValues.fingerprint(String(decoding: current.output, as: UTF8.self)),
                fingerprints.contains(shown)
            else { return }
            _ = Clipboard.runTool(["/usr/bin/wl-copy", "--primary", "--clear"], input: nil)
            return
        }
        guard let x11 = display.display, !x11.isEmpty else { return }
        final class Wanted { let fingerprints: Set<String>; init(_ f: Set<String>) { fingerprints = f } }
        let wanted = Wanted(fingerprints)
        var error = [CChar](repeating: 0, count: 256)
        _ = withExtendedLifetime(wanted) {
            CXcb_clearPrimaryIf(x11, { bytes, length, context in
                guard let bytes, let context else { return 0 }
                let wanted = Unmanaged<Wanted>.fromOpaque(context).takeUnretainedValue()
                let text = String(decoding: UnsafeBufferPointer(start: bytes, count: Int(length)), as: UTF8.self)
                return ShownValues.fingerprint(text).map { wanted.fingerprints.contains($0) } == true ? 1 : 0
            }, Unmanaged.passUnretained(wanted).toOpaque(), 5, &error, error.count)
        }
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
