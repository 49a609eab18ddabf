import Foundation
import PassboxCore
import PassboxCrypto
@testable import PassboxStore
import PassboxStoreFakes
import PassboxTestKit
import Testing

@Suite struct SaveTests {
    func strays(_ dir: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-") }
    }

    func leftovers(_ dir: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-") || $0.hasSuffix(".journal") }
    }

    /// Items big enough (hex of random bytes compresses about two to one) that 24 of them need a 2 MiB slot.
    func bigItems(_ count: Int) -> [Item] {
        (0..<count).map { i in
            Item(category: .secureNote, title: "Big \(i)", notes: Hex.string(SecureRandom.bytes(count: 48 * 1024)))
        }
    }

    /// Each step of both kinds of save: the journaled one in place (same slot size) and the growing one
    /// (a new file renamed over). Whatever step the process dies at, the next open finds the old or the new
    /// vault whole, with the right password, and no journal or temporary file is left behind.
    @Test(arguments: FaultyFileSystem.Step.allCases)
    func crashAtAnyStepLeavesTheOldOrTheNewVault(_ step: FaultyFileSystem.Step) throws {
        let dir = try TemporaryDirectory()
        let (store, _) = try makeVault(dir, items: 2)
        let sizeBefore = try fileBytes(store).count
        let faulty = VaultStore(directory: dir.path, fileSystem: FaultyFileSystem(crashAt: step))
        let opened = try faulty.unlock(password: password)
        var vault = opened.vault
        try vault.add(Item(category: .secureNote, title: "Added during the crash"), now: Date())
        if step.isGrowth {
            for item in bigItems(24) { try vault.add(item, now: Date()) }
        }
        if step == .directorySync {
            // After the commit point (rename, or slot synced and journal removed) a failed sync is not a failure.
            try opened.save(vault)
        } else {
            #expect(throws: FaultyFileSystem.Crash.self) { try opened.save(vault) }
        }
        let reopened = try VaultStore(directory: dir.path).unlock(password: password)
        let titles = Set(reopened.vault.items.map(\.title))
        let old: Set = ["Secret title 0", "Secret title 1"]
        let new = Set(vault.items.map(\.title))
        switch step {
        case .partialWrite, .beforeRename, .journalPartialWrite:
            #expect(titles == old)
        case .directorySync, .journalDirectorySync, .slotPartialWrite, .beforeJournalRemoval:
            #expect(titles == new)
        }
        #expect(try leftovers(dir).isEmpty)
        #expect(try fileBytes(store).count == (step.isGrowth && titles == new ? 128 + 16 * (2 << 20) : sizeBefore))
        // The settled vault saves again as usual.
        var again = reopened.vault
        try again.add(Item(category: .login, title: "After the crash"), now: Date())
        try reopened.save(again)
        #expect(try VaultStore(directory: dir.path).unlock(password: password).vault.items.count == titles.count + 1)
    }

