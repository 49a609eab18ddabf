import Foundation
import PassboxCore
import PassboxCrypto
import PassboxStore
import PassboxTestKit
import Testing

/// Vault files made once (docs/FORMATS.md, "Fixture"), checked in and never regenerated: format 1 by
/// `passbox init --insecure-test-kdf` and the commands listed there, format 2 by opening that file with its
/// password and saving it unchanged (the save that converts a file), and the chunked body layout by opening
/// the format-2 file and saving it unchanged again. If a test fails, a format changed: add a
/// new version beside the old one instead.
@Suite struct FixtureTests {
    static let fixturePassword = "fixture password v1"

    func fixtureURL(_ name: String) throws -> URL {
        try #require(Bundle.module.url(forResource: "Fixtures/\(name)/vault", withExtension: "pbx"))
    }

    func openFixture(_ name: String = "vault-v1") throws -> (TemporaryDirectory, OpenVault) {
        let dir = try TemporaryDirectory()
        try FileManager.default.copyItem(at: try fixtureURL(name), to: dir.file("vault.pbx"))
        return (dir, try VaultStore(directory: dir.path).unlock(password: FixtureTests.fixturePassword))
    }

    @Test func formatTwoFixtureBytesNeverChange() throws {
        let bytes = Array(try Data(contentsOf: try fixtureURL("vault-v2")))
        #expect(bytes.count == 128 + 16 * 1_048_576)
        #expect(Array(bytes[0..<32]) == Array("PBXVAULT".utf8) + [0, 2, 0, 16, 0, 0x10, 0, 0, 0, 1, 0, 0, 0, 0x40, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0])
        #expect(Hex.string(Hash.sha256(bytes)) == "aad10432e70bb96f639cb48b204af984dd706ff16eff360eb9f5c88f0183f4f5")
        // Made from the format-1 fixture: the same header but its version, and the same salt.
        let v1 = Array(try Data(contentsOf: try fixtureURL("vault-v1")))
        #expect(bytes[10..<128] == v1[10..<128])
    }

    /// The chunked body layout (compression id 2), made once from the format-2 fixture by opening it and
    /// saving it unchanged with the first code that wrote chunks.
    @Test func chunkedFixtureBytesNeverChange() throws {
        let bytes = Array(try Data(contentsOf: try fixtureURL("vault-v2-chunked")))
        #expect(bytes.count == 128 + 16 * 1_048_576)
        #expect(Hex.string(Hash.sha256(bytes)) == "1e7387198ef8964c1d83f7e6fd9545b2884a9ae39c2cbb66d2aa25d61d042453")
        let v2 = Array(try Data(contentsOf: try fixtureURL("vault-v2")))
        #expect(bytes[0..<128] == v2[0..<128])
    }

    @Test func fixtureBytesNeverChange() throws {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/vault-v1/vault", withExtension: "pbx"))
        let bytes = Array(try Data(contentsOf: url))
        #expect(bytes.count == 128 + 16 * 1_048_576)
        #expect(Array(bytes[0..<32]) == Array("PBXVAULT".utf8) + [0, 1, 0, 16, 0, 0x10, 0, 0, 0, 1, 0, 0, 0, 0x40, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0])
        #expect(Hex.string(Hash.sha256(bytes)) == "15516f8d0dc73f1f56eab6c356f7f49d65b76de583c3522a15a37270908e8613")
    }

    /// Both fixtures hold the same vault.
    @Test(arguments: ["vault-v1", "vault-v2", "vault-v2-chunked"]) func fixtureOpensToExactlyItsItems(_ name: String) throws {
        let (_, opened) = try openFixture(name)
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

    @Test(arguments: ["vault-v1", "vault-v2", "vault-v2-chunked"]) func fixtureRefusesOtherPasswords(_ name: String) throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.copyItem(at: try fixtureURL(name), to: dir.file("vault.pbx"))
        #expect(throws: StoreError.wrongPassword) { try VaultStore(directory: dir.path).unlock(password: "fixture password v2") }
    }

    /// The first save of a format-1 file converts it: format 2 in the header, every other slot kept except
    /// for the two bytes where format 1 had its version byte; a format-2 file is saved in place.
    @Test(arguments: ["vault-v1", "vault-v2", "vault-v2-chunked"]) func fixtureCanBeSavedAndStillOpens(_ name: String) throws {
        let (dir, opened) = try openFixture(name)
        let before = Array(try Data(contentsOf: dir.file("vault.pbx")))
        var vault = opened.vault
        try vault.add(Item(category: .login, title: "Added later"), now: Date())
        try opened.save(vault)
        #expect(try VaultStore(directory: dir.path).unlock(password: FixtureTests.fixturePassword).vault.items.count == 6)
        let after = Array(try Data(contentsOf: dir.file("vault.pbx")))
        #expect(after[9] == 2)
        let slotSize = 1 << 20
        let changedSlots = (0..<16).filter { slot in
            let base = 128 + slot * slotSize
            var masked = Array(after[base..<(base + slotSize)])
            for offset in [32, 129] { masked[offset] = before[base + offset] }
            return masked != Array(before[base..<(base + slotSize)])
        }
        #expect(changedSlots.count == 1)
    }
}
