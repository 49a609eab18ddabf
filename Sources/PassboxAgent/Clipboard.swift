import Foundation
import PassboxCrypto
import PassboxProcess
import PassboxProtocol
import PassboxService
internal import CLinux

/// Copying a value to the user's clipboard: the agent does it (it owns the clipboard helpers and clears the
/// clipboard when it locks), or the command line when no agent runs. The display comes from the request:
/// the agent may have been started in another environment than the command that asks.
///
/// On X11 a detached helper of ours (`passbox clipboard-serve`) owns CLIPBOARD and offers the value with the
/// `x-kde-passwordManagerHint: secret` mark; on Wayland `wl-copy` copies it and `passbox clipboard-clear`
/// clears it later if it still holds it (compared by SHA-256). xclip is the fallback on X11.
public final class Clipboard: @unchecked Sendable {
    // @unchecked: `helpers`, `toolCopies` and `unreaped` are used only on the agent's serial queue (or the CLI's
    // one thread).
    public static let defaultSeconds = 90
    /// The helpers serving values now (X11), ended when the agent locks.
    private var helpers = [pid_t]()
    /// A value copied through a tool, which serves it in a process of its own.
    private struct ToolCopy {
        /// The value's SHA-256 (the clearers compare the clipboard's text with it).
        let fingerprint: String
        /// The helpers' environment (the requesting command's display).
        let environment: [String]
        /// The clearer waiting for the deadline; nil if it could not be started.
        let clearer: pid_t?
    }
    /// The values copied through a tool (wl-copy on Wayland; xclip on X11 when Passbox's own helper cannot serve
    /// the value) until their clearer ends: at lock each is cleared at once, if the clipboard still holds it.
    private var toolCopies = [ToolCopy]()
    /// Every helper started without waiting (servers and clearers), reaped once it ends (`reapFinished`),
    /// so none stays a zombie under the agent.
    private var unreaped = [pid_t]()

    public init() {}

    /// The clipboard tool for `display`: wl-copy on Wayland, xclip on X11; nil without a display.
    public static func tool(_ display: ClipboardDisplay) -> (copy: [String], paste: [String])? {
        func exists(_ name: String) -> Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/" + name) }
        // An empty variable (DISPLAY= in a script) means no display, as it does for X clients.
        if !(display.waylandDisplay ?? "").isEmpty, exists("wl-copy"), exists("wl-paste") {
            return (["/usr/bin/wl-copy", "--type", "text/plain;charset=utf-8"], ["/usr/bin/wl-paste", "--no-newline"])
        }
        if !(display.display ?? "").isEmpty, exists("xclip") {
            return (["/usr/bin/xclip", "-selection", "clipboard", "-in", "-target", "UTF8_STRING"], ["/usr/bin/xclip", "-selection", "clipboard", "-out"])
        }
        return nil
    }

    /// The environment the helpers run with: only what a clipboard client needs.
    static func environment(_ display: ClipboardDisplay) -> [String] {
        var env = ["PATH=/usr/bin:/bin"]
        if let v = display.display, !v.isEmpty { env.append("DISPLAY=\(v)") }
        if let v = display.waylandDisplay, !v.isEmpty { env.append("WAYLAND_DISPLAY=\(v)") }
        if let v = display.xauthority, !v.isEmpty { env.append("XAUTHORITY=\(v)") }
        if let v = display.runtimeDirectory, !v.isEmpty { env.append("XDG_RUNTIME_DIR=\(v)") }
        if let home = getenv("HOME") { env.append("HOME=" + String(cString: home)) }
        return env
    }

    static func selfExecutable() -> String { URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path }

    /// Copies `value`, cleared after `seconds` if the clipboard still holds it. Throws `noDisplay` or
    /// `clipboardFailed`; nothing is copied then.
    public func copy(_ value: String, seconds: Int, display: ClipboardDisplay) throws {
        let tool = Self.tool(display)
        let x11 = !(display.display ?? "").isEmpty
        guard tool != nil || x11 else { throw ProtocolError(.noDisplay) }
        let environment = Self.environment(display)
        let nativeWayland = tool?.copy.first == "/usr/bin/wl-copy"
        var x11Failure: String?
        if x11 && !nativeWayland {
            switch serveOnX11(value, seconds: seconds, environment: environment) {
            case .served(let pid):
                helpers.append(pid)
                unreaped.append(pid)
                return
            case .failed(let why) where tool == nil:
                throw ProtocolError(.clipboardFailed, ["reason": why])
            case .failed(let why):
                x11Failure = why  // xclip below, without the password-manager mark
            }
        }
        guard let tool else { throw ProtocolError(.clipboardFailed, ["reason": "no clipboard tool (wl-copy or xclip) was found"]) }
        guard Self.runTool(tool.copy, input: Data(value.utf8), environment: environment).status == 0 else {
            // Both failed: the X11 helper's reason (such as a display that cannot be opened) says more than xclip's.
            throw ProtocolError(.clipboardFailed, ["reason": x11Failure.map { "\($0) (and \(tool.copy[0]) failed too)" } ?? "\(tool.copy[0]) failed"])
        }
        // A detached helper clears it later; it gets only the value's SHA-256, on standard input.
        let fingerprint = Hash.sha256Hex(Array(value.utf8))
        toolCopies.append(ToolCopy(fingerprint: fingerprint, environment: environment, clearer: startClearer(fingerprint, after: seconds, environment: environment)))
    }

    /// Starts the detached helper that clears the clipboard after `seconds` if it still holds the value of
    /// `fingerprint` (given on its standard input).
    private func startClearer(_ fingerprint: String, after seconds: Int, environment: [String]) -> pid_t? {
        let clearer = Self.runTool([Self.selfExecutable(), "clipboard-clear", "--after", String(seconds)], input: Data((fingerprint + "\n").utf8), environment: environment, wait: false)
        if let pid = clearer.pid { unreaped.append(pid) }
        return clearer.pid
    }

