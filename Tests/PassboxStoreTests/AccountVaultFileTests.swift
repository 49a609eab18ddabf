import Foundation
import PassboxCore
import PassboxCrypto
import PassboxStore
import PassboxTestKit
import Testing

/// An account's vault lives in a one-slot file sized to it (issue 30): made so at sign-in, and moved there
/// from the sixteen-slot file earlier builds made at its next save. The account's master password opens it
/// through the kept keyset (the fixture's, "tulip ocean marble violin anchor", Argon2id at 128 MiB).
@Suite struct AccountVaultFileTests {
    static let password = AccountVaultFixtureTests.password
    static let when = Date(timeIntervalSince1970: 1_800_000_000)

    func header(_ store: VaultStore) throws -> VaultHeader {
        try VaultHeader.decode(Array(try fileBytes(store).prefix(VaultHeader.length)), path: store.vaultPath)
    }

    func masterPassword() -> SecretBytes { VaultStore.passwordBytes(Self.password) }

    func login(_ title: String) -> Item {
        var item = Item(category: .login, title: title, websites: ["https://\(title.lowercased().replacingOccurrences(of: " ", with: "-")).example"])
        item.setValue("user of \(title)", for: "username")
        item.setValue("password of \(title)", for: "password")
        return item
    }

    /// Nothing but the vault file is left beside it: no temporary copy, no journal.
    func leftovers(_ store: VaultStore) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: store.directory).filter { $0.hasPrefix("vault.pbx") && $0 != "vault.pbx" }
    }

    @Test func anAccountsNewVaultHasOneSlotSizedToIt() throws {
        let dir = try AccountVaultFixtureTests().dataDirectory()
        let store = VaultStore.serving(dir.path)
        try FileManager.default.removeItem(atPath: store.vaultPath)
        let opened = try store.createAccountVault(password: masterPassword())
        let made = try header(store)
        #expect(made.slotCount == 1)
        #expect(made.slotSize % VaultHeader.singleSlotGranule == 0)
        #expect(made.slotSize <= 8 << 10, "an empty vault takes a page or two, not a mebibyte")
        #expect(try fileBytes(store).count == VaultHeader.length + made.slotSize)

        var vault = opened.vault
        for i in 0..<3000 { try vault.add(login("Site \(i)"), now: Self.when) }
        try opened.save(vault)
        let grown = try header(store)
        #expect(grown.slotCount == 1)
        #expect(grown.slotSize > made.slotSize && grown.slotSize % VaultHeader.singleSlotGranule == 0)
        #expect(try fileBytes(store).count == VaultHeader.length + grown.slotSize)
        #expect(grown.salt == made.salt && grown.kdf == made.kdf)
        #expect(try leftovers(store).isEmpty)

        let reopened = try VaultStore.serving(dir.path).unlock(password: Self.password)
        #expect(reopened.vault.items.count == 3000)
        #expect(reopened.vault.items.last?.password == "password of Site 2999")
        #expect(throws: StoreError.wrongPassword) { try VaultStore.serving(dir.path).unlock(password: Self.password + "!") }
    }

    @Test func aSixteenSlotAccountVaultMovesIntoOneSlotAtItsNextSave() throws {
        let dir = try AccountVaultFixtureTests().dataDirectory()
        let store = VaultStore.serving(dir.path)
        let before = try header(store)
        #expect(before.slotCount == 16)
        let opened = try store.unlock(password: Self.password)
        var vault = opened.vault
        let added = try vault.add(login("After the move"), now: Self.when)
        try opened.save(vault, changedItemIDs: [added.id])

        let after = try header(store)
        #expect(after.slotCount == 1)
        #expect(after.salt == before.salt && after.kdf == before.kdf && after.formatVersion == 3)
        #expect(try fileBytes(store).count == VaultHeader.length + after.slotSize)
        #expect(after.slotSize < 1 << 20, "16 MiB and 128 bytes became a few pages")
        #expect(try leftovers(store).isEmpty)
        let moved = try VaultStore.serving(dir.path).unlock(password: Self.password)
        #expect(Set(moved.vault.items.map(\.title)) == ["Fixture login", "After the move"])
        #expect(moved.vault.items.first { $0.title == "Fixture login" }?.password == "fixture login password 1")

        // The vault that moved goes on saving into its one slot, from the same process and from a fresh unlock.
        var again = opened.vault
        _ = try again.update(id: added.id, now: Self.when) { $0.notes = "edited after the move" }
        try opened.save(again, changedItemIDs: [added.id])
        var fromFresh = try VaultStore.serving(dir.path).unlock(password: Self.password)
        #expect(fromFresh.vault.items.first { $0.id == added.id }?.notes == "edited after the move")
        var third = fromFresh.vault
        _ = try third.add(login("Third"), now: Self.when)
        try fromFresh.save(third)
        fromFresh = try VaultStore.serving(dir.path).unlock(password: Self.password)
        #expect(fromFresh.vault.items.count == 3)
        #expect(try header(store).slotCount == 1)
    }

    /// Another process that loaded the sixteen-slot file cannot write over the file it was moved to: its save
    /// is a conflict, and the moved vault stays as it is.
    @Test func aSaveFromBeforeTheMoveIsAConflict() throws {
        let dir = try AccountVaultFixtureTests().dataDirectory()
        let first = try VaultStore.serving(dir.path).unlock(password: Self.password)
        let second = try VaultStore.serving(dir.path).unlock(password: Self.password)
        var moving = first.vault
        _ = try moving.add(login("Saved first"), now: Self.when)
        try first.save(moving)
        let moved = try fileBytes(VaultStore.serving(dir.path))

        var late = second.vault
        _ = try late.add(login("Saved late"), now: Self.when)
        #expect(throws: StoreError.conflict) { try second.save(late) }
        #expect(try fileBytes(VaultStore.serving(dir.path)) == moved)
    }

    /// A one-slot file that is truncated, lengthened or has a flipped byte does not open, says so, and is left
    /// as it was.
    @Test func aDamagedOneSlotFileIsRefusedAndLeftAlone() throws {
        let dir = try AccountVaultFixtureTests().dataDirectory()
        let store = VaultStore.serving(dir.path)
        let opened = try store.unlock(password: Self.password)
        try opened.save(opened.vault)
        let good = try fileBytes(store)
        let url = URL(fileURLWithPath: store.vaultPath)
        let damaged: [[UInt8]] = [
            Array(good.dropLast()), good + [0],
            { var b = good; b[b.count - 1] ^= 1; return b }(),  // the body's tag
            { var b = good; b[VaultHeader.length + 80] ^= 1; return b }(),  // the key box
            { var b = good; b[11] = 16; return b }(),  // claims sixteen slots
        ]
        for bytes in damaged {
            try Data(bytes).write(to: url)
            try? FileManager.default.removeItem(atPath: store.directory + "/attempts")
            #expect(throws: StoreError.self) { try VaultStore.serving(dir.path).unlock(password: Self.password) }
            #expect(try fileBytes(store) == bytes)
        }
        try Data(good).write(to: url)
        try? FileManager.default.removeItem(atPath: store.directory + "/attempts")
        #expect(try VaultStore.serving(dir.path).unlock(password: Self.password).vault.items.count == 1)
    }

    /// One slot is format 3, and format 3 is one slot: a build from before reads it as a newer format
    /// ("needs a newer Passbox"), not as damage.
    @Test func aOneSlotHeaderIsFormatThreeInWholePages() throws {
        let salt = [UInt8](repeating: 7, count: 32)
        let one = VaultHeader(slotSize: 3 * 4096, kdf: cheapKDF, salt: salt, formatVersion: 3, slotCount: 1)
        #expect(try VaultHeader.decode(one.encoded(), path: "v") == one)
        #expect(one.fileSize == 128 + 3 * 4096)
        func refused(_ edit: (inout [UInt8]) -> Void) -> Bool {
            var bytes = one.encoded()
            edit(&bytes)
            return (try? VaultHeader.decode(bytes, path: "v")) == nil
        }
        #expect(refused { $0[9] = 1 }, "format 1 never had one slot")
        #expect(refused { $0[9] = 2 }, "nor format 2")
        #expect(refused { $0[11] = 16; $0[12...15] = [0, 0x10, 0, 0] }, "format 3 has one slot, not sixteen")
        #expect(refused { $0[11] = 2 }, "two slots")
        #expect(refused { $0[12...15] = [0, 0, 0x2F, 0xFF] }, "not whole pages")
        #expect(refused { $0[12...15] = [0, 0, 0, 0] }, "no slot")
        #expect(refused { $0[12...15] = [0x40, 0, 0x10, 0] }, "over 1 GiB")
        #expect(refused { $0[11] = 16 }, "sixteen slots of 12 KiB")
        #expect(VaultHeader.singleSlotSize(forCompressedLength: 0) == 4096)
        #expect(VaultHeader.singleSlotSize(forCompressedLength: 4096 - 184) == 4096)
        #expect(VaultHeader.singleSlotSize(forCompressedLength: 4096 - 183) == 8192)
    }

    /// An account's one-slot file put where a local vault is expected is refused before any key is derived,
    /// and left as it was (a local vault's duress, phrases and slot layout need sixteen slots).
    @Test func aOneSlotFileIsNoLocalVault() throws {
        let dir = try AccountVaultFixtureTests().dataDirectory()
        let opened = try VaultStore.serving(dir.path).unlock(password: Self.password)
        try opened.save(opened.vault)
        let local = try TemporaryDirectory()
        try FileManager.default.copyItem(atPath: dir.path + "/accounts/7H856J/vault.pbx", toPath: local.path + "/vault.pbx")
        let before = try Data(contentsOf: URL(fileURLWithPath: local.path + "/vault.pbx"))
        let store = VaultStore(directory: local.path)
        #expect(throws: StoreError.damaged(path: store.vaultPath, reason: "it is an account's vault file (one slot), not a local vault")) {
            try store.unlock(password: Self.password)
        }
        #expect(store.lastWork.derivations == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.vaultPath)) == before)
    }
}
