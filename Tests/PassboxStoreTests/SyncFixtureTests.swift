import Foundation
import PassboxCore
import PassboxCrypto
import PassboxStore
import PassboxTestKit
import Testing

/// An account's vault with vaults and sync state, pinned by a data directory that `passbox signup`, `add`,
/// `sync`, `vault create`, `add --vault`, `sync` and `edit` wrote once against a `passbox server` (master
/// password "tulip ocean marble violin anchor"; docs/FORMATS.md "Payload": vaults, `syncBase`, `sync`).
@Suite struct SyncFixtureTests {
    static let path = "Fixtures/account-vault-sync-v1"

    func dataDirectory() throws -> TemporaryDirectory {
        let record = try #require(Bundle.module.url(forResource: Self.path + "/account", withExtension: "json"))
        let vault = try #require(Bundle.module.url(forResource: Self.path + "/accounts/GP7GGG/vault", withExtension: "pbx"))
        let dir = try TemporaryDirectory()
        try FileManager.default.copyItem(at: record, to: dir.file("account.json"))
        try FileManager.default.createDirectory(at: dir.file("accounts/GP7GGG"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.copyItem(at: vault, to: dir.file("accounts/GP7GGG/vault.pbx"))
        return dir
    }

    @Test func theBytesNeverChange() throws {
        let vault = try #require(Bundle.module.url(forResource: Self.path + "/accounts/GP7GGG/vault", withExtension: "pbx"))
        #expect(Hex.string(Hash.sha256(Array(try Data(contentsOf: vault)))) == "c2cd3906949831fe0cad1625d6f9c0db6873335c9f5fe5d967de07de05ec247b")
    }

    @Test func itOpensWithItsVaultsItemsAndSyncState() throws {
        let dir = try dataDirectory()
        let vault = try VaultStore.serving(dir.path).unlock(password: AccountVaultFixtureTests.password).vault
        #expect(vault.vaults.map(\.name) == ["Personal", "Work"])
        let work = try #require(vault.vaults.last)
        #expect(work.icon == .briefcase && work.colour == .green)
        #expect(vault.vaults[0].shownIcon(isFirst: true) == .house && vault.vaults[0].shownColour(isFirst: true) == .blue)
        let login = try #require(vault.items.first { $0.title == "Synced login" })
        let note = try #require(vault.items.first { $0.title == "Work note" })
        #expect(login.vaultID == vault.vaults[0].id && note.vaultID == work.id)
        #expect(note.notes == "a note in the work vault" && !note.syncPending)
        #expect(note.syncBase?.vaultID == work.id && note.syncBase?.hash.count == 32 && note.syncBase?.ancestor == nil)
        // Edited after its last sync: waiting to be pushed, with what it was as synced kept for a merge.
        #expect(login.username == "fixture2" && login.syncPending)
        #expect(login.syncBase?.ancestor?.username == "fixture" && login.syncAncestor?.username == "fixture")
        #expect(login.history.count == 1)
        let state = try #require(vault.sync)
        #expect(state.v == 1 && state.accountID == "GP7GGG")
        #expect(state.signSeed.count == 32 && state.wrapKey.count == 32 && state.signPublicKey.count == 32)
        #expect(Set(state.vaults.keys) == Set(vault.vaults.map(\.id)))
        #expect(state.vaults.values.allSatisfy { $0.key.count == 32 && $0.manifestVersion >= 1 && $0.manifestHash.count == 32 && !$0.metaPending })
        #expect(state.lastSync != nil && state.lastFailure == nil)
        // Packed again, it reads back the same.
        let again = try vault.packed().withUnsafeBytes { try Vault(unpacking: $0) }
        #expect(again == vault)
    }
}
