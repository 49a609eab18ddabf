import Foundation
import PassboxAgent
import PassboxCore
import PassboxProtocol
import PassboxTestKit
import Testing
import PassboxWording

@Suite struct AgentProtocolTests {
    /// A server on a temporary socket, answering every request with a count naming its operation's length.
    func startServer(expectedUID: UInt32 = getuid()) throws -> (TemporaryDirectory, AgentServer) {
        let dir = try TemporaryDirectory("passbox-agent")
        let server = AgentServer(socketPath: dir.path + "/s/agent.sock", expectedUID: expectedUID) { request in
            .failure(ProtocolError(.badRequest, ["reason": request.operation.rawValue]))
        }
        try server.bind()
        Thread.detachNewThread { server.serve() }
        return (dir, server)
    }

    /// Sends raw bytes as one frame (or the given header) and reads the reply.
    func exchange(_ server: AgentServer, frame: [UInt8]) throws -> Reply {
        let fd = try #require(UnixSocket.connect(to: server.socketPath))
        defer { close(fd) }
        var bytes = frame
        _ = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress, $0.count) }
        return try AgentClient.decodeReply(try Framing.readFrame(fd))
    }

    func framed(_ body: [UInt8]) -> [UInt8] {
        [UInt8(body.count >> 24 & 0xff), UInt8(body.count >> 16 & 0xff), UInt8(body.count >> 8 & 0xff), UInt8(body.count & 0xff)] + body
    }

    @Test func requestsAreAnsweredAndTheSocketIsPrivate() throws {
        let (dir, server) = try startServer()
        let reply = try #require(try AgentClient.send(.status, socketPath: server.socketPath))
        #expect(reply == .failure(ProtocolError(.badRequest, ["reason": "status"])))
        let socketMode = try FileManager.default.attributesOfItem(atPath: server.socketPath)[.posixPermissions] as? Int
        let dirMode = try FileManager.default.attributesOfItem(atPath: dir.path + "/s")[.posixPermissions] as? Int
        #expect(socketMode == 0o600 && dirMode == 0o700)
    }

    @Test func anotherUserIsRefused() throws {
        // The test cannot be another user, so the server expects one: our own uid is then the stranger.
        let (dir, server) = try startServer(expectedUID: getuid() + 4242)
        defer { withExtendedLifetime(dir) {} }
        let reply = try #require(try AgentClient.send(.status, socketPath: server.socketPath))
        #expect(reply == .failure(ProtocolError(.badRequest, ["reason": "the agent serves only its own user"])))
    }

    @Test func malformedAndOversizedMessagesGetATypedErrorAndTheAgentKeepsServing() throws {
        let (dir, server) = try startServer()
        defer { withExtendedLifetime(dir) {} }
        let v = ProtocolVersion.current
        for payload in ["not json", "[1,2]", #"{"version":\#(v)}"#, #"{"version":\#(v),"request":{"op":"show"}}"#, #"{"version":\#(v),"request":{"op":"teleport"}}"#] {
            let reply = try exchange(server, frame: framed(Array(payload.utf8)))
            guard case .failure(let e) = reply else {
                Issue.record("\(payload) was answered with \(reply.kind)")
                continue
            }
            // An operation the agent does not know is `unsupported` (naming it), any other malformed frame a bad request.
            #expect(e.code == (payload.contains("teleport") ? .unsupported : .badRequest), "\(payload)")
        }
        let huge = try exchange(server, frame: [0x7f, 0xff, 0xff, 0xff])
        #expect(huge.kind == .failure)
        // A wrong protocol version is refused with both versions named.
        let old = try exchange(server, frame: framed(Array(#"{"version":1,"request":{"op":"status"}}"#.utf8)))
        #expect(old == .failure(ProtocolError(.versionMismatch, ["client": "1", "agent": String(ProtocolVersion.current)])))
        // Still serving.
        #expect(try AgentClient.send(.trashEmpty, socketPath: server.socketPath) == .failure(ProtocolError(.badRequest, ["reason": "trash-empty"])))
    }

    @Test func everyRequestSurvivesTheWire() throws {
        let requests: [Request] = [
            .status, .unlock(UnlockRequest(password: SecretText("pw"))), .list(ListRequest(category: "login", offset: 5, limit: 9)),
            .add(AddRequest(category: "login", changes: ItemChanges(title: "T", secretFields: [FieldAssignment(label: "password", value: "x")]))),
            .resolve(ResolveRequest(references: ["passbox://local/a/b"], markUsed: true)), .trashEmpty, .settings,
        ]
        for request in requests {
            let body = try ProtocolCoding.wireEncodeRequest(RequestFrame(request))
            let parts = try ProtocolCoding.splitRequest(body)
            let back = try ProtocolCoding.wireDecodeRequest(RequestFrame.self, json: parts.json, secrets: parts.secrets)
            #expect(try ProtocolCoding.wireEncodeRequest(back) == body)
        }
    }

    /// A password travels after the request's JSON, never inside it: the JSON names it by number, plain JSON
    /// encoding of a request with a password fails, and a secret part cut short or naming a missing secret is
    /// refused as a bad request.
    @Test func passwordsTravelOutsideTheJSON() throws {
        let password = "Tr0ub4dor&3-horse-staple"
        let body = try ProtocolCoding.wireEncodeRequest(RequestFrame(.changePassword(ChangePasswordRequest(current: SecretText(password), new: SecretText("another password")))))
        let json = body.prefix { $0 != 0 }
        #expect(String(decoding: json, as: UTF8.self).contains(#""current":{"secret":0}"#))
        #expect(!String(decoding: json, as: UTF8.self).contains(password))
        #expect(body.count == json.count + 1 + 4 + password.utf8.count + 4 + "another password".utf8.count)
        #expect(throws: EncodingError.self) { try ProtocolCoding.wireEncode(RequestFrame(.unlock(UnlockRequest(password: SecretText(password))))) }
        guard case .success(let request) = Framing.decodeRequest(body), let decoded = request.body(Operations.changePassword) else { Issue.record("not decoded"); return }
        #expect(decoded.current == SecretText(password) && decoded.new == SecretText("another password"))
        #expect(!(decoded.current == SecretText("another password")))
        // Cut anywhere inside the secret part, or naming a secret the frame lacks: a bad request, not a crash.
        for cut in (json.count + 1)..<body.count {
            guard case .failure(let error) = Framing.decodeRequest(Array(body.prefix(cut))) else { Issue.record("cut at \(cut) decoded"); continue }
            #expect(error.code == .badRequest)
        }
        let missing = Array(String(decoding: json, as: UTF8.self).replacingOccurrences(of: #"{"secret":1}"#, with: #"{"secret":7}"#).utf8) + body.dropFirst(json.count)
        #expect((try? Framing.decodeRequest(missing).get()) == nil)
    }

    @Test func operationNamesAreDistinct() {
        #expect(Set(OperationName.allCases.map(\.rawValue)).count == OperationName.allCases.count)
    }

    @Test func aSecondAgentOnTheSameSocketIsRefused() throws {
        let (dir, server) = try startServer()
        defer { withExtendedLifetime(dir) {} }
        let second = AgentServer(socketPath: server.socketPath) { _ in .done }
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

    @Test func reasonsAreKeysWordedInEnglishAndGerman() throws {
        #expect(QuickUnlockPolicy.reasonKey(.allowed) == nil)
        let rebooted = try #require(QuickUnlockPolicy.reasonKey(.rebooted))
        #expect(Localization.tr(rebooted.key, .english) == "the machine restarted since the master password was typed")
        let reminder = try #require(QuickUnlockPolicy.reasonKey(.reminderDue(days: 14)))
        #expect(Localization.tr(reminder.key, .german, ["days": String(reminder.days ?? 0)]) == "die Eingabe des Master-Passworts liegt 14 Tage zurück (Erinnerungseinstellung)")
        let notTyped = try #require(QuickUnlockPolicy.reasonKey(.passwordNotTypedSinceStart))
        #expect(Localization.tr(notTyped.key, .german) == "das Master-Passwort wurde seit dem Start des Agenten nicht eingegeben")
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
