import Foundation
import PassboxTestKit
import Testing

/// A client holding a prompt open (on a pseudo-terminal, as a person would) blocks no kind of locking: the
/// CLI reads secrets before it sends anything, so the agent never waits for a person. `lock`, the idle
/// deadline and SIGTERM each lock while the prompt stays open (the script answers the prompt only after
/// the lock, so a lock that waited for the prompt would never come: the script's 30-second limit then shows
/// as an unlocked status; how long it took is printed, never asserted), and the held command then fails with
/// exit 3 and saves nothing.
@Suite(.serialized) struct HeldPromptTests {
    let password = "correct horse battery"

    struct Outcome: Decodable {
        let prompted: Bool
        let seconds: Double
        let statusExit: Int
        let heldExit: Int
        let heldOutput: String
        let lockExit: Int?
        let agentGone: Bool?
    }

    func hold(_ scenario: String, autoLock: String = "600") throws -> (Outcome, AgentEndToEndTests.Session) {
        let s = try AgentEndToEndTests.Session()
        #expect(try s.run(["init", "--insecure-test-kdf"], [password]).status == 0)
        #expect(try s.run(["unlock", "--test-auto-lock-seconds", autoLock], [password]).status == 0)
        let script = try #require(Resources.script("held_prompt"))
        let r = try Transcript.execute("/usr/bin/python3", [script.path, s.bin, s.data, scenario], stdin: [], environment: ["XDG_RUNTIME_DIR": ""])
        #expect(r.status == 0, "\(r.stderr)")
        let outcome = try JSONDecoder().decode(Outcome.self, from: Data(r.stdout.utf8))
        #expect(outcome.prompted)
        #expect(outcome.statusExit == 3, "the agent still answered unlocked")
        #expect(outcome.heldExit == 3, "\(outcome.heldOutput)")
        #expect(!outcome.heldOutput.contains("Added"))
        return (outcome, s)
    }

    func nothingWasSaved(_ s: AgentEndToEndTests.Session) throws {
        _ = try s.run(["lock", "--stop"])
        Thread.sleep(forTimeInterval: 0.2)
        let list = try s.run(["list"], [password])
        #expect(list.status == 0 && !list.stdout.contains("Held"), "\(list.stdout)")
    }

    @Test func lockWhileAPromptIsOpen() throws {
        let (o, s) = try hold("lock")
        #expect(o.lockExit == 0)
        print("HeldPromptTests: lock with a prompt open took \(o.seconds) s")
        try nothingWasSaved(s)
    }

    @Test func idleDeadlineWhileAPromptIsOpen() throws {
        let (o, s) = try hold("idle", autoLock: "1")
        print("HeldPromptTests: the idle deadline with a prompt open locked after \(o.seconds) s")
        try nothingWasSaved(s)
    }

    @Test func sigtermWhileAPromptIsOpen() throws {
        let (o, s) = try hold("sigterm")
        #expect(o.agentGone == true)
        print("HeldPromptTests: the agent exited \(o.seconds) s after SIGTERM with a prompt open")
        try nothingWasSaved(s)
    }

    /// The notes prompt on a terminal ends too when nothing comes (here after 2 seconds instead of 60),
    /// saving nothing.
    @Test func aHeldNotesPromptEnds() throws {
        let s = try AgentEndToEndTests.Session()
        #expect(try s.run(["init", "--insecure-test-kdf"], [password]).status == 0)
        #expect(try s.run(["unlock"], [password]).status == 0)
        let code = """
            import os, pty, sys, time, select
            pid, fd = pty.fork()
            if pid == 0:
                os.environ["PASSBOX_TEST_PROMPT_SECONDS"] = "2"
                os.environ["XDG_RUNTIME_DIR"] = ""
                os.execv(sys.argv[1], [sys.argv[1], "--data", sys.argv[2], "add", "note", "--title", "Held", "--notes-stdin"])
            out = b""
            start = time.time()
            while time.time() - start < 30:
                r, _, _ = select.select([fd], [], [], 0.5)
                if r:
                    try:
                        chunk = os.read(fd, 4096)
                    except OSError:
                        break
                    if not chunk:
                        break
                    out += chunk
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    break
            else:
                os.kill(pid, 9)
            _, status = os.waitpid(pid, 0) if not done else (done, status)
            print(os.waitstatus_to_exitcode(status), round(time.time() - start, 1))
            print(out.decode(errors="replace"))
            """
        let r = try Transcript.execute("/usr/bin/python3", ["-c", code, s.bin, s.data], stdin: [], environment: [:])
        let lines = r.stdout.split(separator: "\n", maxSplits: 1).map(String.init)
        let first = lines.first?.split(separator: " ") ?? []
        #expect(first.first == "1", "\(r.stdout) \(r.stderr)")
        #expect(Double(first.last ?? "") ?? 99 < 20)
        #expect(r.stdout.contains("no input within 2 seconds"))
        #expect(!(try s.run(["list"]).stdout.contains("Held")))
    }
}
