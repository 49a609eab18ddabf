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
            pid = try Transcript.startBackground("/usr/bin/Xvfb", [":\(number)", "-screen", "0", "320x240x24", "-nolisten", "tcp"])
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
                throw RealAgent.Failure(description: "sway made no Wayland socket within ten seconds")
            }
            environment = ["WAYLAND_DISPLAY": runtime.path + "/" + socket, "DISPLAY": ""]
        }
        for _ in 0..<100 {
            let probe = try run(kind == .x11 ? ["/usr/bin/xclip", "-selection", "clipboard", "-o"] : ["/usr/bin/wl-paste", "--list-types"])
            if !probe.stderr.contains("Can't open display") && !probe.stderr.contains("Failed to connect") { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw RealAgent.Failure(description: "the \(kind.rawValue) display did not answer within ten seconds")
    }

    deinit { Transcript.stop(pid) }

    private func run(_ command: [String]) throws -> Transcript.Result {
        try Transcript.execute("/usr/bin/timeout", ["3"] + command, stdin: [], environment: environment)
    }

    /// What the clipboard (or PRIMARY) holds as `type` (UTF-8 text when nil); "" when it holds nothing.
    func read(primary: Bool = false, type: String? = nil) throws -> String {
        switch kind {
        case .x11:
            return try run(["/usr/bin/xclip", "-selection", primary ? "primary" : "clipboard", "-o"] + (type.map { ["-target", $0] } ?? [])).stdout
        case .wayland:
            return try run(["/usr/bin/wl-paste", "--no-newline"] + (primary ? ["--primary"] : []) + (type.map { ["--type", $0] } ?? [])).stdout
        }
    }

    /// The types the clipboard offers, one a line.
    func types() throws -> String {
        kind == .x11 ? try read(type: "TARGETS") : try run(["/usr/bin/wl-paste", "--list-types"]).stdout
    }

    /// Another program copies `text` (or selects it, into PRIMARY). Both tools leave a process serving it: its
    /// output goes to /dev/null, so the read here ends.
    func select(_ text: String, primary: Bool = false) throws {
        let tool = kind == .x11 ? "xclip -selection \(primary ? "primary" : "clipboard") -i" : "wl-copy\(primary ? " --primary" : "")"
        _ = try Transcript.execute("/usr/bin/sh", ["-c", "printf %s \"$0\" | \(tool) >/dev/null 2>&1", text], stdin: [], environment: environment)
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

/// Copying through the agent and clearing at lock, on X11 and on Wayland (CLIP-1).
extension AgentEndToEndTests {
    @Test(.enabled(if: TestDisplay.hasX11, "skipped: Xvfb and xclip are not installed (make test installs them)"))
    func clipboardCopiesAndClearsUnderX11() throws {
        try clipboardCopiesAndClears(TestDisplay(.x11, number: 60 + Int(getpid() % 30)))
    }

    @Test(.enabled(if: TestDisplay.hasWayland, "skipped: sway and wl-clipboard are not installed (make test installs them)"))
    func clipboardCopiesAndClearsUnderWayland() throws {
        try clipboardCopiesAndClears(TestDisplay(.wayland))
    }

    @Test(.enabled(if: TestDisplay.hasX11, "skipped: Xvfb and xclip are not installed (make test installs them)"))
    func lockClearsThePrimarySelectionOfAShownValueUnderX11() throws {
        try lockClearsThePrimarySelectionOfAShownValue(TestDisplay(.x11, number: 30 + Int(getpid() % 30)))
    }

    @Test(.enabled(if: TestDisplay.hasWayland, "skipped: sway and wl-clipboard are not installed (make test installs them)"))
    func lockClearsThePrimarySelectionOfAShownValueUnderWayland() throws {
        try lockClearsThePrimarySelectionOfAShownValue(TestDisplay(.wayland))
    }

    func clipboardCopiesAndClears(_ display: TestDisplay) throws {
        let env = display.environment
        let s = try unlockedSession()
        // Four seconds: the reads below start a process each, slow on a busy machine.
        let copied = try s.run(["copy", "GitHub", "--clear-after", "4"], env: env)
        #expect(copied.status == 0, "\(copied.stderr)")
        #expect(try display.read() == "Gh-Secret-Pa55word!")
        if display.kind == .x11 {
            // Marked for clipboard managers (KDE's convention, which others read too); wl-copy offers one type.
            #expect(try display.types().contains("x-kde-passwordManagerHint"))
            #expect(try display.read(type: "x-kde-passwordManagerHint") == "secret")
            #expect(try display.read(type: "UTF8_STRING") == "Gh-Secret-Pa55word!")
        } else {
            #expect(try display.types().contains("text/plain;charset=utf-8"))
        }
        // Cleared once the time is up: read until it is, not at a fixed moment.
        #expect(try display.waitFor { $0.isEmpty } == "")
        // Changed meanwhile: not cleared.
        _ = try s.run(["copy", "GitHub", "--clear-after", "2"], env: env)
        try display.select("other")
        Thread.sleep(forTimeInterval: 3.5)
        #expect(try display.read() == "other")
        // The helpers that ended were reaped: no zombie stays under the agent.
        #expect(zombieChildren(ofProcessWith: s.data) == 0)
        // The copy recorded Last used.
        #expect(try s.run(["show", "GitHub"]).stdout.contains("Last used:"))
        // The agent owns the copy: locking it ends the helper (X11) or clears it at once (Wayland, where wl-copy
        // serves it), so the value leaves the clipboard with the lock, long before its deadline.
        #expect(try s.run(["copy", "GitHub", "--clear-after", "600"], env: env).status == 0)
        #expect(try display.read() == "Gh-Secret-Pa55word!")
        #expect(try s.run(["lock"]).status == 0)
        let left = try display.waitFor { $0 != "Gh-Secret-Pa55word!" }
        #expect(left != "Gh-Secret-Pa55word!", "the copied password stayed on the \(display.kind.rawValue) clipboard after the lock")
        // A copy overtaken by another program's is left at lock.
        #expect(try s.run(["unlock", "--master"], [password]).status == 0)
        #expect(try s.run(["copy", "GitHub", "--clear-after", "600"], env: env).status == 0)
        try display.select("copied later")
        #expect(try s.run(["lock"]).status == 0)
        Thread.sleep(forTimeInterval: 1)
        #expect(try display.read() == "copied later")
        #expect(try s.run(["unlock", "--master"], [password]).status == 0)
        // Without a display it copies nothing and says so.
        let none = try s.run(["copy", "GitHub"], env: ["DISPLAY": "", "WAYLAND_DISPLAY": ""])
        #expect(none.status == 1 && none.stderr.contains("there is no display"))
    }

    /// At lock the agent clears PRIMARY when it holds a value the agent showed (a revealed password selected in
    /// the terminal or the page, blanks around it and all), and leaves any other selection.
    func lockClearsThePrimarySelectionOfAShownValue(_ display: TestDisplay) throws {
        let s = try unlockedSession(env: display.environment)
        let agent = try agentPID(s)
        try #require(agent > 0)
        /// Waits (a guard) until no helper the lock started runs: it is started before the lock answers.
        func helpersDone() -> Bool {
            for _ in 0..<200 {
                let running = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).contains { pid in
                    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")"),
                        Int(stat[close...].split(separator: " ")[2]) == Int(agent)
                    else { return false }
                    let command = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
                    return String(decoding: command, as: UTF8.self).contains("clipboard-clear\u{0}--primary")
                }
                if !running { return true }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return false
        }
        // Shown, but another text selected: the lock leaves it.
        #expect(try s.run(["show", "GitHub", "--reveal"]).stdout.contains("Gh-Secret-Pa55word!"))
        try display.select("some other words", primary: true)
        #expect(try display.read(primary: true) == "some other words")
        #expect(try s.run(["lock"]).status == 0)
        #expect(helpersDone(), "the lock's helper ended")
        #expect(try display.read(primary: true) == "some other words", "a selection Passbox did not show is kept")
        // Shown and selected, with the line's blanks: cleared at lock.
        #expect(try s.run(["unlock", "--master"], [password]).status == 0)
        #expect(try s.run(["show", "GitHub", "--reveal"]).stdout.contains("Gh-Secret-Pa55word!"))
        try display.select("  Gh-Secret-Pa55word!\n", primary: true)
        #expect(try display.read(primary: true) == "  Gh-Secret-Pa55word!\n")
        #expect(try s.run(["lock"]).status == 0)
        #expect(helpersDone(), "the lock's helper ended")
        let left = try display.read(primary: true)
        #expect(left == "", "the shown password left PRIMARY at lock: \(left.debugDescription)")
        // What was shown is forgotten at lock: the next lock, with nothing shown since, leaves it.
        #expect(try s.run(["unlock", "--master"], [password]).status == 0)
        try display.select("Gh-Secret-Pa55word!", primary: true)
        #expect(try s.run(["lock"]).status == 0)
        #expect(helpersDone())
        #expect(try display.read(primary: true) == "Gh-Secret-Pa55word!", "nothing shown since the last unlock, so no helper and no clearing")
    }
}
