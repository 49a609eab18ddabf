import Foundation
import PassboxAgent
import PassboxCrypto
import PassboxProtocol
import PassboxStore
import PassboxTestKit
import Testing

/// `passbox browser-host` as the browser runs it: a process speaking the browsers' framing on its standard
/// input and output, relaying to a real agent. This test plays the extension with its own Ed25519 key:
/// pairing by the code (confirmed with `passbox browser pair`), the signed challenge, candidates without
/// secrets, a fill, the other-site warning, save and update, and the refusals: no handshake, an unpaired
/// key, a copied public key without its private key, an operation outside the extension's list, a removed
/// pairing, malformed and oversized messages.
@Suite struct BrowserHostTests {
    /// The operations and error codes these tests send and provoke (AgentOperationTests counts them as covered).
    static let operations: Set<OperationName> = [
        .browserPairBegin, .browserPairConfirm, .browserPairings, .browserRemove, .browserChallenge, .browserProve, .browserCandidates, .browserFill,
        .browserSearch, .browserOffer, .browserSave, .browserGenerate, .browserSession,
    ]
    static let errorCodes: Set<ErrorCode> = [.notPaired, .handshakeFailed, .pairingNotFound, .pairingCodeWrong, .pairingsWaiting, .agentUnavailable, .browsersFileDamaged]

    /// One host process of the agent's data directory (the client is shared with `passbox bench browser`).
    typealias Host = BrowserHostClient

    /// The extension's side: a key pair, the pairing code it computes, and its answer to a challenge.
    struct Extension {
        let key: SigningKey
        init() throws { key = try SigningKey(seed: SecretBytes(copying: SecureRandom.bytes(count: 32))) }
        var publicKey: String { Base64URL.encode(key.publicKey) }

        func code(agentNonce: String) throws -> String {
            let nonce = try #require(Base64URL.decode(agentNonce))
            return BrowserPairingCode.code(fromDigest: Hash.sha256(BrowserPairingCode.pairingMessage(publicKey: key.publicKey, agentNonce: nonce)))
        }

