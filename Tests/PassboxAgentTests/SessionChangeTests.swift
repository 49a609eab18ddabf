import Foundation
import PassboxCore
import PassboxCrypto
import PassboxProtocol
import PassboxService
import PassboxStore
import PassboxStoreFakes
import PassboxTestKit
import Testing

/// A change through the session is made in place on the vault lent by the open vault (no copy of every
/// item); when the change or its save fails, the session's vault is the saved one again, the file is as it
/// was, and the next change saves normally.
@Suite struct SessionChangeTests {
    static let password = "correct horse battery"
    static let kdf = Argon2Parameters(memoryKiB: 64, passes: 1, lanes: 1)
    static let groupSize = 1024

    /// A data directory whose vault holds `count` items, saved in the chunked layout.
    func vaultWith(_ dir: TemporaryDirectory, items count: Int) throws -> Vault {
        let opened = try VaultStore(directory: dir.path).create(password: Self.password, parameters: Self.kdf)
        var vault = opened.vault
        for i in 0..<count {
            var item = Item(category: .login, title: "Item \(i)")
            item.setValue("user-\(i)", for: "username")
            try vault.add(item, now: Date(timeIntervalSince1970: 1_800_000_000))
        }
        try opened.save(vault)
        return opened.vault
    }

    @Test func aFailedSavePutsBackTheSavedVault() throws {
        let dir = try TemporaryDirectory()
        let saved = try vaultWith(dir, items: 2 * Self.groupSize + 10)
        let fileBefore = try Data(contentsOf: URL(fileURLWithPath: dir.path + "/vault.pbx"))
        // Every save through this store dies with a half-written journal.
        let faulty = VaultStore(directory: dir.path, fileSystem: FaultyFileSystem(crashAt: .journalPartialWrite))
        let session = try VaultSession(opened: try faulty.unlock(password: Self.password), dataDirectory: dir.path)
        #expect(throws: (any Error).self) {
            try session.perform(.add(AddRequest(category: "login", changes: ItemChanges(title: "Never saved"))))
        }
        #expect(session.vault == saved)
        #expect(!session.isUnusable)
        // An edit fails the same way; reads still answer from the restored vault.
        #expect(throws: (any Error).self) {
            try session.perform(.edit(EditRequest(item: "Item 7", changes: ItemChanges(title: "Renamed"))))
        }
        #expect(session.vault == saved)
        let found = try session.perform(.search(SearchRequest(query: "Item 2000", scope: nil, limit: 5))).items()
        #expect(found.items.first?.title == "Item 2000")
        // The file opens to the saved vault (the torn journal is discarded), and a working store saves again.
        let reopened = try VaultStore(directory: dir.path).unlock(password: Self.password)
        #expect(reopened.vault == saved)
        let healthy = try VaultSession(opened: reopened, dataDirectory: dir.path)
        _ = try healthy.perform(.add(AddRequest(category: "login", changes: ItemChanges(title: "Saved now"))))
        #expect(try VaultStore(directory: dir.path).unlock(password: Self.password).vault.items.count == saved.items.count + 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.path + "/vault.pbx")) != fileBefore)
    }

    @Test func aChangeThatThrowsLeavesTheVaultAsItWas() throws {
        let dir = try TemporaryDirectory()
        let saved = try vaultWith(dir, items: Self.groupSize + 3)
        let session = try VaultSession(opened: try VaultStore(directory: dir.path).unlock(password: Self.password), dataDirectory: dir.path)
        // Adds two items, then fails: nothing of it stays, in memory or on disk.
        #expect(throws: VaultError.self) {
            try session.update(reindexing: { _ in nil }) { vault in
                try vault.add(Item(category: .login, title: "First"), now: Date())
                try vault.add(Item(category: .login, title: "Second"), now: Date())
                try vault.update(id: "no-such-item", now: Date()) { $0.title = "x" }
            }
        }
        #expect(session.vault == saved)
        #expect(try VaultStore(directory: dir.path).unlock(password: Self.password).vault == saved)
        // The next change is made in place and saved.
        _ = try session.perform(.add(AddRequest(category: "login", changes: ItemChanges(title: "After"))))
        #expect(session.vault.items.count == saved.items.count + 1)
        #expect(try VaultStore(directory: dir.path).unlock(password: Self.password).vault == session.vault)
    }
}
