import Foundation
import PassboxCore
import PassboxCrypto
import PassboxTestKit
import Testing

/// `Fixtures/passkey-v1/item.msgpack`, made once (by `makeFixture` below, with PASSBOX_MAKE_PASSKEY_FIXTURE set
/// to a folder) and never regenerated: a login as a vault payload packs it, holding one passkey (its relying
/// party, user, PKCS#8 P-256 key, counter and dates). It keeps opening, packs again to the same bytes, and its
/// key still signs for the public key it was made with: the passkey's packing is pinned.
@Suite struct PasskeyFixtureTests {
    static let folder = "Fixtures/passkey-v1"
    static let publicPoint = "04486d923ca900cf943bbd2cb2ae2786da3a1ba3d546730aa4f74d9e440203bc58b80f05001312859c082574bde6154bc4b59822c446ba2d1ca92f498e64846c08"

    @Test func theFileNeverChangesAndThePasskeySigns() throws {
        let url = try #require(Bundle.module.url(forResource: "\(Self.folder)/item", withExtension: "msgpack"))
        let bytes = Array(try Data(contentsOf: url))
        #expect(Hex.string(Hash.sha256(bytes)) == "03d0a358111c7e0a0953b2db241c0f6cd5b936b9a9716eb0a70823836f2cedd2")
        let item = try bytes.withUnsafeBytes { try Item(unpacking: $0) }
        #expect(item.category == .login && item.title == "Bank" && item.username == "ada")
        let key = try #require(item.passkeys.first)
        #expect(item.passkeys.count == 1 && key.relyingParty == "bank.example" && key.userName == "ada" && key.displayName == "Ada Lovelace")
        #expect(key.credentialID == Array(0..<16) && key.userHandle == Array("user-4711".utf8) && key.signCount == 3)
        #expect(key.created == Date(timeIntervalSince1970: 1_796_000_000) && key.lastUsed == Date(timeIntervalSince1970: 1_796_000_600))
        #expect(item.packed() == bytes, "packing it again gives the same bytes")
        let secret = SecretBytes(copying: key.privateKey)
        let point = try P256.publicPoint(of: secret)
        #expect(Hex.string(point) == Self.publicPoint)
        let signature = try P256.signature(for: [1, 2, 3], privateKey: secret)
        #expect(P256.isValidSignature(signature, for: [1, 2, 3], publicPoint: point))
    }

    /// Made the fixture once; kept to say how, and never run in the suite.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["PASSBOX_MAKE_PASSKEY_FIXTURE"] != nil))
    func makeFixture() throws {
        let target = try #require(ProcessInfo.processInfo.environment["PASSBOX_MAKE_PASSKEY_FIXTURE"])
        let (key, point) = try P256.generate()
        var item = Item(id: "01J0FIXTUREPASSKEY00000000", category: .login, title: "Bank", websites: ["https://bank.example"])
        item.setValue("ada", for: "username")
        for i in item.fields.indices { item.fields[i].id = "field0\(i)" }
        item.created = Date(timeIntervalSince1970: 1_796_000_000)
        item.passkeys = [
            Passkey(
                credentialID: Array(0..<16), relyingParty: "bank.example", userHandle: Array("user-4711".utf8), userName: "ada", displayName: "Ada Lovelace",
                privateKey: key.revealBytes(), signCount: 3, created: Date(timeIntervalSince1970: 1_796_000_000), lastUsed: Date(timeIntervalSince1970: 1_796_000_600))
        ]
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        try Data(item.packed()).write(to: URL(fileURLWithPath: target + "/item.msgpack"))
        try Hex.string(point).write(toFile: target + "/point.txt", atomically: true, encoding: .utf8)
    }
}
