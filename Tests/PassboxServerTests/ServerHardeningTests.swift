import Foundation
import PassboxCore
import PassboxCrypto
import PassboxProtocol
import PassboxServer
import PassboxTestKit
import PassboxTestSupport
import Testing

/// The server keeps its disk and its users (issue 28, part 4): sign-ups are limited per address (an IPv6 /64)
/// and overall, keysets are bounded, a stranger's failed sign-ins lock out only the stranger's address, a
/// session unused for 30 days ends, metrics are the operator's, and a web page cannot make its visitors'
/// browsers call the API. Addresses other than the loopback one come through a trusted proxy's
/// `X-Forwarded-For`, as behind nginx or HAProxy.
@Suite(.serialized) struct ServerHardeningTests {
    let helper = AccountServerTests()
    static let proxy = [AddressBlock("127.0.0.1/32")!]

    func client(_ server: PassboxServer, from address: String? = nil) -> TestClient {
        TestClient(base: server.origin, headers: address.map { ["X-Forwarded-For": "198.18.0.1, \($0)"] } ?? [:])
    }

    func account(_ name: String) -> TestAccount {
        TestAccount(email: "\(name)@example.org", password: "pw \(name)", secretKey: .generate(), salt: SecureRandom.bytes(count: 16))
    }

    @Test(arguments: Backend.cases) func signUpsAreLimitedPerAddressByItsSlash64AndOverall(_ backend: Backend) throws {
        let store = try TestStore(backend)
        let server = try helper.startServer(store, log: LogLines()) {
            $0.trustedProxies = Self.proxy
            $0.signupsPerAddressPerHour = 2
            $0.signupsPerHour = 3
        }
        defer { server.stop() }
        let first = client(server, from: "2001:db8:1:2::5")
        _ = try account("a1").signup(first)
        _ = try account("a2").signup(first)
        // Another address in the same /64 is the same client.
        let sameNet = client(server, from: "2001:db8:1:2:ffff::9")
        #expect(throws: ProtocolError(.rateLimited, ["minutes": "60"])) { _ = try account("a3").signup(sameNet) }
        // Another /64 may, until the overall limit.
        _ = try account("b1").signup(client(server, from: "2001:db8:1:3::1"))
        #expect(throws: ProtocolError.self) { _ = try account("c1").signup(client(server, from: "192.0.2.4")) }
        // An X-Forwarded-For from a peer that is not a trusted proxy is not believed.
        let direct = try helper.startServer(store, log: LogLines()) { $0.signupsPerAddressPerHour = 1 }
        defer { direct.stop() }
        _ = try account("d1").signup(client(direct, from: "203.0.113.1"))
        #expect(throws: ProtocolError.self) { _ = try account("d2").signup(client(direct, from: "203.0.113.2")) }
    }

    @Test(arguments: Backend.cases) func aKeysetIsBoundedToItsRealSize(_ backend: Backend) throws {
        let store = try TestStore(backend)
        let server = try helper.startServer(store, log: LogLines())
        defer { server.stop() }
        let request = SignupRequest(
            accountID: "ABCDEF", email: "k@example.org", salt: Data(count: 16), kdf: KDFParameters(memoryKiB: 64 * 1024, passes: 3, lanes: 1),
            signInPublicKey: Data(count: 32), keyset: Data(count: 1025))
        let (status, error) = try client(server).failure("POST", "/v1/signup", request)
        #expect(status == 400 && error.facts["reason"] == "keyset must be 1 to 1024 bytes")
    }

