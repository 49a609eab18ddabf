import Foundation
import PassboxTestKit
import Testing

/// Copying through the agent and clearing at lock, on X11 and on Wayland (CLIP-1).
extension AgentEndToEndTests {
    @Test(.enabled(if: TestDisplay.hasX11, "skipped: Xvfb and xclip are not installed (make test installs them)"))
    func clipboardCopiesAndClearsUnderX11() throws {
        let display = try TestDisplay(.x11, number: 60 + Int(getpid() % 30))
        try clipboardCopiesAndClears(display)
        try aPasteAskedForAsTheLockEndsTheHelperIsAnswered(display)
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

    /// The children of `agent` running with `marker` in their command line (its arguments joined by NUL).
    func helpers(of agent: pid_t, running marker: String) -> [pid_t] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { name in
            guard let pid = pid_t(name), let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")"),
                Int(stat[close...].split(separator: " ")[2]) == Int(agent)
            else { return nil }
            let command = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
            return String(decoding: command, as: UTF8.self).contains(marker) ? pid : nil
        }
    }

    /// Waits (at most ten seconds) until no child of `agent` runs with `marker` in its command line; true once
    /// none does.
    func noHelper(of agent: pid_t, running marker: String) -> Bool {
        for _ in 0..<200 {
            if helpers(of: agent, running: marker).isEmpty { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    /// The bytes waiting unread on the Unix sockets of process `pid` (`ss`'s Recv-Q).
    func unreadSocketBytes(of pid: pid_t) throws -> Int {
        let sockets = try Transcript.execute("/bin/ss", ["-x", "-n", "-p", "-H"], stdin: [], environment: [:]).stdout
        return sockets.split(separator: "\n").filter { $0.contains("pid=\(pid),") }.reduce(0) { total, line in
            total + (Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(2).first ?? "") ?? 0)
        }
    }

    /// A program asking for the clipboard just as the lock ends Passbox's X11 helper is refused, neither given
    /// the password after the lock nor left waiting without end (xclip has no timeout of its own, and hung until
    /// killed): the helper, stopped while the request reaches it and the lock's SIGTERM waits, refuses it as it
    /// gives the clipboard up.
    func aPasteAskedForAsTheLockEndsTheHelperIsAnswered(_ display: TestDisplay) throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/bin/ss"), "ss (iproute2) finds the request waiting at the helper: make test installs it")
        let s = try unlockedSession()
        let agent = try agentPID(s)
        try #require(agent > 0)
        #expect(try s.run(["copy", "GitHub", "--clear-after", "600"], env: display.environment).status == 0)
        let helper = try #require(helpers(of: agent, running: "clipboard-serve\u{0}--after\u{0}600").first)
        kill(helper, SIGSTOP)
        defer { kill(helper, SIGCONT) }
        let paste = display.startRead(seconds: 20)
        // The request has reached the helper once its SelectionRequest waits unread on the helper's connection.
        var unread = try unreadSocketBytes(of: helper)
        for _ in 0..<200 where unread == 0 {
            Thread.sleep(forTimeInterval: 0.05)
            unread = try unreadSocketBytes(of: helper)
        }
        #expect(unread > 0, "the paste's request never reached the stopped helper")
        #expect(try s.run(["lock"]).status == 0)
        kill(helper, SIGCONT)
        let pasted = try #require(paste())
        #expect(pasted.status != 124, "the paste asked for as the lock came waited for an answer that never came")
        #expect(pasted.status != 0 && pasted.stdout.isEmpty, "the paste asked for as the lock came was given \(pasted.stdout.debugDescription)")
        #expect(noHelper(of: agent, running: "clipboard-serve"), "the helper ended with the lock")
        #expect(try display.read() == "", "the lock emptied the clipboard")
    }

    func clipboardCopiesAndClears(_ display: TestDisplay) throws {
        let env = display.environment
        let s = try unlockedSession()
        let agent = try agentPID(s)
        try #require(agent > 0)
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
        // The helper waiting for the deadline ended with the lock (and the one that cleared, once done), and both
        // were reaped.
        #expect(noHelper(of: agent, running: "clipboard-clear\u{0}--after\u{0}600"), "the clearer waiting ten minutes outlived the lock")
        #expect(noHelper(of: agent, running: "clipboard-clear\u{0}--after\u{0}0"))
        var zombies = zombieChildren(ofProcessWith: s.data)
        for _ in 0..<100 where zombies != 0 {
            Thread.sleep(forTimeInterval: 0.1)
            zombies = zombieChildren(ofProcessWith: s.data)
        }
        #expect(zombies == 0)
        // A copy overtaken by another program's is left at lock: read once the lock's clearer has ended.
        #expect(try s.run(["unlock", "--master"], [password]).status == 0)
        #expect(try s.run(["copy", "GitHub", "--clear-after", "600"], env: env).status == 0)
        try display.select("copied later")
        #expect(try s.run(["lock"]).status == 0)
        #expect(noHelper(of: agent, running: "clipboard-clear\u{0}--after\u{0}0"))
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
        func helpersDone() -> Bool { noHelper(of: agent, running: "clipboard-clear\u{0}--primary") }
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
