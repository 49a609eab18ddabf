import Foundation
import PassboxAgent
import PassboxCrypto
import PassboxProtocol
import PassboxTestKit
import Testing

/// Passkeys through `passbox browser-host` and a real agent, the extension played by this test (issue 35):
/// a passkey made into the site's login, found only for its own relying party, an assertion whose signature
/// verifies over the authenticator data and the client data's hash, the relying-party attacks refused, and
/// the key never leaving the agent.
@Suite struct BrowserPasskeyTests {
    static let operations: Set<OperationName> = [.browserPasskeys, .browserPasskeySign, .browserPasskeyCreate]
    static let errorCodes: Set<ErrorCode> = [.passkeyRelyingParty, .passkeyNotFound, .passkeyExists, .passkeyAlgorithm]

    /// A paired and proven host for the agent.
    static func pairedHost(_ agent: RealAgent) throws -> BrowserHostClient {
        let host = try BrowserHostClient(agent: agent)
        let browser = try BrowserHostTests.Extension()
        let begun = try host.call("browser-pair-begin", ["publicKey": browser.publicKey, "browser": "chromium", "name": "test"])
        #expect(begun.kind == "browserPairing")
        let paired = try agent.session.run(["browser", "pair"], ["y"])
        #expect(paired.status == 0, "\(paired.stdout)\(paired.stderr)")
        #expect(try browser.prove(on: host).kind == "browserSession")
        return host
    }

    static func clientData(_ type: String, origin: String) -> String {
        let json = #"{"type":"\#(type)","challenge":"\#(Base64URL.encode(SecureRandom.bytes(count: 32)))","origin":"\#(origin)","crossOrigin":false}"#
        return Base64URL.encode(Array(json.utf8))
    }

    /// The bytes of a base64url member of a reply.
    static func bytes(_ value: Any?) throws -> [UInt8] {
        let text = try #require(value as? String)
        return try #require(Base64URL.decode(text))
    }

