import Foundation
import PassboxCore
import PassboxCrypto
import PassboxStore
import PassboxTestSupport
import Testing

@Suite struct SaveTests {
    func strays(_ dir: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-") }
    }

    @Test(arguments: FaultyFileSystem.Step.allCases)
    func crashAtAnyStepLeavesTheOldOrTheNewVault(_ step: FaultyFileSystem.Step) throws {
        let dir = try TemporaryDirectory()
        _ = try makeVault(dir, items: 2)
        let faulty = VaultStore(directory: dir.path, fileSystem: FaultyFileSystem(crashAt: step))
        let opened = try faulty.unlock(password: password)
        var vault = opened.vault
        try vault.add(Item(category: .secureNote, title: "Added during the crash"), now: Date())
        do { try opened.save(vault) } catch {}
        let reopened = try VaultStore(directory: dir.path).unlock(password: password)
        let titles = Set(reopened.vault.items.map(\.title))
        if step == .directorySync {
            #expect(titles.contains("Added during the crash"))
        } else {
            #expect(titles == ["Secret title 0", "Secret title 1"])
        }
        #expect(try strays(dir).isEmpty)
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
            let noise = SecureRandom.bytes(count: 48 * 1024).map { String(format: "%02x", $0) }.joined()
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
