import Foundation
import PassboxTestKit
import Testing

/// A display of a clipboard test's own: an X server (Xvfb, read and written with xclip) or a Wayland compositor
/// (sway's headless backend, read and written with wl-paste and wl-copy through its data-control protocol, as
/// on a wlroots or KDE desktop). Stopped when it is no longer referenced.
final class TestDisplay {
    enum Kind: String { case x11 = "X11", wayland = "Wayland" }

    static func exists(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }
    static let hasX11 = exists("/usr/bin/Xvfb") && exists("/usr/bin/xclip")
    /// sway will not run as root: as root it runs as `nobody`.
    static let hasWayland = exists("/usr/bin/sway") && exists("/usr/bin/wl-copy") && exists("/usr/bin/wl-paste") && exists("/usr/bin/setpriv")
        && (getuid() != 0 || getpwnam("nobody") != nil)

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let kind: Kind
    /// What a client of this display is started with (the other kind's variable empty, as with none).
    let environment: [String: String]
    private let pid: Int32
    private let runtime: TemporaryDirectory?

    /// Starts the display (X11: `:number`) and waits until a client can reach it.
    init(_ kind: Kind, number: Int = 0) throws {
        self.kind = kind
        switch kind {
        case .x11:
            runtime = nil
            environment = ["DISPLAY": ":\(number)", "WAYLAND_DISPLAY": ""]
            // -noreset: by default Xvfb resets when its last client leaves (between two copies), and a client
            // connecting meanwhile on a busy machine found no display.
            pid = try Transcript.startBackground("/usr/bin/Xvfb", [":\(number)", "-screen", "0", "320x240x24", "-nolisten", "tcp", "-noreset"])
        case .wayland:
            let runtime = try TemporaryDirectory("passbox-wayland")
            self.runtime = runtime
            try "xwayland disable\n".write(toFile: runtime.path + "/config", atomically: false, encoding: .utf8)
            var asUser = [String]()
            if getuid() == 0, let nobody = getpwnam("nobody") {
                chown(runtime.path, nobody.pointee.pw_uid, nobody.pointee.pw_gid)
                asUser = ["/usr/bin/setpriv", "--reuid=\(nobody.pointee.pw_uid)", "--regid=\(nobody.pointee.pw_gid)", "--clear-groups", "--"]
            }
            // Nothing of the test's own session reaches the compositor (env -i, which execs it: its id is sway's).
            let settings = ["XDG_RUNTIME_DIR=\(runtime.path)", "HOME=\(runtime.path)", "PATH=/usr/bin:/bin", "WLR_BACKENDS=headless", "WLR_LIBINPUT_NO_DEVICES=1", "WLR_RENDERER=pixman"]
            pid = try Transcript.startBackground("/usr/bin/env", ["-i"] + settings + asUser + ["/usr/bin/sway", "-c", runtime.path + "/config"])
            // Its socket, named by the compositor, reached by its absolute path (libwayland takes one).
            var socket: String?
            for _ in 0..<200 where socket == nil {
                socket = ((try? FileManager.default.contentsOfDirectory(atPath: runtime.path)) ?? []).first { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }
                if socket == nil { Thread.sleep(forTimeInterval: 0.05) }
            }
            guard let socket else {
                Transcript.stop(pid)
                throw Failure(description: "sway made no Wayland socket within ten seconds")
            }
            environment = ["WAYLAND_DISPLAY": runtime.path + "/" + socket, "DISPLAY": ""]
        }
        // Reached once a client no longer fails to connect (an empty clipboard is another error, and fine), and
        // the display is this one's: a server that ended at start left the number to another.
        let probe = try run(kind == .x11 ? ["/usr/bin/xclip", "-selection", "clipboard", "-o"] : ["/usr/bin/wl-paste", "--list-types"])
        guard Self.reached(probe) else { throw Failure(description: "the \(kind.rawValue) display did not answer within ten seconds: \(probe.stderr)") }
        guard waitpid(pid, nil, WNOHANG) == 0 else { throw Failure(description: "the \(kind.rawValue) display's server ended at start (is \(environment) taken?)") }
    }

