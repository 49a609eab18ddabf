import Foundation
import PassboxCore
import PassboxCrypto
import PassboxStore
import PassboxStoreFakes
import PassboxTestKit
import Testing

@Suite struct FilesTests {
    func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    /// An existing data directory of ours that others could read or write, or that we could not write, is
    /// tightened to 0700 by create, unlock and save alike.
    @Test(arguments: [0o755, 0o777, 0o500])
    func anExistingDirectoryOfOursIsTightenedTo0700(_ loose: Int) throws {
        let dir = try TemporaryDirectory()
        let data = dir.path + "/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false)
        chmod(data, mode_t(loose))
        let store = VaultStore(directory: data)
        let opened = try store.create(password: password, parameters: cheapKDF)
        #expect(try mode(data) == 0o700)

        chmod(data, mode_t(loose))
        _ = try store.unlock(password: password)
        #expect(try mode(data) == 0o700)

        chmod(data, mode_t(loose))
        var vault = opened.vault
        try vault.add(Item(category: .login, title: "Saved"), now: Date())
        try opened.save(vault)
        #expect(try mode(data) == 0o700)
    }

    /// A vault file someone loosened (0644, 0666) is 0600 again after the next save, whether the save
    /// rewrites one slot in place or the whole file (on 12-01 an in-place save kept the loose mode).
    @Test(arguments: [0o644, 0o666, 0o640])
    func aLooseVaultFileIs0600AfterAnySave(_ loose: Int) throws {
        let dir = try TemporaryDirectory()
        let store = VaultStore(directory: dir.path)
        let opened = try store.create(password: password, parameters: cheapKDF)
        var vault = opened.vault
        let item = try vault.add(Item(category: .login, title: "First"), now: Date())
        try opened.save(vault)
        for step in 0..<3 {
            chmod(store.vaultPath, mode_t(loose))
            #expect(try mode(store.vaultPath) == loose)
            vault = opened.vault
            try vault.update(id: item.id, now: Date()) { $0.notes = "step \(step)" }
            try opened.save(vault, changedItemIDs: [item.id])
            #expect(try mode(store.vaultPath) == 0o600)
        }
        chmod(store.vaultPath, mode_t(loose))
        vault = opened.vault
        try vault.add(Item(category: .login, title: "Second"), now: Date())
        try opened.save(vault)
        #expect(try mode(store.vaultPath) == 0o600)
    }

    /// A data directory that belongs to another user is refused, and left as it was.
    @Test(.enabled(if: geteuid() == 0, "changing a directory's owner needs root"))
    func aDirectoryOfAnotherUserIsRefused() throws {
        let dir = try TemporaryDirectory()
        let data = dir.path + "/data"
        let store = VaultStore(directory: data)
        _ = try store.create(password: password, parameters: cheapKDF)
        let nobody: UInt32 = 65534
        chmod(data, 0o755)
        #expect(chown(data, nobody, nobody) == 0)
        #expect(throws: StoreError.directoryNotOwned(path: data, owner: nobody)) { try store.unlock(password: password) }
        #expect(throws: StoreError.directoryNotOwned(path: data, owner: nobody)) {
            try store.create(password: password, parameters: cheapKDF)
        }
        #expect(try mode(data) == 0o755)
        #expect(try store.attempts.failures() == 0)
    }

    /// A vault file that is a symbolic link stays one: saves in place and growing saves both reach the file
    /// it points to, with the journal and the temporary file made beside that file.
    @Test func aSymbolicLinkToTheVaultIsFollowedOnSave() throws {
        let dir = try TemporaryDirectory()
        let elsewhere = try TemporaryDirectory()
        let (store, opened) = try makeVault(dir, items: 1)
        let target = elsewhere.path + "/vault.pbx"
        try FileManager.default.moveItem(atPath: store.vaultPath, toPath: target)
        try FileManager.default.createSymbolicLink(atPath: store.vaultPath, withDestinationPath: target)

        var vault = opened.vault
        try vault.add(Item(category: .login, title: "Through the link"), now: Date())
        try opened.save(vault)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: store.vaultPath) == target)
        for item in (0..<24).map({ Item(category: .secureNote, title: "Big \($0)", notes: Hex.string(SecureRandom.bytes(count: 48 * 1024))) }) {
            try vault.add(item, now: Date())
        }
        try opened.save(vault)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: store.vaultPath) == target)
        #expect(try FileManager.default.attributesOfItem(atPath: target)[.size] as? Int == 128 + 16 * (2 << 20))
        #expect(try VaultStore(directory: dir.path).unlock(password: password).vault.items.count == 26)
        for folder in [dir.path, elsewhere.path] {
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains(".tmp-") || $0.hasSuffix(".journal") } == [])
        }

        // A crash after the journal was written leaves it beside the target; the next open settles it there.
        let faulty = VaultStore(directory: dir.path, fileSystem: FaultyFileSystem(crashAt: .slotPartialWrite))
        let again = try faulty.unlock(password: password)
        var changed = again.vault
        try changed.add(Item(category: .login, title: "After a crash"), now: Date())
        #expect(throws: FaultyFileSystem.Crash.self) { try again.save(changed) }
        #expect(FileManager.default.fileExists(atPath: target + ".journal"))
        #expect(try VaultStore(directory: dir.path).unlock(password: password).vault.items.count == 27)
        #expect(!FileManager.default.fileExists(atPath: target + ".journal"))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: store.vaultPath) == target)
    }
}
