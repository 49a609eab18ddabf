import Foundation
import PassboxCore
import PassboxCrypto
@testable import PassboxStore
import PassboxStoreFakes
import PassboxTestKit
import Testing

/// `Fixtures/coercion-v1/vault.pbx`, made once with `passbox` (debug build, `--insecure-test-kdf`; the
/// commands are in docs/FORMATS.md, "Fixture") and never regenerated: a real vault with a killphrase, a hidden
/// note, a note with its own password, a recovery phrase and a private key, a duress vault set from it and
/// another set from that one. Each password opens exactly what it was made with.
@Suite struct CoercionFixtureTests {
    static let password = "fixture password v1"

    func openFixture(_ password: String) throws -> OpenVault {
        let dir = try TemporaryDirectory()
        let url = try #require(Bundle.module.url(forResource: "Fixtures/coercion-v1/vault", withExtension: "pbx"))
        try FileManager.default.copyItem(at: url, to: dir.file("vault.pbx"))
        return try VaultStore(directory: dir.path, clock: FakeClock()).unlock(password: password)
    }

    @Test func theBytesNeverChange() throws {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/coercion-v1/vault", withExtension: "pbx"))
        let bytes = Array(try Data(contentsOf: url))
        #expect(bytes.count == 128 + 16 * 1_048_576)
        #expect(Hex.string(Hash.sha256(bytes)) == "d33d205f68257a05ea7d4524e264153c96b412161fd35a24363ccd23d8af9e6e")
    }

    @Test func theRealVaultOpensWithItsPhrasesAndSealedItems() throws {
        let real = try openFixture(Self.password)
        let vault = real.vault
        #expect(vault.items.map(\.title).sorted() == ["Burnable login", "Cold wallet", "Everyday mail", "Paper key", "Protected note"])
        #expect(vault.hiddenItems.map(\.title) == ["Hidden note"])
        #expect(vault.hiddenMatches("  SAFE house Address ").map(\.notes) == ["The key is under the third stone."])
        #expect(vault.hiddenMatches("safe house").isEmpty)
        let burnable = try #require(vault.items.first { $0.title == "Burnable login" })
        #expect(vault.killphraseMatches("Burn This One") == [burnable.id])
        #expect(vault.killphraseMatches("safe house address").isEmpty)
        #expect(burnable.value(of: "password") == "secret-pw-1")

        let note = try #require(vault.items.first { $0.title == "Protected note" })
        #expect(note.fields.isEmpty && note.notes.isEmpty && note.sealed?.kdf == ItemSeal.parameters)
        #expect(try ItemSeal.open(note, password: VaultStore.passwordBytes("note password v1")).notes == "The plan, in full.")
        #expect(throws: VaultError.wrongItemPassword) { try ItemSeal.open(note, password: VaultStore.passwordBytes("note password v2")) }

        let wallet = try #require(vault.items.first { $0.title == "Cold wallet" })
        let words = try ItemSeal.open(wallet, password: VaultStore.passwordBytes("phrase password v1"))
        #expect(words.value(of: "phrase") == "legal winner thank year wave sausage worth useful legal winner thank yellow")
        #expect(words.value(of: "wallet") == "Hardware")
        #expect(RecoveryPhraseCheck.check(words.value(of: "phrase") ?? "") == .valid(kind: "bip39"))

        let key = try #require(vault.items.first { $0.title == "Paper key" })
        let opened = try ItemSeal.open(key, password: VaultStore.passwordBytes("key password v1"))
        #expect(opened.value(of: "private-key") == "5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ")
        #expect(PrivateKeyCheck.check(opened.value(of: "private-key") ?? "") == .valid(kind: "wif"))
        // A seal moved onto another item does not open (it is bound to its item's id and category).
        var moved = burnable
        moved.category = .secureNote
        moved.sealed = note.sealed
        #expect(throws: VaultError.wrongItemPassword) { try ItemSeal.open(moved, password: VaultStore.passwordBytes("note password v1")) }
    }

    @Test func theDuressChainOpensLevelByLevelInTheSecretOrder() throws {
        let real = try openFixture(Self.password)
        let first = try openFixture("duress password level 1")
        let second = try openFixture("duress password level 2")
        #expect(first.vault.items.map(\.title) == ["Decoy mail"] && first.vault.hiddenItems.isEmpty)
        #expect(second.vault.items.map(\.title) == ["Level 2 note"])
        #expect(real.vault.slotOrder == first.vault.slotOrder && first.vault.slotOrder == second.vault.slotOrder)
        #expect(real.duressSlotIndex == first.slotIndex && first.duressSlotIndex == second.slotIndex)
        #expect(Set([real.slotIndex, first.slotIndex, second.slotIndex]).count == 3)
        #expect(first.vault.keyrings.killphrase != real.vault.keyrings.killphrase, "every vault has keys of its own")
        #expect(throws: StoreError.wrongPassword) { try openFixture("duress password level 3") }
    }
}
