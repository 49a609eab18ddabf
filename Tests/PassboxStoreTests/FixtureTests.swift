import Foundation
import PassboxCore
import PassboxCrypto
import PassboxStore
import PassboxTestSupport
import Testing

/// A vault file made once by `passbox init --insecure-test-kdf` and the commands in docs/FORMATS.md
/// ("Fixture"), checked in and never regenerated. If this test fails, the format changed: add a new
/// version beside the old one instead.
@Suite struct FixtureTests {
    static let fixturePassword = "fixture password v1"

    func openFixture() throws -> (TemporaryDirectory, OpenVault) {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/vault-v1/vault", withExtension: "pbx"))
        let dir = try TemporaryDirectory()
        try FileManager.default.copyItem(at: url, to: dir.file("vault.pbx"))
        return (dir, try VaultStore(directory: dir.path).unlock(password: FixtureTests.fixturePassword))
    }

    @Test func fixtureBytesNeverChange() throws {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/vault-v1/vault", withExtension: "pbx"))
        let bytes = Array(try Data(contentsOf: url))
        #expect(bytes.count == 128 + 16 * 1_048_576)
        #expect(Array(bytes[0..<32]) == Array("PBXVAULT".utf8) + [0, 1, 0, 16, 0, 0x10, 0, 0, 0, 1, 0, 0, 0, 0x40, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0])
        #expect(Hex.string(Hash.sha256(bytes)) == "15516f8d0dc73f1f56eab6c356f7f49d65b76de583c3522a15a37270908e8613")
    }

    @Test func fixtureOpensToExactlyItsItems() throws {
        let (_, opened) = try openFixture()
        let vault = opened.vault
        #expect(opened.kdfParameters == Argon2Parameters(memoryKiB: 64, passes: 1, lanes: 1))
        #expect(vault.items.count == 5)
        #expect(vault.list().map(\.title) == ["Alice", "Example Mail", "Fixture Note", "Travel Card"])

        let mail = try vault.item(id: "t9qp03ffj23245bkamjtp5ybdg")
        #expect(mail.category == .login)
        #expect(mail.title == "Example Mail")
        #expect(mail.username == "alice@example.com")
        #expect(mail.password == "N3w-Passw0rd!")
        #expect(mail.value(of: "Recovery email") == "backup@example.org")
        #expect(mail.field(named: "Recovery email")?.isCustom == true)
        #expect(mail.websites == ["https://mail.example.com", "https://webmail.example.net/login"])
        #expect(mail.tags == ["personal", "email"])
        #expect(mail.isFavorite)
        #expect(mail.notes == "Multi-line\nnote text ✓")
        #expect(mail.history.count == 1)
        #expect(mail.history[0].item.password == "Old-Passw0rd!")
        #expect(mail.previousPasswords.map(\.value) == ["Old-Passw0rd!"])
        #expect(mail.created != nil && mail.lastChanged != nil && mail.lastUsed == nil && mail.lastFilled == nil)

        let card = try vault.item(id: "v25d9j5bhef0p0wtmw08sw3mt8")
        #expect(card.category == .creditCard)
        #expect(card.value(of: "number") == "4111111111111111")
        #expect(card.value(of: "cvc") == "737")
        #expect(card.value(of: "cardholder") == "Alice Example")
        #expect(card.value(of: "expiry") == "2029-04")

        let note = try vault.item(id: "8bes49x9xgywnm2cd5mvdvr0c4")
        #expect(note.category == .secureNote)
        #expect(note.notes == "The vault fixture note.\nSecond line.")

        let alice = try vault.item(id: "7d23zh9h9v04zvjfhyyhffch88")
        #expect(alice.category == .identity)
        #expect(alice.value(of: "birth-date") == "1990-02-03")
        #expect(alice.value(of: "email") == "alice@example.com")
        #expect(alice.value(of: "last-name") == "Example")

        let trashed = try vault.item(id: "v8s51qf1sn82vydmgz6vhv75zm")
        #expect(trashed.isTrashed)
        #expect(trashed.password == "hunter2hunter2")
        #expect(vault.slotOrder.sorted() == Array(0..<16))
    }

    @Test func fixtureRefusesOtherPasswords() throws {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/vault-v1/vault", withExtension: "pbx"))
        let dir = try TemporaryDirectory()
        try FileManager.default.copyItem(at: url, to: dir.file("vault.pbx"))
        #expect(throws: StoreError.wrongPassword) { try VaultStore(directory: dir.path).unlock(password: "fixture password v2") }
    }

    @Test func fixtureCanBeSavedAndStillOpens() throws {
        let (dir, opened) = try openFixture()
        var vault = opened.vault
        try vault.add(Item(category: .login, title: "Added later"), now: Date())
        try opened.save(vault)
        #expect(try VaultStore(directory: dir.path).unlock(password: FixtureTests.fixturePassword).vault.items.count == 6)
    }
}