        /// The handshake; the reply's kind and body.
        func prove(on host: Host, as publicKey: String? = nil) throws -> (kind: String, body: [String: Any]) {
            let challenge = try host.call("browser-challenge")
            #expect(challenge.kind == "browserChallenge")
            let text = try #require(challenge.body["challenge"] as? String)
            let signature = key.signature(for: BrowserPairingCode.sessionMessage(challenge: try #require(Base64URL.decode(text))))
            return try host.call("browser-prove", ["publicKey": publicKey ?? self.publicKey, "challenge": text, "signature": Base64URL.encode(signature)])
        }
    }

    @Test func pairingHandshakeFillSaveAndRefusals() throws {
        let agent = try RealAgent()
        try agent.unlock()
        let bank = try agent.add("login", ItemChanges(title: "Bank", username: "ada", websites: ["https://bank.example"], secretFields: [FieldAssignment(label: "password", value: "tulip-ocean-1")]))
        let host = try Host(agent: agent)
        let browser = try Extension()

        // Before the handshake only pairing and the handshake pass; an operation outside the list never does.
        #expect(try host.failureCode("browser-candidates", ["url": "https://bank.example/"]) == "notPaired")
        #expect(try host.failureCode("show", ["item": bank.id, "reveal": true]) == "badRequest")
        #expect(try host.failureCode("status") == "notPaired")
        let hello = try host.call("hello", ["version": ProtocolVersion.current, "operations": ["status"]])
        #expect((hello.body["operations"] as? [String])?.contains("show") == false)
        #expect(try browser.prove(on: host).body["code"] as? String == "notPaired")

        // Pairing: the code the extension computes is the one `passbox browser pair` shows and confirms.
        let begun = try host.call("browser-pair-begin", ["publicKey": browser.publicKey, "browser": "chromium", "name": "Chromium on test\u{7}"])
        #expect(begun.kind == "browserPairing")
        let code = try browser.code(agentNonce: try #require(begun.body["agentNonce"] as? String))
        let waiting = try agent.prove(on: host, browser)
        #expect(waiting.body["code"] as? String == "notPaired" && (waiting.body["facts"] as? [String: String])?["pending"] == "true")
        // The agent itself: an unknown pairing, and a wrong code (which ends the pairing: one try).
        let unknown = try agent.send(Request(Operations.browserPairConfirm, BrowserPairConfirmRequest(pairing: "nope", code: code)))
        #expect(unknown == .failure(ProtocolError(.pairingNotFound, ["pairing": "nope"])))
        let other = try Extension()
        let otherBegun = try host.call("browser-pair-begin", ["publicKey": other.publicKey, "browser": "firefox", "name": "other"])
        let otherPairing = try #require(otherBegun.body["pairing"] as? String)
        let otherCode = try other.code(agentNonce: try #require(otherBegun.body["agentNonce"] as? String))
        let wrong = otherCode == "000 000" ? "000 001" : "000 000"
        #expect(try agent.send(Request(Operations.browserPairConfirm, BrowserPairConfirmRequest(pairing: otherPairing, code: wrong))) == .failure(ProtocolError(.pairingCodeWrong)))
        #expect(try agent.send(Request(Operations.browserPairings)).answer(BrowserPairingsReply.self).pending.map(\.pairing).contains(otherPairing) == false)
        let listed = try agent.session.run(["browser", "list"])
        #expect(listed.stdout.contains("waiting (code \(code))"), "\(listed.stdout)")
        #expect(try agent.session.run(["browser", "pair", "--code", "000 000", "--wait", "0"]).status == 1)
        let paired = try agent.session.run(["browser", "pair"], ["y"])
        #expect(paired.status == 0 && paired.stdout.contains("Code: \(code)") && paired.stdout.contains("Paired chromium"), "\(paired.stdout)\(paired.stderr)")
        let file = try PairedBrowsers.load(agent.session.data)
        #expect(file.browsers.count == 1 && file.browsers[0].publicKey == browser.publicKey && file.browsers[0].name == "Chromium on test")
        let mode = try FileManager.default.attributesOfItem(atPath: agent.session.data + "/browsers.json")[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // A copied public key without the private key fails the signature; another key is not paired.
        let thief = try Extension()
        #expect(try thief.prove(on: host, as: browser.publicKey).body["facts"] as? [String: String] == ["reason": "signature"])
        #expect(try thief.prove(on: host).body["code"] as? String == "notPaired")
        // A challenge is single use.
        let challenge = try #require(try host.call("browser-challenge").body["challenge"] as? String)
        let signature = Base64URL.encode(browser.key.signature(for: BrowserPairingCode.sessionMessage(challenge: try #require(Base64URL.decode(challenge)))))
        #expect(try host.call("browser-prove", ["publicKey": browser.publicKey, "challenge": challenge, "signature": signature]).kind == "browserSession")
        let replay = try host.call("browser-prove", ["publicKey": browser.publicKey, "challenge": challenge, "signature": signature])
        #expect(replay.body["facts"] as? [String: String] == ["reason": "challenge"])
        // The session stays in the host: the extension never sees it.
        let proven = try browser.prove(on: host)
        #expect(proven.kind == "browserSession" && proven.body["session"] == nil && proven.body["pairing"] as? String == file.browsers[0].id)

        // Candidates carry no secret; the exact host and the registrable domain match, another site does not.
        let candidates = try host.call("browser-candidates", ["url": "https://login.bank.example/signin"])
        #expect(candidates.kind == "fill")
        let list = try #require(candidates.body["candidates"] as? [[String: Any]])
        #expect(list.count == 1 && list[0]["id"] as? String == bank.id && list[0]["match"] as? String == "same-domain")
        #expect(!String(decoding: try JSONSerialization.data(withJSONObject: candidates.body), as: UTF8.self).contains("tulip"))
        #expect((try host.call("browser-candidates", ["url": "https://bank.example.evil.example/"]).body["candidates"] as? [Any])?.isEmpty == true)
        #expect(try host.failureCode("browser-candidates", ["url": "chrome-extension://abc/popup.html"]) == "notAnAddress")

        let filled = try host.call("browser-fill", ["url": "https://bank.example/login", "item": bank.id])
        #expect(filled.kind == "browserFill" && filled.body["password"] as? String == "tulip-ocean-1" && filled.body["username"] as? String == "ada")
        #expect(try agent.send(.show(ShowRequest(item: bank.id, reveal: false))).item().lastFilled != nil)
        // Only an exact id: a frame cannot walk titles or id prefixes.
        #expect(try host.failureCode("browser-fill", ["url": "https://bank.example/", "item": "Bank"]) == "itemNotFound")
        #expect(try host.failureCode("browser-fill", ["url": "https://bank.example/", "item": String(bank.id.prefix(6))]) == "itemNotFound")
        let wrongSite = try host.call("browser-fill", ["url": "https://evil.example/", "item": bank.id])
        #expect(wrongSite.body["code"] as? String == "otherSite" && (wrongSite.body["facts"] as? [String: String])?["requested"] == "evil.example")
        #expect(try host.call("browser-fill", ["url": "https://evil.example/", "item": bank.id, "confirmOtherSite": true]).kind == "browserFill")

        // Save and update are offered first, then done when asked.
        let offerNew = try host.call("browser-offer", ["url": "https://shop.example/", "username": "bob", "password": ["secret": 0]], secrets: ["new-pass-42"])
        #expect(offerNew.body["action"] as? String == "save")
        let saved = try host.call("browser-save", ["url": "https://shop.example/account", "username": "bob", "password": ["secret": 0]], secrets: ["new-pass-42"])
        #expect(saved.kind == "saved" && saved.body["title"] as? String == "shop.example")
        // The site index kept since the first candidates knows the new login at once.
        let shop = try host.call("browser-candidates", ["url": "https://www.shop.example/"])
        #expect((shop.body["candidates"] as? [[String: Any]])?.map { $0["match"] as? String } == ["same-domain"])
        let offerSame = try host.call("browser-offer", ["url": "https://shop.example/", "username": "bob", "password": ["secret": 0]], secrets: ["new-pass-42"])
        #expect(offerSame.body["action"] as? String == "none")
        let offerChanged = try host.call("browser-offer", ["url": "https://bank.example/", "username": "ada", "password": ["secret": 0]], secrets: ["changed-7"])
        #expect(offerChanged.body["action"] as? String == "update" && offerChanged.body["item"] as? String == bank.id)
        #expect(try host.call("browser-save", ["url": "https://bank.example/", "username": "ada", "password": ["secret": 0], "item": bank.id], secrets: ["changed-7"]).kind == "saved")
        #expect(try host.failureCode("browser-save", ["url": "https://evil.example/", "username": "ada", "password": ["secret": 0], "item": bank.id], secrets: ["x-1"]) == "otherSite")
        #expect(try agent.send(.field(FieldRequest(item: bank.id, field: "password"))).value().value == "changed-7")
        let generated = try host.call("browser-generate")
        #expect(generated.kind == "generated" && ((generated.body["password"] as? String)?.count ?? 0) >= 16)

        // Locked: the extension is told so, and unlocks through the host like any client.
        #expect(try host.call("lock", ["forget": false]).kind == "done")
        #expect(try host.failureCode("browser-candidates", ["url": "https://bank.example/"]) == "locked")
        #expect(try host.call("unlock", ["password": ["secret": 0]], secrets: [RealAgent.password]).kind == "done")

        // Malformed messages are refused and the host goes on.
        try host.sendRaw(Array("not json".utf8))
        #expect(try host.receive()["kind"] as? String == "failure")
        #expect(try host.failureCode("no-such-op") == "unsupported")

        // A look-alike host in another script is named with its ASCII form too.
        let lookalike = try host.call("browser-fill", ["url": "https://b\u{0430}nk.example/", "item": bank.id])
        #expect((lookalike.body["facts"] as? [String: String])?["requested"] == "b\u{0430}nk.example (xn--bnk-6cd.example)", "\(lookalike.body)")

        // At most eight pairings wait; a ninth is refused rather than pushing out the user's.
        for _ in 0..<8 { #expect(try host.call("browser-pair-begin", ["publicKey": thief.publicKey, "browser": "firefox", "name": "x"]).kind == "browserPairing") }
        #expect(try host.failureCode("browser-pair-begin", ["publicKey": thief.publicKey, "browser": "firefox", "name": "x"]) == "pairingsWaiting")

        // Removing the pairing ends its session at once.
        let removed = try agent.session.run(["browser", "remove", String(file.browsers[0].id.prefix(6))])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(try host.failureCode("status") == "notPaired")
        #expect(try host.failureCode("lock", ["forget": false]) == "notPaired")
        #expect(try agent.send(.status).status().unlocked, "a removed browser locked the vault")
        #expect(try host.failureCode("browser-candidates", ["url": "https://bank.example/"]) == "notPaired")
        #expect(try browser.prove(on: host).body["code"] as? String == "notPaired")

        // An oversized message ends the host with an answer.
        try host.sendRaw(Array("{}".utf8))
        #expect(try host.receive()["kind"] as? String == "failure")
        let n = UInt32(5 << 20)
        try host.toHost.fileHandleForWriting.write(contentsOf: Data([UInt8(n & 0xff), UInt8(n >> 8 & 0xff), UInt8(n >> 16 & 0xff), UInt8(n >> 24 & 0xff)]))
        #expect((try host.receive()["body"] as? [String: Any])?["code"] as? String == "badRequest")
        host.process.waitUntilExit()
        #expect(host.process.terminationStatus == 1)
    }

    @Test func installWritesTheManifestsThatNameTheHost() throws {
        let agent = try RealAgent()
        let home = agent.session.dir.path + "/home"
        try FileManager.default.createDirectory(atPath: home + "/.mozilla", withIntermediateDirectories: true)
        let env = ["HOME": home]
        let installed = try agent.session.run(["browser", "install"], env: env)
        #expect(installed.status == 0, "\(installed.stderr)")
        // By default only the browsers used here: Firefox's folder exists, Chromium's does not.
        let firefox = try #require(FileManager.default.contents(atPath: home + "/.mozilla/native-messaging-hosts/dev.passbox.host.json"))
        let manifest = try #require(try JSONSerialization.jsonObject(with: firefox) as? [String: Any])
        #expect(manifest["allowed_extensions"] as? [String] == ["passbox@passbox.dev"] && manifest["type"] as? String == "stdio")
        #expect(manifest["path"] as? String == agent.session.data + "/browser-host")
        #expect(!FileManager.default.fileExists(atPath: home + "/.config/chromium/NativeMessagingHosts/dev.passbox.host.json"))
        #expect(try agent.session.run(["browser", "install", "--browser", "chromium"], env: env).status == 0)
        let chromium = try #require(FileManager.default.contents(atPath: home + "/.config/chromium/NativeMessagingHosts/dev.passbox.host.json"))
        #expect(String(decoding: chromium, as: UTF8.self).contains("chrome-extension://bbcehchmcalipejkofghcfnglkhhoafk/"))
        let script = try String(contentsOfFile: agent.session.data + "/browser-host", encoding: .utf8)
        #expect(script.hasPrefix("#!/bin/sh\n") && script.contains("browser-host") && script.contains("'\(agent.session.data)'"))
        let status = try agent.session.run(["browser", "status"], env: env)
        #expect(status.stdout.contains("chromium: installed") && status.stdout.contains("firefox: installed") && status.stdout.contains("Paired browsers: 0"), "\(status.stdout)")
        #expect(try agent.session.run(["browser", "install", "--browser", "opera"], env: env).status == 2)
        #expect(try agent.session.run(["browser", "uninstall"], env: env).status == 0)
        #expect(!FileManager.default.fileExists(atPath: home + "/.mozilla/native-messaging-hosts/dev.passbox.host.json"))
        // A damaged list of pairings is named, never written over, by the CLI and by the agent.
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: agent.session.data + "/browsers.json"))
        let damaged = try agent.session.run(["browser", "list"])
        #expect(damaged.status == 1 && damaged.stderr.contains("cannot be read"), "\(damaged.stderr)")
        let agentSays = try agent.failure(Request(Operations.browserPairings))
        #expect(agentSays.code == .browsersFileDamaged && agentSays.facts["path"] == agent.session.data + "/browsers.json")
        // A host with no agent to reach says so.
        let lonely = try TemporaryDirectory("passbox-browser-lonely")
        let host = try Host(executable: agent.session.bin, dataDirectory: lonely.path, environment: ["XDG_RUNTIME_DIR": ""])
        try host.sendRaw(Array(#"{"version":14,"request":{"op":"browser-challenge"}}"#.utf8))
        try host.toHost.fileHandleForWriting.close()
        let answer = String(decoding: host.fromHost.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        host.process.waitUntilExit()
        #expect(answer.contains(#""code":"agentUnavailable""#), "\(answer)")
        #expect(try String(contentsOfFile: agent.session.data + "/browsers.json", encoding: .utf8) == "{not json")
    }
}

extension BrowserHostClient {
    convenience init(agent: RealAgent) throws {
        try self.init(executable: agent.session.bin, dataDirectory: agent.session.data, environment: ["XDG_RUNTIME_DIR": ""])
    }

    func failureCode(_ op: String, _ body: [String: Any]? = nil, secrets: [String] = []) throws -> String? {
        let reply = try call(op, body, secrets: secrets)
        return reply.kind == "failure" ? reply.body["code"] as? String : nil
    }
}

extension RealAgent {
    func prove(on host: BrowserHostTests.Host, _ browser: BrowserHostTests.Extension) throws -> (kind: String, body: [String: Any]) { try browser.prove(on: host) }
}