    /// A save of the same slot size writes in place: the file keeps its inode and no temporary file is made.
    @Test func aSaveOfTheSameSizeWritesInPlaceAndAGrowingOneRenames() throws {
        let dir = try TemporaryDirectory()
        let (store, opened) = try makeVault(dir, items: 1)
        func inode() throws -> UInt64 { try #require(FileManager.default.attributesOfItem(atPath: store.vaultPath)[.systemFileNumber] as? UInt64) }
        let first = try inode()
        var vault = opened.vault
        try vault.add(Item(category: .login, title: "In place"), now: Date())
        try opened.save(vault)
        #expect(try inode() == first)
        #expect(try leftovers(dir).isEmpty)
        for item in bigItems(24) { try vault.add(item, now: Date()) }
        try opened.save(vault)
        #expect(try inode() != first)
        #expect(opened.slotSize == 2 << 20)
    }

    /// A journal the crash left complete is written over its slot at the next open (here the slot itself was
    /// never touched); a torn, foreign or garbage journal is only removed, and the old vault opens.
    @Test func aStrayJournalIsSettledAtTheNextOpen() throws {
        let dir = try TemporaryDirectory()
        _ = try makeVault(dir, items: 1)
        let journalPath = dir.path + "/vault.pbx.journal"
        // Make a complete journal: crash right after it is synced, before the slot is written.
        let faulty = VaultStore(directory: dir.path, fileSystem: FaultyFileSystem(crashAt: .journalDirectorySync))
        let opened = try faulty.unlock(password: password)
        var vault = opened.vault
        try vault.add(Item(category: .login, title: "Only in the journal"), now: Date())
        #expect(throws: FaultyFileSystem.Crash.self) { try opened.save(vault) }
        let journal = Array(try Data(contentsOf: URL(fileURLWithPath: journalPath)))
        #expect(journal.count == 64 + (1 << 20) + 32)

        // Torn (any length short of complete), flipped, or garbage: removed, and the old vault opens.
        for broken in [Array(journal.dropLast()), Array(journal.prefix(64 + 4096)), { var j = journal; j[64 + 500] ^= 1; return j }(), Array("junk".utf8), []] {
            try Data(broken).write(to: URL(fileURLWithPath: journalPath))
            #expect(try unlockForgettingAttempts(dir).vault.items.map(\.title) == ["Secret title 0"])
            #expect(!FileManager.default.fileExists(atPath: journalPath))
        }
        // A journal for another file (its header hash differs) is not replayed either.
        var foreign = journal
        foreign[40] ^= 1
        try Data(foreign).write(to: URL(fileURLWithPath: journalPath))
        #expect(try unlockForgettingAttempts(dir).vault.items.map(\.title) == ["Secret title 0"])
        // A journal of a newer version is refused and left for the Passbox that wrote it.
        var newer = journal
        newer[9] = 2
        try Data(newer).write(to: URL(fileURLWithPath: journalPath))
        #expect(throws: StoreError.newerFormat(version: 2)) { try unlockForgettingAttempts(dir) }
        #expect(FileManager.default.fileExists(atPath: journalPath))
        // The complete journal is replayed: the new vault opens, the journal is gone.
        try Data(journal).write(to: URL(fileURLWithPath: journalPath))
        #expect(Set(try unlockForgettingAttempts(dir).vault.items.map(\.title)) == ["Secret title 0", "Only in the journal"])
        #expect(!FileManager.default.fileExists(atPath: journalPath))
    }

    /// The journal's layout, byte for byte (docs/FORMATS.md).
    @Test func theJournalFormatIsAsDocumented() throws {
        let dir = try TemporaryDirectory()
        let (store, _) = try makeVault(dir, items: 1)
        let before = try fileBytes(store)
        let header = Array(before.prefix(128))
        let faulty = VaultStore(directory: dir.path, fileSystem: FaultyFileSystem(crashAt: .beforeJournalRemoval))
        let opened = try faulty.unlock(password: password)
        var vault = opened.vault
        try vault.add(Item(category: .login, title: "Journaled"), now: Date())
        #expect(throws: FaultyFileSystem.Crash.self) { try opened.save(vault) }
        let journal = Array(try Data(contentsOf: dir.file("vault.pbx.journal")))
        let file = try fileBytes(store)
        let slotSize = 1 << 20
        #expect(Array(journal[0..<8]) == Array("PBXJOURN".utf8))
        let index = Int(journal[11])
        #expect(Array(journal[8..<16]) == [0, 1, 0, UInt8(index), 0, 0, 0, 0])
        let offset = 128 + index * slotSize
        // The slot the journal names is the one the save changed.
        #expect((0..<16).filter { before[(128 + $0 * slotSize)..<(128 + ($0 + 1) * slotSize)] != file[(128 + $0 * slotSize)..<(128 + ($0 + 1) * slotSize)] } == [index])
        #expect(Array(journal[16..<24]) == (0..<8).map { UInt8(truncatingIfNeeded: UInt64(offset) >> (56 - 8 * $0)) })
        #expect(Array(journal[24..<32]) == [0, 0, 0, 0, 0, 0x10, 0, 0])
        #expect(Array(journal[32..<64]) == Hash.sha256(header))
        let slot = Array(journal[64..<(64 + slotSize)])
        #expect(slot == Array(file[offset..<(offset + slotSize)]))
        #expect(Array(journal[(64 + slotSize)...]) == Hash.sha256(Array(journal[0..<64]) + Hash.sha256(slot)))
    }

    @Test func strayTemporaryFilesAreRemovedAtOpen() throws {
        let dir = try TemporaryDirectory()
        _ = try makeVault(dir, items: 1)
        try Data("old copy".utf8).write(to: dir.file("vault.pbx.tmp-deadbeef"))
        _ = try VaultStore(directory: dir.path).unlock(password: password)
        #expect(try strays(dir).isEmpty)
    }

    @Test func changingThePasswordWritesOnlyItsSlotWithANewDataKey() throws {
        let dir = try TemporaryDirectory()
        let (store, opened) = try makeVault(dir, items: 2)
        let before = try fileBytes(store)
        let oldDataKey = opened.dataKey
        try opened.changePassword(current: password, new: "a brand new password")
        let after = try fileBytes(store)
        #expect(before.count == after.count)
        #expect(before[0..<128] == after[0..<128])
        let slotSize = 1 << 20
        let changed = (0..<16).filter { slot in
            let r = (128 + slot * slotSize)..<(128 + (slot + 1) * slotSize)
            return before[r] != after[r]
        }
        #expect(changed.count == 1)
        #expect(throws: StoreError.wrongPassword) { try unlockForgettingAttempts(dir) }
        let reopened = try VaultStore(directory: dir.path).unlock(password: "a brand new password")
        #expect(reopened.vault == opened.vault)
        // A new data key, not only a new wrapping: the old key opens nothing any more.
        #expect(!reopened.dataKey.isEqual(to: oldDataKey))
        #expect(reopened.dataKey.isEqual(to: opened.dataKey))
        // A wrong current password changes nothing.
        #expect(throws: StoreError.wrongPassword) { try reopened.changePassword(current: "not it at all", new: "another new one") }
        #expect(try fileBytes(store) == after)
        #expect(throws: StoreError.passwordUnchanged) { try reopened.changePassword(current: "a brand new password", new: "a brand new password") }
    }

    @Test func saveWritesOnlyItsOwnSlot() throws {
        let dir = try TemporaryDirectory()
        let (store, opened) = try makeVault(dir, items: 1)
        let before = try fileBytes(store)
        var vault = opened.vault
        try vault.add(Item(category: .login, title: "Another"), now: Date())
        try opened.save(vault)
        let after = try fileBytes(store)
        let slotSize = 1 << 20
        #expect(before[0..<128] == after[0..<128])
        #expect((0..<16).filter { before[(128 + $0 * slotSize)..<(128 + ($0 + 1) * slotSize)] != after[(128 + $0 * slotSize)..<(128 + ($0 + 1) * slotSize)] }.count == 1)
    }

    @Test func slotSizeDoublesWhenTheVaultOutgrowsItAndOtherSlotsSurvive() throws {
        let dir = try TemporaryDirectory()
        let (store, opened) = try makeVault(dir, items: 0)
        let before = try fileBytes(store)
        var vault = opened.vault
        // Hex of random bytes compresses about two to one: 24 × 96 KiB of it needs a 2 MiB slot.
        for i in 0..<24 {
            let noise = Hex.string(SecureRandom.bytes(count: 48 * 1024))
            try vault.add(Item(category: .secureNote, title: "Big \(i)", notes: noise), now: Date())
        }
        try opened.save(vault)
        let after = try fileBytes(store)
        #expect(opened.slotSize == 2 << 20)
        #expect(after.count == 128 + 16 * (2 << 20))
        // Every other slot keeps its old bytes at the front of its new, larger place.
        let old = 1 << 20
        let new = 2 << 20
        let kept = (0..<16).filter { slot in before[(128 + slot * old)..<(128 + (slot + 1) * old)] == after[(128 + slot * new)..<(128 + slot * new + old)] }
        #expect(kept.count == 15)
        #expect(try VaultStore(directory: dir.path).unlock(password: password).vault.items.count == 24)
    }

    @Test func aSaveFromAStaleCopyIsRefused() throws {
        let dir = try TemporaryDirectory()
        let (store, first) = try makeVault(dir, items: 1)
        let second = try store.unlock(password: password)
        var a = first.vault
        try a.add(Item(category: .login, title: "From A"), now: Date())
        try first.save(a)
        var b = second.vault
        try b.add(Item(category: .login, title: "From B"), now: Date())
        #expect(throws: StoreError.conflict) { try second.save(b) }
        #expect(try store.unlock(password: password).vault.items.map(\.title).contains("From A"))
    }

    @Test func concurrentSavesFromThreadsAreSerialised() async throws {
        let dir = try TemporaryDirectory()
        _ = try makeVault(dir, items: 0)
        // Each task opens, adds, saves; a conflict retries from a fresh open, as the CLI's caller would.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<4 {
                group.addTask {
                    while true {
                        let opened = try unlockForgettingAttempts(dir)
                        var v = opened.vault
                        try v.add(Item(category: .login, title: "Writer \(i)"), now: Date())
                        do { try opened.save(v); return } catch StoreError.conflict { continue }
                    }
                }
            }
            try await group.waitForAll()
        }
        let titles = try unlockForgettingAttempts(dir).vault.items.map(\.title).sorted()
        #expect(titles == ["Writer 0", "Writer 1", "Writer 2", "Writer 3"])
    }
}
