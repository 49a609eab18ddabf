import Foundation
import PassboxAgent
import PassboxTestSupport
import Testing

@Suite struct AgentProtocolTests {
    /// A server on a temporary socket, answering every request with its op echoed back.
    func startServer(expectedUID: UInt32 = getuid()) throws -> (TemporaryDirectory, AgentServer) {
        let dir = try TemporaryDirectory("passbox-agent")
        let server = AgentServer(socketPath: dir.path + "/s/agent.sock", expectedUID: expectedUID) { request in
            ["type": "result", "exit": 0, "echo": request.message["op"] as? String ?? ""]
        }
        try server.bind()
        Thread.detachNewThread { server.serve() }
        return (dir, server)
    }

    @Test func requestsAreAnsweredAndTheSocketIsPrivate() throws {
        let (dir, server) = try startServer()
        let reply = try #require(try AgentClient.send(["op": "status"], socketPath: server.socketPath) { _, _ in nil })
        #expect(reply["echo"] as? String == "status")
        let socketMode = try FileManager.default.attributesOfItem(atPath: server.socketPath)[.posixPermissions] as? Int
        let dirMode = try FileManager.default.attributesOfItem(atPath: dir.path + "/s")[.posixPermissions] as? Int
        #expect(socketMode == 0o600 && dirMode == 0o700)
    }

    @Test func anotherUserIsRefused() throws {
        // The test cannot be another user, so the server expects one: our own uid is then the stranger.
        let (dir, server) = try startServer(expectedUID: getuid() + 4242)
        defer { withExtendedLifetime(dir) {} }
        let reply = try #require(try AgentClient.send(["op": "status"], socketPath: server.socketPath) { _, _ in nil })
        #expect(reply["type"] as? String == "error")
        #expect(reply["message"] as? String == "the agent serves only its own user")
    }

    @Test func malformedAndOversizedMessagesGetAnErrorAndTheAgentKeepsServing() throws {
        let (dir, server) = try startServer()
        defer { withExtendedLifetime(dir) {} }
        for payload in [Array("not json".utf8), Array("[1,2]".utf8)] {
            let fd = try #require(UnixSocket.connect(to: server.socketPath))
            var frame = [UInt8(0), 0, 0, UInt8(payload.count)] + payload
            _ = frame.withUnsafeMutableBytes { write(fd, $0.baseAddress, $0.count) }
            let reply = try Framing.read(fd)
            #expect(reply["type"] as? String == "error")
            #expect((reply["message"] as? String ?? "").contains("malformed"))
            close(fd)
        }
        let fd = try #require(UnixSocket.connect(to: server.socketPath))
        var huge: [UInt8] = [0x7f, 0xff, 0xff, 0xff]
        _ = huge.withUnsafeMutableBytes { write(fd, $0.baseAddress, $0.count) }
        let reply = try Framing.read(fd)
        #expect((reply["message"] as? String ?? "").contains("too large"))
        close(fd)
        // A wrong protocol version is refused with what to do.
        let old = try #require(UnixSocket.connect(to: server.socketPath))
        let body = Array(#"{"v":99,"op":"status"}"#.utf8)
        var frame = [UInt8(0), 0, 0, UInt8(body.count)] + body
        _ = frame.withUnsafeMutableBytes { write(old, $0.baseAddress, $0.count) }
        #expect((try Framing.read(old)["message"] as? String ?? "").contains("protocol version 1"))
        close(old)
        // Still serving.
        #expect(try AgentClient.send(["op": "status"], socketPath: server.socketPath) { _, _ in nil }?["echo"] as? String == "status")
    }

    @Test func aSecondAgentOnTheSameSocketIsRefused() throws {
        let (dir, server) = try startServer()
        defer { withExtendedLifetime(dir) {} }
        let second = AgentServer(socketPath: server.socketPath) { _ in [:] }
        #expect(throws: AgentServer.StartError.self) { try second.bind() }
    }
}

@Suite struct QuickUnlockPolicyTests {
    let typed = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func notOfferedBeforeThePasswordWasTyped() {
        #expect(QuickUnlockPolicy().verdict(passwordTypedAt: nil, bootIDAtTyping: nil, currentBootID: "a", now: typed) == .passwordNotTypedSinceStart)
    }

    @Test func notOfferedAfterAReboot() {
        #expect(QuickUnlockPolicy().verdict(passwordTypedAt: typed, bootIDAtTyping: "a", currentBootID: "b", now: typed + 60) == .rebooted)
    }

    @Test(arguments: [(QuickUnlockPolicy.Reminder.days14, 14), (.days30, 30)])
    func reminderBoundaries(_ reminder: QuickUnlockPolicy.Reminder, _ days: Int) {
        let policy = QuickUnlockPolicy(reminder: reminder)
        let limit = typed + Double(days) * 86_400
        #expect(policy.verdict(passwordTypedAt: typed, bootIDAtTyping: "a", currentBootID: "a", now: limit - 1) == .allowed)
        #expect(policy.verdict(passwordTypedAt: typed, bootIDAtTyping: "a", currentBootID: "a", now: limit) == .reminderDue(days: days))
    }

    @Test func neverRemindsWhenTurnedOff() {
        #expect(QuickUnlockPolicy(reminder: .never).verdict(passwordTypedAt: typed, bootIDAtTyping: "a", currentBootID: "a", now: typed + 1e9) == .allowed)
    }

    @Test func reasonsAreWordedInEnglishAndGerman() {
        #expect(QuickUnlockPolicy.reason(.allowed, .english) == nil)
        #expect(QuickUnlockPolicy.reason(.rebooted, .english) == "the machine restarted since the master password was typed")
        #expect(QuickUnlockPolicy.reason(.reminderDue(days: 14), .german) == "die Eingabe des Master-Passworts liegt 14 Tage zurück (Erinnerungseinstellung)")
        #expect(QuickUnlockPolicy.reason(.passwordNotTypedSinceStart, .german) == "das Master-Passwort wurde seit dem Start des Agenten nicht eingegeben")
    }

    @Test func idleDeadlineMovesWithActivityAndIsDueAtTheInterval() {
        var idle = IdleDeadline(interval: 300, now: typed)
        #expect(!idle.isDue(now: typed + 299.9))
        #expect(idle.isDue(now: typed + 300))
        #expect(idle.remaining(now: typed + 100) == 200)
        idle.touch(now: typed + 250)
        #expect(!idle.isDue(now: typed + 300))
        #expect(idle.isDue(now: typed + 550))
        #expect(idle.remaining(now: typed + 600) == 0)
        // "Immediately": due at once.
        #expect(IdleDeadline(interval: AutoLock.immediately.seconds, now: typed).isDue(now: typed))
    }

    @Test func bootIDIsReadable() {
        #expect(QuickUnlockPolicy.currentBootID().count == 36)
    }

    @Test func autoLockChoices() {
        #expect(AutoLock.allCases.map(\.rawValue) == [0, 1, 5, 15, 30, 60])
        #expect(AutoLock.default.seconds == 300)
    }
}
