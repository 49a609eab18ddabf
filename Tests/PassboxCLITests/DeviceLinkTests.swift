import Foundation
import PassboxClient
import PassboxCrypto
import PassboxHTTP
import PassboxManifest
import PassboxProtocol
import PassboxService
import PassboxSQLite
import PassboxStore
import PassboxTestKit
import PassboxTestSupport
import Testing

/// Signing in on another device with a one-time code (issue 33, security.md §6c) against real `passbox
/// server` processes: the old device's steps in this process, the new device as `passbox link accept` (the
/// typed code, or the passbox-link: address); the same six digits on both sides; the new device signed in
/// with only the master password typed. Through a hostile relay: a substituted key on either side, a replayed
/// hello, a dropped answer, a changed seal, a decline. Nothing sealed leaves the old device unless its user
/// confirmed, and never to a key the code did not authenticate.
@Suite struct DeviceLinkTests {
    let password = SharingIntegrationTests.password
    /// The codes this suite provokes (AgentOperationTests checks that every code is provoked somewhere).
    static let errorCodes: Set<ErrorCode> = [.linkNotFound, .linkRefused, .linkCancelled, .linkInvalid]
    /// The agent's link operations this suite sends (AgentOperationTests checks that every operation is sent).
    static let operations: Set<OperationName> = [.linkOpen, .linkWait, .linkConfirm, .linkBegin, .linkAnswer, .linkFinish]

    func passbox(_ data: String, _ args: [String], _ stdin: [String] = []) throws -> Transcript.Result { try SharingIntegrationTests.passbox(data, args, stdin) }

    /// Runs `body` on another thread; `wait()` answers what it returned or threw.
    final class Background<T>: @unchecked Sendable {
        private var result: Result<T, Error>?
        private let done = DispatchSemaphore(value: 0)
        private let body: () throws -> T
        init(_ body: @escaping () throws -> T) {
            self.body = body
            Thread.detachNewThread { [self] in
                result = Result { try self.body() }
                done.signal()
            }
        }
        func wait() throws -> T {
            done.wait()
            return try result!.get()
        }
    }

    @Test func theCodeReadsForgivinglyAndTheAddressCarriesTheServer() throws {
        let secret = LinkSecret.generate()
        #expect(secret.code.count == 29 && secret.code.split(separator: "-").count == 6)
        #expect(try LinkSecret(code: secret.code.lowercased().replacingOccurrences(of: "-", with: " ")) == secret)
        #expect(try LinkSecret(code: secret.code.replacingOccurrences(of: "0", with: "O").replacingOccurrences(of: "1", with: "l")) == secret)
        #expect(throws: ProtocolError(.linkInvalid, ["problem": "format"])) { try LinkSecret(code: String(secret.code.dropLast())) }
        #expect(throws: ProtocolError(.linkInvalid, ["problem": "format"])) { try LinkSecret(code: secret.code + "0") }
        #expect(throws: ProtocolError(.linkInvalid, ["problem": "format"])) { try LinkSecret(code: "ß" + String(secret.code.dropFirst())) }
        let uri = secret.uri(server: "https://vault.example.org:8443")
        #expect(uri.hasPrefix("passbox-link:v1?server=https%3A%2F%2Fvault.example.org%3A8443&id=\(secret.id)&k="))
        let parsed = try LinkSecret.parse(uri: "Scan me: \(uri) (10 minutes)")
        #expect(parsed.server == "https://vault.example.org:8443" && parsed.secret == secret)
        let otherID = uri.replacingOccurrences(of: secret.id, with: LinkSecret.generate().id)
        #expect(throws: ProtocolError(.linkInvalid, ["problem": "checksum"])) { try LinkSecret.parse(uri: otherID) }
        // The id the server knows is not the secret, and another secret has another id.
        #expect(!secret.id.contains(secret.code) && secret.id != LinkSecret.generate().id && secret.id.utf8.count == 22)
    }