    @Test func makeFindSignAndRefuse() throws {
        let agent = try RealAgent()
        try agent.unlock()
        let bank = try agent.add("login", ItemChanges(title: "Bank", username: "ada", websites: ["https://bank.example"], secretFields: [FieldAssignment(label: "password", value: "tulip-ocean-1")]))
        let host = try Self.pairedHost(agent)
        let handle = Base64URL.encode(Array("user-4711".utf8))

        // Nothing yet: the extension would leave the call to the browser.
        let none = try host.call("browser-passkeys", ["url": "https://login.bank.example/signin", "rp": "bank.example"])
        #expect(none.kind == "passkeys" && (none.body["passkeys"] as? [Any])?.isEmpty == true && none.body["rp"] as? String == "bank.example")

        // Made on a subdomain for the registrable domain: into the Bank login, whose user name it is.
        let made = try host.call("browser-passkey-create", [
            "url": "https://login.bank.example/register", "rp": "bank.example", "userHandle": handle, "userName": "ada", "displayName": "Ada L.",
            "algorithms": [-8, -7, -257],
        ])
        #expect(made.kind == "passkeyCreated", "\(made.body)")
        #expect(made.body["item"] as? String == bank.id && made.body["newItem"] as? Bool == false && made.body["algorithm"] as? Int == -7)
        let credential = try #require(made.body["credential"] as? String)
        let spki = try Self.bytes(made.body["publicKey"])
        let point = Array(spki.suffix(65))
        #expect(spki.count == 91 && point[0] == 4)
        // The authenticator data: the relying party's hash, UP UV BE BS AT, counter 0, Passbox's AAGUID, the id, the COSE key.
        let authData = try Self.bytes(made.body["authenticatorData"])
        #expect(Array(authData[0..<32]) == Hash.sha256(Array("bank.example".utf8)))
        #expect(authData[32] == 0x5d && Array(authData[33..<37]) == [0, 0, 0, 0])
        #expect(Array(authData[55..<71]) == Base64URL.decode(credential))
        let cose: [UInt8] = [0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20] + Array(point[1..<33]) + [0x22, 0x58, 0x20] + Array(point[33..<65])
        #expect(Array(authData[71...]) == cose)
        let attestation = try Self.bytes(made.body["attestationObject"])
        #expect(attestation.starts(with: [0xa3, 0x63] + Array("fmt".utf8)) && Array(attestation.suffix(authData.count)) == authData)

        // Found for the domain and its subdomains, with the site's allow list or without one.
        for (url, rp) in [("https://bank.example/", nil), ("https://login.bank.example/x", "bank.example")] as [(String, String?)] {
            var body: [String: Any] = ["url": url, "allow": [credential]]
            if let rp { body["rp"] = rp }
            let found = try host.call("browser-passkeys", body)
            let list = try #require(found.body["passkeys"] as? [[String: Any]])
            #expect(list.count == 1 && list[0]["credential"] as? String == credential && list[0]["userName"] as? String == "ada" && list[0]["item"] as? String == bank.id)
        }
        let otherAllowed = try host.call("browser-passkeys", ["url": "https://bank.example/", "allow": [Base64URL.encode([1, 2, 3])]])
        #expect((otherAllowed.body["passkeys"] as? [Any])?.isEmpty == true)
        // A subdomain's own relying party is another one.
        let sub = try host.call("browser-passkeys", ["url": "https://login.bank.example/"])
        #expect(sub.body["rp"] as? String == "login.bank.example" && (sub.body["passkeys"] as? [Any])?.isEmpty == true)

        // The relying-party attacks.
        for (url, rp, reason) in [
            ("https://evil-bank.example/", "bank.example", "notSuffix"), ("https://bank.example.evil.test/", "bank.example", "notSuffix"),
            ("http://bank.example/", "bank.example", "notHTTPS"), ("https://127.0.0.1/", "127.0.0.1", "ipAddress"),
            ("https://shop.github.io/", "github.io", "publicSuffix"), ("https://bank.co.uk/", "co.uk", "publicSuffix"),
            ("https://example.com/", "com", "publicSuffix"), ("https://bank.example/", "login.bank.example", "notSuffix"),
        ] {
            let refused = try host.call("browser-passkeys", ["url": url, "rp": rp])
            #expect(refused.body["code"] as? String == "passkeyRelyingParty" && (refused.body["facts"] as? [String: String])?["reason"] == reason, "\(url) \(rp): \(refused.body)")
        }
        // localhost is a secure context over http.
        #expect(try host.call("browser-passkeys", ["url": "http://localhost:8080/", "rp": "localhost"]).kind == "passkeys")

        // The assertion: a signature of this key over the authenticator data and SHA-256 of the client data.
        let data = Self.clientData("webauthn.get", origin: "https://login.bank.example")
        let signed = try host.call("browser-passkey-sign", ["url": "https://login.bank.example/signin", "rp": "bank.example", "item": bank.id, "credential": credential, "clientData": data])
        #expect(signed.kind == "passkeySigned", "\(signed.body)")
        let assertionData = try Self.bytes(signed.body["authenticatorData"])
        let signature = try Self.bytes(signed.body["signature"])
        #expect(assertionData.count == 37 && assertionData[32] == 0x1d && Array(assertionData[0..<32]) == Hash.sha256(Array("bank.example".utf8)))
        let message = assertionData + Hash.sha256(try Self.bytes(data))
        #expect(P256.isValidSignature(signature, for: message, publicPoint: point))
        #expect(!P256.isValidSignature(signature, for: message + [0], publicPoint: point))
        #expect(try Self.bytes(signed.body["userHandle"]) == Array("user-4711".utf8))

        // Refused: client data for another origin or type, the key on another relying party, an unknown credential.
        let wrongOrigin = try host.call("browser-passkey-sign", ["url": "https://login.bank.example/", "rp": "bank.example", "item": bank.id, "credential": credential, "clientData": Self.clientData("webauthn.get", origin: "https://evil.example")])
        #expect(wrongOrigin.body["code"] as? String == "badRequest")
        let wrongType = try host.call("browser-passkey-sign", ["url": "https://bank.example/", "item": bank.id, "credential": credential, "clientData": Self.clientData("webauthn.create", origin: "https://bank.example")])
        #expect(wrongType.body["code"] as? String == "badRequest")
        let elsewhere = try host.call("browser-passkey-sign", ["url": "https://login.bank.example/", "item": bank.id, "credential": credential, "clientData": Self.clientData("webauthn.get", origin: "https://login.bank.example")])
        #expect(elsewhere.body["code"] as? String == "passkeyNotFound" && (elsewhere.body["facts"] as? [String: String])?["rp"] == "login.bank.example")
        let hostile = try host.call("browser-passkey-sign", ["url": "https://evil.example/", "rp": "bank.example", "item": bank.id, "credential": credential, "clientData": Self.clientData("webauthn.get", origin: "https://evil.example")])
        #expect(hostile.body["code"] as? String == "passkeyRelyingParty")

        // Registration refusals: a credential the site excludes is here; no ES256 offered; a handle too long.
        let excluded = try host.call("browser-passkey-create", ["url": "https://bank.example/", "userHandle": handle, "userName": "ada", "displayName": "", "algorithms": [-7], "exclude": [credential], "rp": "bank.example"])
        #expect(excluded.body["code"] as? String == "passkeyExists" && (excluded.body["facts"] as? [String: String])?["title"] == "Bank")
        let rsaOnly = try host.call("browser-passkey-create", ["url": "https://bank.example/", "userHandle": handle, "userName": "ada", "displayName": "", "algorithms": [-257]])
        #expect(rsaOnly.body["code"] as? String == "passkeyAlgorithm" && (rsaOnly.body["facts"] as? [String: String])?["algorithms"] == "-257")
        let long = try host.call("browser-passkey-create", ["url": "https://bank.example/", "userHandle": Base64URL.encode(Array(repeating: 1, count: 65)), "userName": "ada", "displayName": "", "algorithms": [-7]])
        #expect(long.body["code"] as? String == "badRequest")

        // A new user on a site without a login: a new login; its details list both passkeys' sites, never a key.
        let shop = try host.call("browser-passkey-create", ["url": "https://shop.example/join", "userHandle": Base64URL.encode([9, 9]), "userName": "bob@shop.example", "displayName": "Bob", "algorithms": [-7]])
        #expect(shop.kind == "passkeyCreated" && shop.body["newItem"] as? Bool == true && shop.body["title"] as? String == "shop.example")
        let shown = try agent.send(.show(ShowRequest(item: bank.id, reveal: true))).answer(ItemDetail.self)
        #expect(shown.passkeys?.map(\.rp) == ["bank.example"] && shown.passkeys?.first?.userName == "ada" && shown.summary.passkeys == 1)
        let cli = try agent.session.run(["show", "Bank", "--reveal"])
        #expect(cli.status == 0 && cli.stdout.contains("Passkey:") && cli.stdout.contains("bank.example · ada"), "\(cli.stdout)")
        let json = try agent.session.run(["show", "Bank", "--reveal", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let listed = try #require(object["passkeys"] as? [[String: Any]])
        #expect(listed.count == 1 && Set(listed[0].keys) == ["credential", "rp", "userName", "displayName", "created", "lastUsed", "signCount"], "\(listed)")
        for op in ["read", "copy"] {
            let out = try agent.session.run([op, "passbox://local/Bank/passkey"])
            #expect(out.status != 0)
        }

        // (lastUsed: the signature above was recorded, on this device.)
        // Deleted with an edit: a version in the history keeps it, and the site no longer finds it.
        let removed = try agent.send(.edit(EditRequest(item: bank.id, changes: { var c = ItemChanges(); c.removePasskeys = [credential]; return c }()))).saved()
        #expect(removed.changed)
        let gone = try host.call("browser-passkeys", ["url": "https://bank.example/"])
        #expect((gone.body["passkeys"] as? [Any])?.isEmpty == true)
        let again = try agent.failure(.edit(EditRequest(item: bank.id, changes: { var c = ItemChanges(); c.removePasskeys = [credential]; return c }())))
        #expect(again.code == .passkeyNotFound)
        let history = try agent.send(.history(ShowRequest(item: bank.id))).answer(HistoryReply.self)
        #expect(history.versions.contains { $0.item.passkeys?.first?.credential == credential })
        // From the command line too, by the credential id `show --json` lists.
        let shopCredential = try #require(shop.body["credential"] as? String)
        let cut = try agent.session.run(["edit", "shop.example", "--remove-passkey", shopCredential])
        #expect(cut.status == 0, "\(cut.stderr)")
        let after = try agent.session.run(["show", "shop.example", "--json"])
        #expect(!after.stdout.contains(shopCredential))
    }

    /// A passkey made in one vault, exported as CXF (only after the third question) and imported into another
    /// vault, signs in there: the relying party's stored public key verifies the new agent's assertion. Without
    /// `--with-passkeys` the export counts it as left out.
    @Test func aPasskeyExportedAsCXFSignsInFromAnotherVault() throws {
        let first = try RealAgent()
        try first.unlock()
        _ = try first.add("login", ItemChanges(title: "Bank", username: "ada", websites: ["https://bank.example"]))
        let firstHost = try Self.pairedHost(first)
        let made = try firstHost.call("browser-passkey-create", [
            "url": "https://bank.example/register", "rp": "bank.example", "userHandle": Base64URL.encode(Array("user-4711".utf8)), "userName": "ada", "displayName": "Ada",
            "algorithms": [-7],
        ])
        let credential = try #require(made.body["credential"] as? String)
        let point = Array(try Self.bytes(made.body["publicKey"]).suffix(65))

        let plain = first.session.dir.file("plain.cxf").path
        let without = try first.session.run(["export", plain, "--format", "cxf"], ["yes", "EXPORT"])
        #expect(without.status == 0 && without.stdout.contains("(CXF 1.0, not encrypted,") && without.stderr.contains("Left out (1): passkeys: a plain export carries"), "\(without.stderr)")
        #expect(!(try String(contentsOfFile: plain, encoding: .utf8)).contains(credential))
        let out = first.session.dir.file("with-passkeys.cxf").path
        let declined = try first.session.run(["export", out, "--format", "cxf", "--with-passkeys"], ["yes", "EXPORT", "no"])
        #expect(declined.status == 1 && declined.stderr.contains("the private keys of your passkeys") && !FileManager.default.fileExists(atPath: out))
        let done = try first.session.run(["export", out, "--format", "cxf", "--with-passkeys"], ["yes", "EXPORT", "PASSKEYS"])
        #expect(done.status == 0 && !done.stderr.contains("Left out"), "\(done.stderr)")
        #expect((try FileManager.default.attributesOfItem(atPath: out)[.posixPermissions] as? Int) == 0o600)

        let second = try RealAgent()
        try second.unlock()
        let imported = try second.session.run(["import", out, "--yes"])
        #expect(imported.status == 0 && imported.stdout.contains("CXF 1.0 from Passbox"), "\(imported.stdout)\(imported.stderr)")
        let host = try Self.pairedHost(second)
        let found = try host.call("browser-passkeys", ["url": "https://bank.example/", "allow": [credential]])
        let list = try #require(found.body["passkeys"] as? [[String: Any]])
        let item = try #require(list.first?["item"] as? String)
        #expect(list.count == 1 && list[0]["userName"] as? String == "ada")
        let data = Self.clientData("webauthn.get", origin: "https://bank.example")
        let signed = try host.call("browser-passkey-sign", ["url": "https://bank.example/signin", "rp": "bank.example", "item": item, "credential": credential, "clientData": data])
        #expect(signed.kind == "passkeySigned", "\(signed.body)")
        let message = try Self.bytes(signed.body["authenticatorData"]) + Hash.sha256(try Self.bytes(data))
        #expect(P256.isValidSignature(try Self.bytes(signed.body["signature"]), for: message, publicPoint: point))
    }
}