    /// CLIP-1: a detached helper (`passbox clipboard-clear --primary`) clears the PRIMARY selection if it holds
    /// one of the values this agent showed; it gets only their SHA-256 fingerprints, on standard input. Started
    /// before the lock answers, so that once the lock is answered the helper runs or has run.
    public func clearPrimary(holding fingerprints: Set<String>, display: ClipboardDisplay) {
        guard !(display.display ?? "").isEmpty || !(display.waylandDisplay ?? "").isEmpty else { return }
        var input = Data()
        for fingerprint in fingerprints { input.append(contentsOf: Array((fingerprint + "\n").utf8)) }
        let helper = Self.runTool([Self.selfExecutable(), "clipboard-clear", "--primary"], input: input, environment: Self.environment(display), wait: false)
        if let pid = helper.pid { unreaped.append(pid) }
    }

    /// Reaps the helpers that have ended (called on the agent's timer), and forgets them: a reaped id may be given
    /// to another process, which a lock must never signal. A copy whose clearer ended is forgotten with it (its
    /// deadline has passed), fingerprint and all.
    public func reapFinished() {
        var reaped = Set<pid_t>()
        unreaped.removeAll { pid in
            let result = waitpid(pid, nil, WNOHANG)
            guard result == pid || (result < 0 && errno == ECHILD) else { return false }
            reaped.insert(pid)
            return true
        }
        guard !reaped.isEmpty else { return }
        helpers.removeAll { reaped.contains($0) }
        toolCopies.removeAll { $0.clearer.map { reaped.contains($0) } ?? false }
    }

    /// Takes the copied values off the clipboard (the agent locks): the helpers that still serve one end, so X11
    /// has no owner for the clipboard; a value a tool serves (wl-copy, xclip) is cleared by a clearer started now
    /// in place of the one waiting for the deadline, if the clipboard still holds it. Every id signalled here is
    /// of a child not yet reaped (`reapFinished` forgets the others), so never another process's.
    public func clearServed() {
        for pid in helpers { kill(pid, SIGTERM) }
        helpers.removeAll()
        for copy in toolCopies {
            if let waiting = copy.clearer { kill(waiting, SIGTERM) }
            _ = startClearer(copy.fingerprint, after: 0, environment: copy.environment)
        }
        toolCopies.removeAll()
    }

    enum X11Outcome {
        case served(pid_t)
        case failed(String)
    }

    /// Starts the detached `clipboard-serve` helper with the value on its standard input and waits for its
    /// first line: "ok" once it owns the clipboard, else "error: …".
    func serveOnX11(_ value: String, seconds: Int, environment: [String]) -> X11Outcome {
        guard let input = try? ChildProcess.pipe() else { return .failed("cannot create a pipe") }
        guard let status = try? ChildProcess.pipe() else {
            close(input.read)
            close(input.write)
            return .failed("cannot create a pipe")
        }
        let pid = try? ChildProcess.spawn(
            [Self.selfExecutable(), "clipboard-serve", "--after", String(seconds)], stdin: input.read, stdout: status.write, environment: environment, newSession: true)
        close(input.read)
        close(status.write)
        defer { close(status.read) }
        guard let pid else {
            close(input.write)
            return .failed("cannot start the clipboard helper")
        }
        var bytes = Array(value.utf8)
        _ = bytes.withUnsafeBytes { write(input.write, $0.baseAddress, $0.count) }
        ConstantTime.wipe(&bytes)
        close(input.write)
        var line = [UInt8]()
        var byte: UInt8 = 0
        while line.count < 512, Glibc.read(status.read, &byte, 1) == 1, byte != 0x0a { line.append(byte) }
        let answer = String(decoding: line, as: UTF8.self)
        if answer == "ok" { return .served(pid) }
        return .failed(answer.hasPrefix("error: ") ? String(answer.dropFirst(7)) : "the clipboard helper stopped")
    }

    /// Runs a clipboard tool with posix_spawn and waitpid: xclip leaves a child serving the selection that
    /// holds inherited descriptors, so its output is read only when asked for (paste) and copies write to
    /// /dev/null.
    public static func runTool(_ command: [String], input: Data?, environment: [String]? = nil, readOutput: Bool = false, wait: Bool = true) -> (status: Int32, output: Data, pid: Int32?) {
        guard let inPipe = try? ChildProcess.pipe() else { return (-1, Data(), nil) }
        let outPipe = readOutput ? try? ChildProcess.pipe() : nil
        let pid = try? ChildProcess.spawn(command, stdin: inPipe.read, stdout: outPipe?.write, environment: environment)
        close(inPipe.read)
        if let outPipe { close(outPipe.write) }
        guard let pid else {
            close(inPipe.write)
            if let outPipe { close(outPipe.read) }
            return (-1, Data(), nil)
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
        // The clearing helper runs on in its own time; the caller reaps it (the agent on its timer).
        guard wait else { return (0, output, pid) }
        return (ChildProcess.wait(pid), output, nil)
    }
}

extension ClipboardDisplay {
    /// This process's own display (its DISPLAY, WAYLAND_DISPLAY, XAUTHORITY and XDG_RUNTIME_DIR).
    public static func fromEnvironment() -> ClipboardDisplay {
        func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
        return ClipboardDisplay(display: variable("DISPLAY"), waylandDisplay: variable("WAYLAND_DISPLAY"), xauthority: variable("XAUTHORITY"), runtimeDirectory: variable("XDG_RUNTIME_DIR"))
    }
}