    /// Ten wrong sign-ins from a stranger's address lock that (account, address) pair only: the owner signs in
    /// from its own address, and the owner's signed-in session still proves itself (a recovery set-up), while
    /// the stranger stays refused.
    @Test(arguments: Backend.cases) func aStrangerWhoKnowsTheEmailCannotLockTheOwnerOut(_ backend: Backend) throws {
        let store = try TestStore(backend)
        let server = try helper.startServer(store, log: LogLines()) { $0.trustedProxies = Self.proxy }
        defer { server.stop() }
        let owner = client(server, from: "198.51.100.2"), stranger = client(server, from: "203.0.113.7")
        let gina = account("gina")
        _ = try gina.signup(owner)
        for _ in 0..<10 { #expect(try helper.failedSignin(stranger, email: gina.email).1.code == .signInFailed) }
        #expect(try helper.failedSignin(stranger, email: gina.email).1 == ProtocolError(.rateLimited, ["minutes": "15"]))
        #expect(throws: ProtocolError(.rateLimited, ["minutes": "15"])) { try gina.signin(stranger, origin: server.origin, device: "d1") }
        // Past ten failures on the account, a failure from yet another address is slowed (answered later, from a
        // timer) but answered alike.
        #expect(try helper.failedSignin(client(server, from: "192.0.2.200"), email: gina.email) == (401, ProtocolError(.signInFailed)))
        let signedIn = try gina.signin(owner, origin: server.origin, device: "laptop")
        var session = owner
        session.token = signedIn.token
        // A fresh proof of the signed-in session (setting up recovery) is not locked by the stranger's failures.
        let challenge = try owner.call("POST", "/v1/signin/challenge", ChallengeRequest(email: gina.email, deviceID: "laptop"), as: ChallengeReply.self)
        let transcript = SignInTranscript.bytes(
            label: SignInTranscript.recoverySetupLabel, origin: server.origin, email: gina.email, challenge: Array(challenge.challenge), deviceID: "laptop")
        let proof = FreshProof(challengeID: challenge.challengeID, signature: Data(try gina.keys().signInKey.signature(for: transcript)))
        let setup = try session.send("POST", "/v1/recovery", try ProtocolCoding.wireEncode(RecoverySetupRequest(proof: proof, publicKey: Data(count: 32), blob: Data([1]))))
        #expect(setup.status == 204, "\(String(decoding: setup.body, as: UTF8.self))")
        // Failed recovery proofs count apart from sign-ins: the stranger's sign-in lock does not stop the owner's
        // address from recovering, and the stranger's recovery failures lock only the stranger.
        let badRecovery = try stranger.call("POST", "/v1/signin/challenge", ChallengeRequest(email: gina.email, deviceID: "r"), as: ChallengeReply.self)
        let refused = try stranger.failure(
            "POST", "/v1/recovery/blob", RecoveryProof(challengeID: badRecovery.challengeID, email: gina.email, deviceID: "r", signature: Data(count: 64)))
        #expect(refused.1.code == .signInFailed, "recovery is its own scope: \(refused.1)")
    }

    /// A stolen session token alone can neither turn on two-factor sign-in (binding the account to the thief's
    /// app) nor sign the owner's other devices out: both need a fresh signature by the sign-in key.
    @Test(arguments: Backend.cases) func aStolenSessionTokenAloneCannotTurnOnTwoFactorOrSignDevicesOut(_ backend: Backend) throws {
        let store = try TestStore(backend)
        let server = try helper.startServer(store, log: LogLines())
        defer { server.stop() }
        let jo = account("jo")
        _ = try jo.signup(client(server))
        var laptop = client(server)
        laptop.token = try jo.signin(client(server), origin: server.origin, device: "laptop").token
        var thief = client(server)
        thief.token = try jo.signin(client(server), origin: server.origin, device: "phone").token
        func proof(_ label: String, device: String, signed: Bool) throws -> FreshProof {
            let challenge = try client(server).call("POST", "/v1/signin/challenge", ChallengeRequest(email: jo.email, deviceID: device), as: ChallengeReply.self)
            let transcript = SignInTranscript.bytes(label: label, origin: server.origin, email: jo.email, challenge: Array(challenge.challenge), deviceID: device)
            return FreshProof(challengeID: challenge.challengeID, signature: signed ? Data(try jo.keys().signInKey.signature(for: transcript)) : Data(count: 64))
        }
        let empty = try ProtocolCoding.wireEncode([String: String]())
        #expect(try thief.send("POST", "/v1/2fa/enrol", empty).status == 400)
        #expect(try thief.failure("POST", "/v1/2fa/enrol", try proof(SignInTranscript.twoFactorOnLabel, device: "phone", signed: false)).1.code == .signInFailed)
        #expect(try thief.send("POST", "/v1/devices/signout-others", empty).status == 400)
        #expect(try thief.failure("POST", "/v1/devices/signout-others", try proof(SignInTranscript.deviceSignOutLabel, device: "phone", signed: false)).1.code == .signInFailed)
        #expect(try thief.send("DELETE", "/v1/devices/laptop").status == 400)
        // A proof for another operation does not serve (its label differs).
        #expect(try thief.failure("POST", "/v1/2fa/enrol", try proof(SignInTranscript.deviceSignOutLabel, device: "phone", signed: true)).1.code == .signInFailed)
        #expect(try laptop.send("GET", "/v1/account").status == 200, "the owner's laptop is still signed in")
        #expect(try ProtocolCoding.wireDecode(TwoFactorStatus.self, from: thief.send("GET", "/v1/2fa").body).enabled == false)
        // With the sign-in key (the master password and Secret Key on a device), both work.
        _ = try laptop.call("POST", "/v1/2fa/enrol", try proof(SignInTranscript.twoFactorOnLabel, device: "laptop", signed: true), as: TwoFactorEnrolReply.self)
        let out = try laptop.call("POST", "/v1/devices/signout-others", try proof(SignInTranscript.deviceSignOutLabel, device: "laptop", signed: true), as: SignedOutReply.self)
        #expect(out.count == 1)
        #expect(try thief.send("GET", "/v1/account").status == 401)
    }

    /// A session unused for 30 days has ended; one used within them goes on.
    @Test(arguments: Backend.cases) func aSessionUnusedForThirtyDaysEnds(_ backend: Backend) throws {
        let store = try TestStore(backend)
        let server = try helper.startServer(store, log: LogLines())
        defer { server.stop() }
        let hana = account("hana")
        _ = try hana.signup(client(server))
        var session = client(server)
        session.token = try hana.signin(client(server), origin: server.origin, device: "d1").token
        #expect(try session.send("GET", "/v1/account").status == 200)
        let db = try store.connection()
        let old = Int64(Date().addingTimeInterval(-29 * 86_400).timeIntervalSince1970 * 1000)
        try db.run("UPDATE sessions SET last_seen = ?", [.integer(old)])
        #expect(try session.send("GET", "/v1/account").status == 200, "29 days: still signed in (and refreshed)")
        let older = Int64(Date().addingTimeInterval(-31 * 86_400).timeIntervalSince1970 * 1000)
        try db.run("UPDATE sessions SET last_seen = ?", [.integer(older)])
        let ended = try session.send("GET", "/v1/account")
        #expect(ended.status == 401)
        #expect(try db.rows("SELECT 1 FROM sessions", []).isEmpty, "the ended session is gone")
    }

    /// `/metrics` is off unless the operator turns it on: with a token (a wrong one is refused), or on a
    /// listener of its own on a loopback address.
    @Test func metricsAreTheOperatorsAlone() throws {
        let store = try TestStore(.sqlite)
        let off = try helper.startServer(store, log: LogLines())
        defer { off.stop() }
        #expect(try client(off).send("GET", "/metrics").status == 404)
        #expect(off.metricsPort == nil)

        let token = "a-long-operator-token-for-metrics"
        let withToken = try helper.startServer(store, log: LogLines()) {
            $0.metrics = .token(Hash.sha256(Array(token.utf8)))
            $0.metricsListen = ("127.0.0.1", 0)
        }
        defer { withToken.stop() }
        var wrong = client(withToken)
        wrong.token = "a-long-operator-token-for-metricz"
        #expect(try wrong.send("GET", "/metrics").status == 404)
        var right = client(withToken)
        right.token = token
        #expect(try client(withToken).send("GET", "/v1/health").status == 200)
        let answer = try right.send("GET", "/metrics")
        #expect(answer.status == 200 && String(decoding: answer.body, as: UTF8.self).contains("passbox_requests_total"))
        let port = try #require(withToken.metricsPort)
        let listener = try TestClient(base: "http://127.0.0.1:\(port)").send("GET", "/metrics")
        #expect(listener.status == 200 && String(decoding: listener.body, as: UTF8.self).contains(#"route="/v1/health""#))
        #expect(try TestClient(base: "http://127.0.0.1:\(port)").send("GET", "/v1/health").status == 404, "the metrics listener serves only /metrics")
    }

    /// What a web page could make its visitors' browsers send is refused: a body that is not JSON, and any
    /// request whose Origin is another site's. The server's own origin and no Origin at all are served.
    @Test func requestsAWebPageCouldForgeAreRefused() throws {
        let store = try TestStore(.sqlite)
        let server = try helper.startServer(store, log: LogLines())
        defer { server.stop() }
        let body = try ProtocolCoding.wireEncode(PreloginRequest(email: "ivy@example.org"))
        for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"] {
            let form = try TestClient(base: server.origin, headers: ["Content-Type": type]).send("POST", "/v1/prelogin", body)
            #expect(form.status == 400, "\(type)")
            #expect(try ProtocolCoding.wireDecode(ProtocolError.self, from: form.body).facts["reason"] == "the body must be sent as Content-Type: application/json")
        }
        let crossSite = try TestClient(base: server.origin, headers: ["Origin": "https://evil.example"]).send("POST", "/v1/prelogin", body)
        #expect(crossSite.status == 400)
        #expect(try TestClient(base: server.origin, headers: ["Origin": server.origin]).send("POST", "/v1/prelogin", body).status == 200)
        #expect(try TestClient(base: server.origin, headers: ["Content-Type": "application/json; charset=utf-8"]).send("POST", "/v1/prelogin", body).status == 200)
        #expect(try TestClient(base: server.origin).send("POST", "/v1/prelogin", body).status == 200)
    }