    @Test func theExchangeBindsBothKeysTheNameAndTheCredentials() throws {
        let secret = LinkSecret.generate()
        let newKey = try BoxKeyPair.generate(), oldKey = try BoxKeyPair.generate()
        let hello = try LinkExchange.hello(secret: secret, key: newKey, name: "Laptop", deviceID: "0123456789abcdef01234567")
        let seen = try LinkExchange.readHello(hello, secret: secret)
        #expect(seen.publicKey == newKey.publicKey && seen.name == "Laptop" && seen.deviceID == "0123456789abcdef01234567")
        let reply = try LinkExchange.reply(secret: secret, key: oldKey, hello: hello)
        #expect(try LinkExchange.readReply(reply, secret: secret, hello: hello) == oldKey.publicKey)
        let old = try LinkExchange.session(secret: secret, own: oldKey, peer: newKey.publicKey, hello: hello, reply: reply)
        let new = try LinkExchange.session(secret: secret, own: newKey, peer: oldKey.publicKey, hello: hello, reply: reply)
        #expect(old.code == new.code && old.code.range(of: #"^\d{3} \d{3}$"#, options: .regularExpression) != nil)
        #expect(old.key.revealBytes() == new.key.revealBytes())
        let credentials = LinkExchange.Credentials(server: "https://vault.example.org", email: "ann@example.org", secretKey: "P1-ABCDEF-GHJKM-NPQRS-TVWXY-Z0123-45678")
        let sealed = try LinkExchange.seal(credentials, key: old.key, hello: hello, reply: reply)
        #expect(try LinkExchange.open(sealed, key: new.key, hello: hello, reply: reply).secretKey == credentials.secretKey)

        // Every byte of the hello and the reply is bound; another secret (the server's guess) verifies nothing.
        let refusedNew = ProtocolError(.linkRefused, ["side": "new"]), refusedOld = ProtocolError(.linkRefused, ["side": "old"])
        for index in hello.indices {
            var changed = hello
            changed[index] ^= 0x01
            #expect(throws: refusedNew) { try LinkExchange.readHello(changed, secret: secret) }
        }
        for index in reply.indices {
            var changed = reply
            changed[index] ^= 0x01
            #expect(throws: refusedOld) { try LinkExchange.readReply(changed, secret: secret, hello: hello) }
        }
        let guess = LinkSecret.generate()
        #expect(throws: refusedNew) { try LinkExchange.readHello(try LinkExchange.hello(secret: guess, key: try BoxKeyPair.generate(), name: "Laptop", deviceID: "feedfacefeedfacefeedface"), secret: secret) }
        #expect(throws: refusedOld) { try LinkExchange.readReply(try LinkExchange.reply(secret: guess, key: try BoxKeyPair.generate(), hello: hello), secret: secret, hello: hello) }
        // A seal for another transcript (a replayed one) does not open.
        let other = try LinkExchange.hello(secret: secret, key: try BoxKeyPair.generate(), name: "Laptop", deviceID: "feedfacefeedfacefeedface")
        #expect(throws: refusedOld) { try LinkExchange.open(sealed, key: new.key, hello: other, reply: reply) }
    }