    deinit { Transcript.stop(pid) }

    /// Whether a tool reached the display (an empty clipboard is another error).
    private static func reached(_ result: Transcript.Result) -> Bool {
        !result.stderr.contains("Can't open display") && !result.stderr.contains("Failed to connect")
    }

    /// Runs a clipboard tool (at most 3 s), again while it cannot reach the display, for up to ten seconds (the
    /// display starting).
    private func run(_ command: [String]) throws -> Transcript.Result {
        let deadline = Date().addingTimeInterval(10)
        while true {
            let result = try Transcript.execute("/usr/bin/timeout", ["3"] + command, stdin: [], environment: environment)
            if Self.reached(result) || Date() >= deadline { return result }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    /// What the clipboard (or PRIMARY) holds as `type` (UTF-8 text when nil); "" when it holds nothing. A read
    /// that could not reach the display throws, so it never passes for an empty clipboard.
    func read(primary: Bool = false, type: String? = nil) throws -> String {
        let read = try run(readCommand(primary: primary, type: type))
        // timeout's 124: the tool hung.
        guard read.status != 124, Self.reached(read) else {
            throw Failure(description: "the \(kind.rawValue) clipboard could not be read: \(read.stderr)")
        }
        return read.stdout
    }

    /// The tool's command that reads the clipboard (or PRIMARY) as `type` (UTF-8 text when nil).
    private func readCommand(primary: Bool = false, type: String? = nil) -> [String] {
        switch kind {
        case .x11: ["/usr/bin/xclip", "-selection", primary ? "primary" : "clipboard", "-o"] + (type.map { ["-target", $0] } ?? [])
        case .wayland: ["/usr/bin/wl-paste", "--no-newline"] + (primary ? ["--primary"] : []) + (type.map { ["--type", $0] } ?? [])
        }
    }

    /// Starts reading the clipboard in another thread, with xclip or wl-paste given `seconds` before timeout ends
    /// it (status 124); what is returned waits for that read's end.
    func startRead(seconds: Int) -> () -> Transcript.Result? {
        final class Pending: @unchecked Sendable {
            // @unchecked: `result` is written before `ended` is signalled and read after it.
            var result: Transcript.Result?
            let ended = DispatchSemaphore(value: 0)
        }
        let pending = Pending()
        let command = readCommand(), environment = environment
        Thread {
            pending.result = try? Transcript.execute("/usr/bin/timeout", [String(seconds)] + command, stdin: [], environment: environment)
            pending.ended.signal()
        }.start()
        return {
            pending.ended.wait()
            return pending.result
        }
    }

    /// The types the clipboard offers, one a line.
    func types() throws -> String {
        kind == .x11 ? try read(type: "TARGETS") : try run(["/usr/bin/wl-paste", "--list-types"]).stdout
    }

    /// Another program copies `text` (or selects it, into PRIMARY), and it is there when this returns. Both
    /// tools leave a process serving it: its output goes to /dev/null, so the run here ends. xclip forks before
    /// it takes the selection, so it has not always taken it when it returns: read until it has.
    func select(_ text: String, primary: Bool = false) throws {
        let tool = kind == .x11 ? "xclip -selection \(primary ? "primary" : "clipboard") -i" : "wl-copy\(primary ? " --primary" : "")"
        _ = try Transcript.execute("/usr/bin/sh", ["-c", "printf %s \"$0\" | \(tool) >/dev/null 2>&1", text], stdin: [], environment: environment)
        let now = try waitFor(primary: primary) { $0 == text }
        guard now == text else { throw Failure(description: "the \(kind.rawValue) \(primary ? "primary selection" : "clipboard") still held \(now.debugDescription) ten seconds after another program copied") }
    }

    /// Reads until `condition` holds of what is read, at most ten seconds; returns the last read.
    func waitFor(primary: Bool = false, _ condition: (String) -> Bool) throws -> String {
        var value = try read(primary: primary)
        for _ in 0..<100 where !condition(value) {
            Thread.sleep(forTimeInterval: 0.1)
            value = try read(primary: primary)
        }
        return value
    }
}