    /// A proxy that adds an X-Forwarded-For line of its own (HAProxy's `option forwardfor`) puts it after the
    /// client's: the client's own line cannot choose the address counted.
    @Test func aClientsOwnForwardedForLineDoesNotChooseItsAddress() throws {
        let store = try TestStore(.sqlite)
        let server = try helper.startServer(store, log: LogLines()) {
            $0.trustedProxies = Self.proxy
            $0.signupsPerAddressPerHour = 1
        }
        defer { server.stop() }
        func signup(_ id: String, claimed: String) throws -> String {
            let request = SignupRequest(
                accountID: id, email: "\(id.lowercased())@example.org", salt: Data(count: 16), kdf: KDFParameters(memoryKiB: 64 * 1024, passes: 3, lanes: 1),
                signInPublicKey: Data(count: 32), keyset: Data([1]))
            let body = String(decoding: try ProtocolCoding.wireEncode(request), as: UTF8.self)
            let answer = try Transcript.execute(
                "/usr/bin/curl",
                ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Content-Type: application/json", "-H", "X-Forwarded-For: \(claimed)", "-H", "X-Forwarded-For: 203.0.113.9",
                    "--data-binary", body, server.origin + "/v1/signup"], stdin: [], environment: [:])
            return answer.stdout
        }
        #expect(try signup("AAAAA1", claimed: "198.51.100.77") == "201")
        #expect(try signup("AAAAA2", claimed: "198.51.100.78") == "429", "the same client behind the proxy, whatever its own line says")
    }

    @Test func addressBlocksParseAndMatch() {
        #expect(AddressBlock("10.0.0.0/8")?.contains("10.200.3.4") == true)
        #expect(AddressBlock("10.0.0.0/8")?.contains("11.0.0.1") == false)
        #expect(AddressBlock("127.0.0.1")?.contains("::ffff:127.0.0.1") == true)
        #expect(AddressBlock("fd00::/8")?.contains("fd12::1") == true)
        #expect(AddressBlock("fd00::/8")?.contains("10.0.0.1") == false)
        #expect(AddressBlock("10.0.0.0/33") == nil && AddressBlock("nonsense") == nil && AddressBlock("::1/129") == nil)
    }
}