    /// The new device as `passbox link accept`: by the typed code with --server, or by the address.
    @Test(arguments: Backend.cases.map { ($0, $0 == .postgres) }) func aNewDeviceSignsInWithTheCodeOfAnother(_ backend: Backend, byAddress: Bool) throws {
        let dir = try TemporaryDirectory("passbox-link")
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir, extra: try backend.serverArguments(directory: dir.path + "/server/server"))
        let ann = try SharingIntegrationTests.signUp("ann", server: server.origin, in: dir)
        let laptop = dir.path + "/laptop"
        let offer = try LinkOperations.open(dataDirectory: ann)
        let args = byAddress ? ["link", offer.uri] : ["link", "accept", "--server", server.origin, "--name", "Laptop"]
        let stdin = byAddress ? ["yes", password] : [offer.code.lowercased(), password]
        let started = Date()
        let accepting = Background { try SharingIntegrationTests.passbox(laptop, args, stdin) }
        let asking = try LinkOperations.awaitDevice(offer)
        #expect(asking.name == (byAddress ? ProcessInfo.processInfo.hostName : "Laptop") && asking.address == "127.0.0.1")
        try LinkOperations.confirm(offer, asking, signingKey: try LinkOperations.signingKey(password: SecretText(password), dataDirectory: ann), dataDirectory: ann)
        let accepted = try accepting.wait()
        print("device link (\(backend), \(byAddress ? "address" : "typed code")): signed in on the new device \(Int(Date().timeIntervalSince(started) * 1000)) ms after the code was entered")
        #expect(accepted.status == 0, "\(accepted.stdout)\(accepted.stderr)")
        // The same six digits on both screens; signed in with only the master password typed.
        #expect(accepted.stdout.contains(asking.code) && accepted.stdout.contains("Signed in as ann@example.org"), "\(accepted.stdout)")
        let record = try #require(try AccountRecord.load(laptop))
        let annRecord = try #require(try AccountRecord.load(ann))
        #expect(record.email == annRecord.email && record.secretKey == annRecord.secretKey && record.deviceID != annRecord.deviceID)
        #expect(try passbox(laptop, ["account"]).stdout.contains("Laptop") || byAddress)
        // Each device's record, signed with the account's key: Ann's made the account, the laptop was let in by
        // Ann's device. A device the server lists on its own (a session row written into its database, even with
        // the laptop's record copied to it) has none that verifies.
        var devices = AccountOperations.checkedDevices(try AccountClient(server: server.origin).account(token: annRecord.token ?? "").devices, record: annRecord)
        #expect(devices.first { $0.deviceID == annRecord.deviceID }?.signedVia == "signup")
        let laptopDevice = devices.first { $0.deviceID == record.deviceID }
        #expect(laptopDevice?.signedVia == "link" && laptopDevice?.approvedBy == annRecord.deviceName, "\(devices)")
        if backend == .sqlite {
            let db = try Database(path: dir.path + "/server/server/server.sqlite")
            try db.run(
                "INSERT INTO sessions (token_hash, account_id, device_id, device_name, created, last_seen, address) VALUES (?, ?, 'ghost', 'Ghost', 1, 1, '10.0.0.1')",
                [.blob(Array(repeating: 7, count: 32)), .text(annRecord.accountID)])
            try db.run(
                "INSERT INTO device_attestations (account_id, device_id, attestation) SELECT account_id, 'ghost', attestation FROM device_attestations WHERE device_id = ?",
                [.text(record.deviceID)])
            devices = AccountOperations.checkedDevices(try AccountClient(server: server.origin).account(token: annRecord.token ?? "").devices, record: annRecord)
            #expect(devices.contains { $0.name == "Ghost" && $0.signedVia == nil })
            // A session of the server's own listed under the laptop's id: neither of the two is vouched for.
            try db.run(
                "INSERT INTO sessions (token_hash, account_id, device_id, device_name, created, last_seen, address) VALUES (?, ?, ?, 'Laptop', 1, 1, '10.0.0.2')",
                [.blob(Array(repeating: 9, count: 32)), .text(annRecord.accountID), .text(record.deviceID)])
            devices = AccountOperations.checkedDevices(try AccountClient(server: server.origin).account(token: annRecord.token ?? "").devices, record: annRecord)
            #expect(devices.filter { $0.deviceID == record.deviceID }.count == 2 && devices.filter { $0.deviceID == record.deviceID }.allSatisfy { $0.signedVia == nil })
            try db.run("DELETE FROM sessions WHERE token_hash = ?", [.blob(Array(repeating: 9, count: 32))])
            // Listed under another name than the record signs: not vouched for either.
            try db.run("UPDATE sessions SET device_name = 'Renamed' WHERE device_id = ?", [.text(record.deviceID)])
            devices = AccountOperations.checkedDevices(try AccountClient(server: server.origin).account(token: annRecord.token ?? "").devices, record: annRecord)
            #expect(devices.first { $0.deviceID == record.deviceID }?.signedVia == nil)
            try db.run("UPDATE sessions SET device_name = 'Laptop' WHERE device_id = ?", [.text(record.deviceID)])
            let shown = try passbox(ann, ["account"])
            #expect(shown.stdout.contains("WARNING: no record signed by any of your devices") && shown.stdout.contains("made the account"), "\(shown.stdout)")
            // A device signed in before device records existed signs its own at its next sync.
            try db.run("DELETE FROM device_attestations WHERE device_id = ?", [.text(annRecord.deviceID)])
            #expect(AccountOperations.checkedDevices(try AccountClient(server: server.origin).account(token: annRecord.token ?? "").devices, record: annRecord)
                .first { $0.deviceID == annRecord.deviceID }?.signedVia == nil)
            #expect(try passbox(ann, ["sync"], [password]).status == 0)
            #expect(AccountOperations.checkedDevices(try AccountClient(server: server.origin).account(token: annRecord.token ?? "").devices, record: annRecord)
                .first { $0.deviceID == annRecord.deviceID }?.signedVia == "password")
        }
        // Used once: the same code again finds nothing, and nothing can be taken twice.
        let again = try passbox(dir.path + "/again", ["link", "accept", "--server", server.origin], [offer.code])
        #expect(again.status != 0 && again.stderr.contains("the link is not open any more"), "\(again.stderr)")
        #expect(throws: ProtocolError(.linkNotFound)) { try AccountClient(server: server.origin).pollLink(id: offer.secret.id, side: "new") }
        #expect(throws: ProtocolError(.linkNotFound)) {
            try AccountClient(server: server.origin).sendLink("hello", id: offer.secret.id, message: try LinkExchange.hello(secret: offer.secret, key: try BoxKeyPair.generate(), name: "x", deviceID: "feedfacefeedfacefeedface"))
        }
    }

    /// LNK-6: a link older than 10 minutes (its expiry moved into the past in the server's database) takes
    /// no hello, shows nothing to the old device, and is swept when the next link starts.
    @Test func anExpiredLinkSendsNothing() throws {
        let dir = try TemporaryDirectory("passbox-link-expired")
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir)
        let ann = try SharingIntegrationTests.signUp("ann", server: server.origin, in: dir)
        let offer = try LinkOperations.open(dataDirectory: ann)
        let db = try Database(path: dir.path + "/server/server/server.sqlite")
        try db.run("UPDATE device_links SET expires = 1")
        let late = try passbox(dir.path + "/laptop", ["link", "accept", "--server", server.origin], [offer.code])
        #expect(late.status != 0 && late.stderr.contains("the link is not open any more"), "\(late.stderr)")
        #expect(throws: ProtocolError(.linkNotFound)) { try LinkOperations.awaitDevice(offer) }
        _ = try LinkOperations.open(dataDirectory: ann)
        #expect(try db.rows("SELECT count(*) FROM device_links WHERE expires = 1", []).first?[0].integer == 0)
    }

    /// LNK-5: `passbox link install` writes the x-scheme-handler/passbox-link entry that runs `passbox link URI`.
    @Test func theDesktopEntryOpensLinkAddresses() throws {
        let dir = try TemporaryDirectory("passbox-link-desktop")
        let made = try Transcript.execute(try Transcript.executablePath(), ["--data", dir.path + "/data", "link", "install"], stdin: [], environment: ["XDG_DATA_HOME": dir.path + "/share", "PASSBOX_LANG": "en"])
        #expect(made.status == 0 && made.stdout.contains("passbox-link: addresses now open"), "\(made.stderr)")
        let entry = try String(contentsOfFile: dir.path + "/share/applications/passbox-link.desktop", encoding: .utf8)
        #expect(entry.contains("MimeType=x-scheme-handler/passbox-link;") && entry.contains("Terminal=true"))
        #expect(entry.contains("Exec=\"\(try Transcript.executablePath())\" --data \"\(dir.path)/data\" link %u"), "\(entry)")
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/desktop-file-validate") {
            let valid = try Transcript.execute("/usr/bin/desktop-file-validate", [dir.path + "/share/applications/passbox-link.desktop"], stdin: [], environment: [:])
            #expect(valid.status == 0, "\(valid.stdout)\(valid.stderr)")
        }
    }

    /// The old device as `passbox link show`: its code read from its output as it runs, the new device answering
    /// in this process, the same six digits printed there, then "yes" and the master password typed.
    @Test func passboxLinkShowLetsADeviceInOnceItsUserSaysYes() throws {
        let dir = try TemporaryDirectory("passbox-link-show")
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir)
        let ann = try SharingIntegrationTests.signUp("ann", server: server.origin, in: dir)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Transcript.executablePath())
        process.arguments = ["--data", ann, "link", "show"]
        process.environment = ProcessInfo.processInfo.environment.merging(["PASSBOX_LANG": "en", "XDG_RUNTIME_DIR": ""]) { _, new in new }
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var printed = ""
        func readUntil(_ found: (String) -> Bool) {
            let deadline = Date().addingTimeInterval(30)
            while !found(printed), Date() < deadline {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                printed += String(decoding: chunk, as: UTF8.self)
            }
        }
        readUntil { $0.contains("passbox-link:v1?server=") }
        let code = try #require(printed.range(of: #"[0-9A-Z]{4}(-[0-9A-Z]{4}){5}"#, options: .regularExpression).map { String(printed[$0]) })
        #expect(printed.contains("passbox-link:v1?server="))
        let joining = try LinkOperations.Joining(server: server.origin, secret: try LinkSecret(code: code), name: "Laptop")
        let digits = try joining.awaitAnswer(until: Date().addingTimeInterval(30))
        readUntil { $0.contains(digits) }
        #expect(printed.contains("A device named \"Laptop\"") && printed.contains(digits), "\(printed)")
        input.fileHandleForWriting.write(Data("yes\n\(password)\n".utf8))
        let credentials = try joining.awaitCredentials(until: Date().addingTimeInterval(30))
        process.waitUntilExit()
        readUntil { _ in false }
        #expect(process.terminationStatus == 0 && printed.contains("Sent, sealed to \"Laptop\""), "\(printed)")
        let record = try #require(try AccountRecord.load(ann))
        #expect(credentials.email == "ann@example.org" && credentials.secretKey == record.secretKey)
        let signed = try DeviceAttestation(decoding: try #require(credentials.attestation))
        #expect(signed.via == "link" && signed.deviceID == joining.deviceID && signed.approverID == record.deviceID)
    }

    @Test func aDeclinedLinkSendsNothingAndTheNewDeviceIsTold() throws {
        let dir = try TemporaryDirectory("passbox-link-declined")
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir)
        let ann = try SharingIntegrationTests.signUp("ann", server: server.origin, in: dir)
        let offer = try LinkOperations.open(dataDirectory: ann)
        let (laptop, origin, code) = (dir.path + "/laptop", server.origin, offer.code)
        let accepting = Background { try SharingIntegrationTests.passbox(laptop, ["link", "accept", "--server", origin], [code, "unused"]) }
        _ = try LinkOperations.awaitDevice(offer)
        LinkOperations.decline(offer)
        let accepted = try accepting.wait()
        #expect(accepted.status != 0 && accepted.stderr.contains("the link was cancelled on the other device"), "\(accepted.stderr)")
        #expect(try AccountRecord.load(dir.path + "/laptop") == nil)
        // The old device waited for nobody: a code nobody typed ends when its wait does.
        let idle = try LinkOperations.open(dataDirectory: ann)
        #expect(throws: ProtocolError(.requestTimeout)) { try LinkOperations.awaitDevice(idle, until: Date().addingTimeInterval(0.5)) }
    }

    static func poll(_ body: [UInt8], side: String) -> Bool { (try? ProtocolCoding.wireDecode(LinkPollRequest.self, from: Data(body)))?.side == side }

    static func rewritten(_ body: [UInt8], _ change: (inout LinkPollReply) throws -> Void) -> [UInt8]? {
        guard var reply = try? ProtocolCoding.wireDecode(LinkPollReply.self, from: Data(body)) else { return nil }
        do { try change(&reply) } catch { return nil }
        guard let encoded = try? ProtocolCoding.wireEncode(reply) else { return nil }
        return Array(encoded)
    }

    /// The web UI's requests through two agents: the old one signed in, the new one with an empty data directory.
    @Test func twoAgentsLinkWhatTheWebUISends() throws {
        let dir = try TemporaryDirectory("passbox-link-agents")
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir)
        let old = try RealAgent(makeVault: false), new = try RealAgent(makeVault: false)
        _ = try old.send(.accountSignUp(AccountSignUpRequest(server: server.origin, email: "ann@example.org", password: SecretText(password)))).signedUp()
        #expect(try old.failure(Request(Operations.linkWait)).code == .linkNotFound)
        let offer = try old.send(Request(Operations.linkOpen)).answer(LinkOfferReply.self)
        #expect(offer.size > 0 && offer.modules.count == offer.size && offer.uri.hasPrefix("passbox-link:v1?server="))
        #expect(try old.failure(Request(Operations.linkBegin, LinkBeginRequest(server: server.origin, text: offer.code))).code == .alreadySignedIn)
        #expect(try new.failure(Request(Operations.linkBegin, LinkBeginRequest(text: offer.code))).code == .linkInvalid)
        #expect(try new.failure(Request(Operations.linkAnswer)).code == .linkNotFound)
        _ = try new.send(Request(Operations.linkBegin, LinkBeginRequest(server: server.origin, text: offer.code, name: "Laptop"))).answer(Done.self)
        var asking = LinkStatusReply()
        while asking.code == nil { asking = try old.send(Request(Operations.linkWait)).answer(LinkStatusReply.self) }
        #expect(asking.name == "Laptop" && asking.address == "127.0.0.1")
        var status = LinkStatusReply()
        while status.code == nil { status = try new.send(Request(Operations.linkAnswer)).answer(LinkStatusReply.self) }
        #expect(status.code == asking.code && !status.ready)
        _ = try old.send(Request(Operations.linkConfirm, LinkConfirmRequest(yes: true))).answer(Done.self)
        while !status.ready { status = try new.send(Request(Operations.linkAnswer)).answer(LinkStatusReply.self) }
        #expect(status.email == "ann@example.org")
        _ = try new.send(Request(Operations.linkFinish, LinkFinishRequest(password: SecretText(password)))).answer(Done.self)
        let now = try new.send(.status).status()
        #expect(now.unlocked && now.account?.email == "ann@example.org")

        // Declined: the new device is told, and nothing reaches it.
        let second = try old.send(Request(Operations.linkOpen)).answer(LinkOfferReply.self)
        let third = try RealAgent(makeVault: false)
        _ = try third.send(Request(Operations.linkBegin, LinkBeginRequest(text: "Open this: \(second.uri)", name: "Phone"))).answer(Done.self)
        asking = LinkStatusReply()
        while asking.code == nil { asking = try old.send(Request(Operations.linkWait)).answer(LinkStatusReply.self) }
        _ = try old.send(Request(Operations.linkConfirm, LinkConfirmRequest(yes: false))).answer(Done.self)
        #expect(try third.failure(Request(Operations.linkAnswer)).code == .linkCancelled)
        #expect(try third.failure(Request(Operations.linkFinish, LinkFinishRequest(password: SecretText(password)))).code == .linkNotFound)

        // An account with two-factor sign-in: the new device is asked for the code, and signs in with it.
        let setup = try old.send(.twoFactorEnrol(TwoFactorRequest(password: SecretText(password)))).twoFactorSetup()
        func totp() throws -> String {
            try Transcript.execute("/usr/bin/oathtool", ["--totp", "-b", setup.setupKey], stdin: [], environment: [:]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let recovery = try old.send(.twoFactorConfirm(TwoFactorRequest(code: SecretText(try totp())))).recoveryCodes().codes
        let fourth = try RealAgent(makeVault: false)
        let last = try old.send(Request(Operations.linkOpen)).answer(LinkOfferReply.self)
        _ = try fourth.send(Request(Operations.linkBegin, LinkBeginRequest(server: server.origin, text: last.code, name: "Tablet"))).answer(Done.self)
        asking = LinkStatusReply()
        while asking.code == nil { asking = try old.send(Request(Operations.linkWait)).answer(LinkStatusReply.self) }
        status = LinkStatusReply()
        while status.code == nil { status = try fourth.send(Request(Operations.linkAnswer)).answer(LinkStatusReply.self) }
        _ = try old.send(Request(Operations.linkConfirm, LinkConfirmRequest(yes: true))).answer(Done.self)
        while !status.ready { status = try fourth.send(Request(Operations.linkAnswer)).answer(LinkStatusReply.self) }
        #expect(try fourth.failure(Request(Operations.linkFinish, LinkFinishRequest(password: SecretText(password)))).code == .twoFactorRequired)
        // (A recovery code: the app's code of this 30-second step was just used to turn two-factor sign-in on.)
        _ = try fourth.send(Request(Operations.linkFinish, LinkFinishRequest(password: SecretText(password), code: SecretText(recovery[0])))).answer(Done.self)
        #expect(try fourth.send(.status).status().unlocked)
        let listed = try old.send(.accountView).account().devices
        #expect(listed.first { $0.name == "Tablet" }?.signedVia == "link", "\(listed)")
    }

    /// A relay that changes what passes: each change is refused by the side it reaches, and the old device
    /// seals nothing (its user is never even asked) unless the new device's key is the one the code vouches for.
    @Test func aHostileRelayCanNeitherSubstituteAKeyNorReplayNorReadTheSeal() throws {
        let dir = try TemporaryDirectory("passbox-link-hostile")
        let proxy = try MutatingProxy()
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir, extra: ["--origin", proxy.origin], port: try PostgresCluster.freePort())
        proxy.target = server.address
        let ann = try SharingIntegrationTests.signUp("ann", server: proxy.origin, in: dir)

        // 1. The server hands the old device a hello with a key of its own (it cannot know the code).
        var offer = try LinkOperations.open(dataDirectory: ann)
        let forgedHello = try LinkExchange.hello(secret: LinkSecret.generate(), key: try BoxKeyPair.generate(), name: "Laptop", deviceID: "feedfacefeedfacefeedface")
        proxy.armRewrite { path, request, body in
            path == "/v1/link/poll" && Self.poll(request, side: "old") ? Self.rewritten(body) { r in if r.hello != nil { r.hello = Data(forgedHello) } } : nil
        }
        var joining = try LinkOperations.Joining(server: proxy.origin, secret: offer.secret, name: "Laptop")
        #expect(throws: ProtocolError(.linkRefused, ["side": "new"])) { try LinkOperations.awaitDevice(offer) }
        #expect(throws: ProtocolError(.linkCancelled)) { try joining.awaitAnswer(until: Date().addingTimeInterval(10)) }

        // 2. The server hands the new device a reply with a key of its own.
        proxy.disarm()
        offer = try LinkOperations.open(dataDirectory: ann)
        let fakeOld = try BoxKeyPair.generate()
        proxy.armRewrite { path, request, body in
            guard path == "/v1/link/poll", Self.poll(request, side: "new") else { return nil }
            return Self.rewritten(body) { r in
                if r.reply != nil { r.reply = Data(try LinkExchange.reply(secret: LinkSecret.generate(), key: fakeOld, hello: [])) }
            }
        }
        joining = try LinkOperations.Joining(server: proxy.origin, secret: offer.secret, name: "Laptop")
        let asking = try LinkOperations.awaitDevice(offer)
        #expect(throws: ProtocolError(.linkRefused, ["side": "old"])) { try joining.awaitAnswer(until: Date().addingTimeInterval(10)) }
        joining.cancel()
        // The old device's user would now compare codes: the new device never showed one, so nothing is confirmed.
        #expect(throws: ProtocolError(.linkNotFound)) { try LinkOperations.confirm(offer, asking, signingKey: try LinkOperations.signingKey(password: SecretText(password), dataDirectory: ann), dataDirectory: ann) }

        // 3. The answer is dropped: the new device waits, then says the link is gone; nothing was sealed.
        proxy.disarm()
        offer = try LinkOperations.open(dataDirectory: ann)
        proxy.armRewrite { path, request, body in
            path == "/v1/link/poll" && Self.poll(request, side: "new") ? Self.rewritten(body) { r in r.reply = nil } : nil
        }
        joining = try LinkOperations.Joining(server: proxy.origin, secret: offer.secret, name: "Laptop")
        _ = try LinkOperations.awaitDevice(offer)
        #expect(throws: ProtocolError(.requestTimeout)) { try joining.awaitAnswer(until: Date().addingTimeInterval(1)) }

        // 4. A changed seal does not open, and a replayed hello finds the link taken.
        proxy.disarm()
        offer = try LinkOperations.open(dataDirectory: ann)
        joining = try LinkOperations.Joining(server: proxy.origin, secret: offer.secret, name: "Laptop")
        #expect(throws: ProtocolError(.linkNotFound)) {
            try AccountClient(server: proxy.origin).sendLink("hello", id: offer.secret.id, message: try LinkExchange.hello(secret: offer.secret, key: try BoxKeyPair.generate(), name: "Replay", deviceID: "feedfacefeedfacefeedface"))
        }
        let asked = try LinkOperations.awaitDevice(offer)
        #expect(asked.name == "Laptop")
        let code = try joining.awaitAnswer(until: Date().addingTimeInterval(10))
        #expect(code == asked.code)
        proxy.armRewrite { path, request, body in
            path == "/v1/link/poll" && Self.poll(request, side: "new") ? Self.rewritten(body) { r in if var s = r.sealed { s[s.count - 1] ^= 1; r.sealed = s } } : nil
        }
        try LinkOperations.confirm(offer, asked, signingKey: try LinkOperations.signingKey(password: SecretText(password), dataDirectory: ann), dataDirectory: ann)
        #expect(throws: ProtocolError(.linkRefused, ["side": "old"])) { try joining.awaitCredentials(until: Date().addingTimeInterval(10)) }
        proxy.disarm()
    }
}
