import Foundation
import PassboxCore
import PassboxCrypto
import Testing

@testable import PassboxInterop

/// The FIDO Credential Exchange Format (CXF 1.0): a document made once by `Fixtures/make-cxf.py` comes in with
/// every credential kind Passbox maps, and what it cannot map is counted; an export read back keeps the passkey
/// usable (it signs for the key the relying party holds); Bitwarden's JSON carries passkeys only when asked.
@Suite struct CXFTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func signs(_ passkey: Passkey, for point: [UInt8]) throws -> Bool {
        let key = SecretBytes(copying: passkey.privateKey)
        return P256.isValidSignature(try P256.signature(for: [7, 7], privateKey: key), for: [7, 7], publicPoint: point)
    }

    @Test func everyCredentialKindComesIn() throws {
        let bytes = try KDBXReadTests.fixture("cxf.json")
        #expect(ImportFormat.detect(head: Array(bytes.prefix(4096)), name: "export.json") == "cxf")
        let p = try CXFImport.plan(bytes, groupsAsVaults: false, now: now)
        #expect(p.source == "CXF 1.0 from Example Exporter")
        #expect(p.notBrought == ["passkey": 1, "unsupportedCode": 1, "unknownType": 1], "\(p.notBrought)")
        let byTitle = Dictionary(uniqueKeysWithValues: p.entries.map { ($0.item.title, $0.item) })
        #expect(byTitle.count == 6)

        let bank = try #require(byTitle["Bank"]).validated()
        #expect(bank.category == .login && bank.username == "ada" && bank.password == "Cxf-Bank-1" && bank.isFavorite)
        #expect(bank.websites == ["https://bank.example/login", "https://m.bank.example"] && bank.tags == ["money", "Work"] && bank.notes == "branch 12")
        let otp = try OTPInput.parse(try #require(bank.value(of: "otp")))
        #expect(otp.secret == (try Base32.decode("JBSWY3DPEHPK3PXP")) && otp.issuer == "Bank" && otp.account == "ada")
        #expect(bank.created == Date(timeIntervalSince1970: 1_700_000_000) && bank.lastChanged == Date(timeIntervalSince1970: 1_700_000_500))
        let passkey = try #require(bank.passkeys.first)
        #expect(bank.passkeys.count == 1 && passkey.credentialID == Array("cxf-credential-1".utf8) && passkey.relyingParty == "bank.example")
        #expect(passkey.userHandle == Array("user-4711".utf8) && passkey.userName == "ada" && passkey.displayName == "Ada Lovelace" && passkey.signCount == 0)
        #expect(try signs(passkey, for: try P256.publicPoint(of: SecretBytes(copying: passkey.privateKey))))

        let card = try #require(byTitle["Visa"]).validated()
        #expect(card.category == .creditCard && card.value(of: "number") == "4111111111111111" && card.value(of: "expiry") == "2029-04")
        #expect(card.value(of: "cvc") == "123" && card.value(of: "cardholder") == "A. Person" && card.value(of: "type") == "Visa")
        let wifi = try #require(byTitle["Home"]).validated()
        #expect(wifi.category == .wifi && wifi.value(of: "ssid") == "home-net" && wifi.value(of: "password") == "wifi-pass" && wifi.value(of: "security") == "wpa3-personal")
        let api = try #require(byTitle["Deploy token"]).validated()
        #expect(api.category == .apiCredential && api.value(of: "credential") == "tok-123" && api.value(of: "username") == "ci" && api.value(of: "hostname") == "https://api.example")
        let locker = try #require(byTitle["Locker"]).validated()
        #expect(locker.category == .secureNote && locker.field(named: "Combination")?.kind == .hidden && locker.field(named: "Where")?.value == "Gym")
        let ssh = try #require(byTitle["Server key"]).validated()
        #expect(ssh.category == .sshKey && ssh.value(of: "private-key")?.hasPrefix("-----BEGIN PRIVATE KEY-----") == true && ssh.field(named: "Comment")?.value == "me@laptop")
        #expect(ssh.tags == ["Work/Servers"])

        // Collections as vaults: the top one the vault, the rest a tag.
        let asVaults = try CXFImport.plan(bytes, groupsAsVaults: true, now: now)
        let server = try #require(asVaults.entries.first { $0.item.title == "Server key" })
        #expect(server.vaultName == "Work" && server.item.tags == ["Servers"])
        #expect(asVaults.entries.first { $0.item.title == "Visa" }?.vaultName == nil)
    }

    @Test func anotherMajorVersionOrNoDocumentIsRefusedByName() throws {
        let newer = Array(#"{"version":{"major":2,"minor":0},"exporterRpId":"x.example","exporterDisplayName":"X","timestamp":1,"accounts":[]}"#.utf8)
        #expect(throws: InteropError.unsupported(what: "CXF version 2.0 (Passbox reads CXF 1.x)")) { try CXFImport.plan(newer, groupsAsVaults: false, now: now) }
        for bad in [#"{"exporterRpId":"x"}"#, "[]", "{", ""] {
            #expect(throws: InteropError.notThisFormat(format: "CXF")) { try CXFImport.plan(Array(bad.utf8), groupsAsVaults: false, now: now) }
        }
    }

    /// Passbox's items out as CXF and back: fields, websites, the code, notes, vaults as collections; a passkey
    /// only with `withPasskeys`, one whose counter is above zero never (CXF says so), and the one that comes back
    /// still signs for the public key its site holds.
    @Test func anExportReadBackKeepsThePasskeyUsable() throws {
        var (items, vaults) = KeePassMappingTests.sampleItems()
        let (key, point) = try P256.generate()
        items[0].passkeys = [
            Passkey(credentialID: [1, 2, 3], relyingParty: "github.com", userHandle: [9], userName: "octocat", displayName: "Octo Cat", privateKey: key.revealBytes(), created: now),
            Passkey(credentialID: [4], relyingParty: "github.com", userHandle: [9], userName: "octocat", displayName: "", privateKey: key.revealBytes(), signCount: 3, created: now),
        ]
        let plain = try CXFExport.export(items: items, vaults: vaults, withPasskeys: false, now: now)
        #expect(plain.entries == 3 && plain.leftOut == ["trashed": 1, "sealed": 1, "passkeyPlain": 2])
        #expect(!String(decoding: plain.json, as: UTF8.self).contains("\"passkey\""))

        let out = try CXFExport.export(items: items, vaults: vaults, withPasskeys: true, now: now)
        #expect(out.leftOut == ["trashed": 1, "sealed": 1, "passkeyCounter": 1])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(out.json)) as? [String: Any])
        #expect((json["version"] as? [String: Int]) == ["major": 1, "minor": 0] && json["exporterDisplayName"] as? String == "Passbox")
        let back = try CXFImport.plan(out.json, groupsAsVaults: true, now: now)
        let login = try #require(back.entries.first { $0.item.title == "GitHub" })
        #expect(login.vaultName == "Personal" && login.item.username == "octocat" && login.item.password == "Pa55-word-🙂" && login.item.websites == items[0].websites)
        #expect(login.item.notes == items[0].notes && login.item.created == items[0].created && login.item.tags == ["code"])
        #expect(try OTPInput.parse(try #require(login.item.value(of: "otp"))).secret == Base32.decode("JBSWY3DPEHPK3PXP"))
        #expect(login.item.field(named: "Recovery codes")?.kind == .multilineHidden && login.item.field(named: "Account ID")?.value == "42")
        let passkey = try #require(login.item.passkeys.first)
        #expect(login.item.passkeys.count == 1 && passkey.credentialID == [1, 2, 3] && passkey.displayName == "Octo Cat" && passkey.userHandle == [9])
        #expect(try signs(passkey, for: point))
        let card = try #require(back.entries.first { $0.item.title == "Visa" }?.item).validated()
        #expect(card.value(of: "number") == "4111111111111111" && card.value(of: "expiry") == "2029-04" && card.value(of: "cvc") == "123")
        #expect(back.entries.first { $0.item.title == "Plans" }?.vaultName == "Work")
    }

    /// Bitwarden's JSON carries passkeys as `fido2Credentials` only when asked, and Passbox (as Bitwarden) reads
    /// them back usable, the counter kept.
    @Test func bitwardenJSONCarriesPasskeysWhenAsked() throws {
        var (items, vaults) = KeePassMappingTests.sampleItems()
        let (key, point) = try P256.generate()
        items[0].passkeys = [Passkey(credentialID: [5, 6], relyingParty: "github.com", userHandle: [8], userName: "octocat", displayName: "Octo", privateKey: key.revealBytes(), signCount: 4, created: now)]
        let out = try BitwardenExport.export(items: items, vaults: vaults, withPasskeys: true)
        #expect(out.leftOut == ["trashed": 1, "sealed": 1])
        let back = try BitwardenImport.plan(out.json, groupsAsVaults: false, now: now)
        let passkey = try #require(back.entries.first { $0.item.title == "GitHub" }?.item.passkeys.first)
        #expect(passkey.credentialID == [5, 6] && passkey.signCount == 4 && passkey.userHandle == [8] && passkey.created == now && passkey.displayName == "Octo")
        #expect(try signs(passkey, for: point))
    }
}
