import Foundation
import PassboxCore
import PassboxCrypto
import PassboxStore
import PassboxTestKit
import Testing

/// An account's vault on a device, pinned by a data directory `passbox signup` and `passbox add` wrote once
/// (master password "tulip ocean marble violin anchor"; docs/FORMATS.md).
@Suite struct AccountVaultFixtureTests {
    static let password = "tulip ocean marble violin anchor"

    /// A copy of the fixture's data directory: `account.json` and `accounts/7H856J/vault.pbx` (`account-vault-v1`,
    /// sixteen slots; or `account-vault-one-slot`, the same vault after one save by issue 30's build).
    func dataDirectory(_ fixture: String = "account-vault-v1") throws -> TemporaryDirectory {
        let record = try #require(Bundle.module.url(forResource: "Fixtures/\(fixture)/account", withExtension: "json"))
        let vault = try #require(Bundle.module.url(forResource: "Fixtures/\(fixture)/accounts/7H856J/vault", withExtension: "pbx"))
        let dir = try TemporaryDirectory()
        try FileManager.default.copyItem(at: record, to: dir.file("account.json"))
        try FileManager.default.createDirectory(at: dir.file("accounts/7H856J"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.copyItem(at: vault, to: dir.file("accounts/7H856J/vault.pbx"))
        return dir
    }

    @Test func theBytesNeverChange() throws {
        let vault = try #require(Bundle.module.url(forResource: "Fixtures/account-vault-v1/accounts/7H856J/vault", withExtension: "pbx"))
        #expect(Hex.string(Hash.sha256(Array(try Data(contentsOf: vault)))) == "f8fe859b2274d019b9c1ef38eeb9420be63d36ce9aa2c9da5d515a0760e91b66")
    }

    /// The one-slot file (4,224 bytes instead of 16 MiB and 128) made once from the sixteen-slot fixture by
    /// this build's first save: its bytes, its header, and the same vault behind the same master password.
    @Test func theOneSlotFileOfTheSameAccountOpens() throws {
        let vault = try #require(Bundle.module.url(forResource: "Fixtures/account-vault-one-slot/accounts/7H856J/vault", withExtension: "pbx"))
        let bytes = Array(try Data(contentsOf: vault))
        #expect(Hex.string(Hash.sha256(bytes)) == "a5508512e7cc3440c825fb1972dfb2bf480f5fafd84cf24561991d4d2094c4ba")
        let header = try VaultHeader.decode(Array(bytes.prefix(VaultHeader.length)), path: vault.path)
        #expect(header.slotCount == 1 && header.slotSize == 4096 && header.formatVersion == 3 && bytes.count == 4224)
        let dir = try dataDirectory("account-vault-one-slot")
        let opened = try VaultStore.serving(dir.path).unlock(password: Self.password).vault
        #expect(opened.list().map(\.title) == ["Fixture login"])
        #expect(opened.items.first?.password == "fixture login password 1")
        #expect(throws: StoreError.wrongPassword) { try VaultStore.serving(dir.path).unlock(password: Self.password + "s") }
    }

    @Test func theMasterPasswordOpensItThroughTheKeptKeyset() throws {
        let dir = try dataDirectory()
        let store = VaultStore.serving(dir.path)
        #expect(store.isAccountVault)
        #expect(store.vaultPath == dir.path + "/accounts/7H856J/vault.pbx")
        let vault = try store.unlock(password: Self.password).vault
        #expect(vault.list().map(\.title) == ["Fixture login"])
        let login = try #require(vault.items.first)
        #expect(login.username == "fixture")
        #expect(login.password == "fixture login password 1")
    }

    @Test func otherPasswordsAndTheLocalDerivationOpenNothing() throws {
        let dir = try dataDirectory()
        #expect(throws: StoreError.wrongPassword) { try VaultStore.serving(dir.path).unlock(password: Self.password + "s") }
        // The same file read as a local vault (Argon2id of the password with the header's salt) does not open.
        #expect(throws: StoreError.wrongPassword) { try VaultStore(directory: dir.path + "/accounts/7H856J").unlock(password: Self.password) }
        #expect(throws: StoreError.accountVaultPassword) { try VaultStore.serving(dir.path).changePassword(current: Self.password, new: "another long password 7") }
    }

    @Test func signedOutTheLocalVaultIsServedAgain() throws {
        let dir = try dataDirectory()
        try AccountRecord.remove(dir.path)
        let store = VaultStore.serving(dir.path)
        #expect(!store.isAccountVault)
        #expect(store.vaultPath == dir.path + "/vault.pbx")
    }
}
