import Foundation
import PassboxCore
import PassboxCrypto
import PassboxStore
import PassboxStoreFakes
import PassboxTestKit
import Testing

let cheapKDF = Argon2Parameters(memoryKiB: 64, passes: 1, lanes: 1)
let password = "correct horse battery"

func makeVault(_ dir: TemporaryDirectory, items: Int = 3, clock: UnlockClock = SystemClock()) throws -> (VaultStore, OpenVault) {
    let store = VaultStore(directory: dir.path, clock: clock)
    let opened = try store.create(password: password, parameters: cheapKDF)
    var vault = opened.vault
    for i in 0..<items {
        var item = Item(category: .login, title: "Secret title \(i)", websites: ["https://secret-site-\(i).example"])
        item.setValue("secret-user-\(i)", for: "username")
        item.setValue("secret-password-\(i)", for: "password")
        item.notes = "secret note \(i)"
        try vault.add(item, now: Date(timeIntervalSince1970: 1_800_000_000))
    }
    try opened.save(vault)
    return (store, opened)
}

/// Unlocks after clearing the attempt counter, for tests that try many damaged files in a row; on a test
/// clock, so the unlock deadline (held on the real one, and raised by any slow attempt on a busy machine) is
/// not slept out a few hundred times.
func unlockForgettingAttempts(_ dir: TemporaryDirectory) throws -> OpenVault {
    try? FileManager.default.removeItem(atPath: dir.path + "/attempts")
    return try VaultStore(directory: dir.path, clock: FakeClock()).unlock(password: password)
}

func fileBytes(_ store: VaultStore) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: store.vaultPath))) }

@Suite struct SlotFileTests {
    @Test func createdVaultOpensWithItsPassword() throws {
        let dir = try TemporaryDirectory()
        let (store, opened) = try makeVault(dir)
        let again = try unlockForgettingAttempts(dir)
        #expect(again.vault == opened.vault)
        #expect(again.vault.items.count == 3)
        #expect(again.kdfParameters == cheapKDF)
        _ = store
    }

    @Test func filesAndDirectoryArePrivate() throws {
        let dir = try TemporaryDirectory()
        let sub = dir.path + "/data"
        _ = try VaultStore(directory: sub).create(password: password, parameters: cheapKDF)
        let attributes = try FileManager.default.attributesOfItem(atPath: sub)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        for name in ["vault.pbx", "attempts", "unlock-timing"] {
            let mode = try FileManager.default.attributesOfItem(atPath: sub + "/" + name)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(name)")
        }
    }

    @Test func wrongPasswordOpensNoSlot() throws {
        let dir = try TemporaryDirectory()
        let (store, _) = try makeVault(dir)
        #expect(throws: StoreError.wrongPassword) { try store.unlock(password: "not the password") }
    }

    @Test func passwordIsNormalisedToNFC() throws {
        let dir = try TemporaryDirectory()
        let store = VaultStore(directory: dir.path)
        _ = try store.create(password: "caf\u{e9} au lait", parameters: cheapKDF)
        #expect(try store.unlock(password: "cafe\u{301} au lait").vault.items.isEmpty)
    }

    @Test func sizesAreEqualWhateverTheContents() throws {
        let a = try TemporaryDirectory()
        let b = try TemporaryDirectory()
        let (storeA, _) = try makeVault(a, items: 0)
        let (storeB, _) = try makeVault(b, items: 300)
        #expect(try fileBytes(storeA).count == 128 + 16 * (1 << 20))
        #expect(try fileBytes(storeA).count == (try fileBytes(storeB)).count)
    }

    @Test func fileContainsNoPlaintext() throws {
        let dir = try TemporaryDirectory()
        let (store, _) = try makeVault(dir)
        let bytes = Data(try fileBytes(store))
        // Foundation's search, not the generic Collection.contains, which a debug build runs for 24 s over 16 MiB.
        for needle in ["Secret title", "secret-user", "secret-site", "secret-password", "secret note", "login"] {
            #expect(bytes.range(of: Data(needle.utf8)) == nil, "\(needle)")
        }
    }

    @Test func everyHeaderByteIsBound() throws {
        let dir = try TemporaryDirectory()
        let (store, _) = try makeVault(dir, items: 1)
        let original = try fileBytes(store)
        for offset in 0..<128 where !(12..<16).contains(offset) {
            var copy = original
            copy[offset] ^= 0x01
            try Data(copy).write(to: URL(fileURLWithPath: store.vaultPath))
            #expect(throws: StoreError.self, "header byte \(offset)") { _ = try unlockForgettingAttempts(dir) }
        }
        // The slot-size field is excluded from the associated data (so growth keeps other slots valid) but a
        // changed value no longer matches the file's length or is not a power of two: refused as well.
        for offset in 12..<16 {
            var copy = original
            copy[offset] ^= 0x01
            try Data(copy).write(to: URL(fileURLWithPath: store.vaultPath))
            #expect(throws: StoreError.self, "header byte \(offset)") { _ = try unlockForgettingAttempts(dir) }
        }
        try Data(original).write(to: URL(fileURLWithPath: store.vaultPath))
        #expect(try unlockForgettingAttempts(dir).vault.items.count == 1)
    }

    @Test func flippedSlotBytesStopTheSlotOpening() throws {
        let dir = try TemporaryDirectory()
        let (store, opened) = try makeVault(dir, items: 1)
        let slotSize = 1 << 20
        // Our slot is the one a save rewrites (each save gives it a new nonce): every flip in it stops the
        // vault opening; a flip in any other slot changes nothing (three places in each, at its start, middle
        // and end, which keeps the test to 58 unlocks instead of 208).
        let before = try fileBytes(store)
        try opened.save(opened.vault)
        let original = try fileBytes(store)
        let changed = (0..<16).filter { slot in
            let range = (128 + slot * slotSize)..<(128 + (slot + 1) * slotSize)
            return before[range] != original[range]
        }
        try #require(changed.count == 1, "a save rewrote slots \(changed)")
        let ours = changed[0]
        let offsets = [0, 17, 31, 32, 33, 60, 128, 129, 130, 200, 5000, slotSize / 2, slotSize - 1]
        func opens(slot: Int, offset: Int) throws -> Bool {
            var copy = original
            copy[128 + slot * slotSize + offset] ^= 0x80
            try Data(copy).write(to: URL(fileURLWithPath: store.vaultPath))
            return (try? unlockForgettingAttempts(dir)) != nil
        }
        for offset in offsets { #expect(try !opens(slot: ours, offset: offset), "a flip at \(offset) of our slot") }
        for slot in 0..<16 where slot != ours {
            for offset in [0, 130, slotSize / 2, slotSize - 1] { #expect(try opens(slot: slot, offset: offset), "a flip at \(offset) of slot \(slot)") }
        }
    }

    @Test func swappedSlotsOpenNothing() throws {
        let dir = try TemporaryDirectory()
        let (store, _) = try makeVault(dir, items: 1)
        let original = try fileBytes(store)
        let slotSize = 1 << 20
        let own = try (0..<16).first { slot in
            var copy = original
            copy[128 + slot * slotSize + 40] ^= 1
            try Data(copy).write(to: URL(fileURLWithPath: store.vaultPath))
            return (try? VaultStore(directory: dir.path).unlock(password: password)) == nil
        }
        let ownSlot = try #require(own)
        let other = (ownSlot + 1) % 16
        var swapped = original
        let a = 128 + ownSlot * slotSize
        let b = 128 + other * slotSize
        swapped.replaceSubrange(a..<(a + slotSize), with: original[b..<(b + slotSize)])
        swapped.replaceSubrange(b..<(b + slotSize), with: original[a..<(a + slotSize)])
        try Data(swapped).write(to: URL(fileURLWithPath: store.vaultPath))
        #expect(throws: StoreError.wrongPassword) { try unlockForgettingAttempts(dir) }
    }

    @Test func truncatedForeignEmptyAndNewerFilesAreRefusedAndLeftAlone() throws {
        let dir = try TemporaryDirectory()
        let (store, _) = try makeVault(dir, items: 1)
        let original = try fileBytes(store)
        let url = URL(fileURLWithPath: store.vaultPath)

        try Data(original.prefix(original.count - 1)).write(to: url)
        #expect(throws: StoreError.self) { try unlockForgettingAttempts(dir) }
        #expect(try fileBytes(store).count == original.count - 1)

        try Data("just some text file, not a vault".utf8).write(to: url)
        #expect(throws: StoreError.notAVault(path: store.vaultPath)) { try unlockForgettingAttempts(dir) }

        try Data().write(to: url)
        #expect(throws: StoreError.damaged(path: store.vaultPath, reason: "the file is empty")) { try unlockForgettingAttempts(dir) }

        var newer = original
        newer[9] = 4  // 3 is an account's one-slot file (issue 30); 4 is newer than this build
        try Data(newer).write(to: url)
        #expect(throws: StoreError.newerFormat(version: 4)) { try unlockForgettingAttempts(dir) }
        #expect(try fileBytes(store) == newer)
    }

    @Test func outOfRangeKDFIsRefusedBeforeDeriving() throws {
        let dir = try TemporaryDirectory()
        let (store, _) = try makeVault(dir, items: 0)
        var bytes = try fileBytes(store)
        bytes[22...25] = [0, 0, 1, 0]  // 256 passes
        try Data(bytes).write(to: URL(fileURLWithPath: store.vaultPath))
        let fresh = VaultStore(directory: dir.path)
        #expect(throws: StoreError.self) { try fresh.unlock(password: password) }
        #expect(fresh.lastWork.derivations == 0)
    }

    /// A header edited to ask for more than `init` can choose (4 GiB × 128 passes, 2 GiB, 1 GiB × 32 passes)
    /// is refused as damaged at once, with the right password or a wrong one, and the file is left as it was.
    @Test(arguments: [(4 << 20, 128), (2 << 20, 1), (1 << 20, 32), (512 << 10, 128)] as [(Int, Int)])
    func aHeaderAskingForMoreThanInitCanChooseIsDamagedAndNothingIsDerived(memoryKiB: Int, passes: Int) throws {
        let dir = try TemporaryDirectory()
        let (store, _) = try makeVault(dir, items: 1)
        var bytes = try fileBytes(store)
        bytes.replaceSubrange(18..<22, with: withUnsafeBytes(of: UInt32(memoryKiB).bigEndian, Array.init))
        bytes.replaceSubrange(22..<26, with: withUnsafeBytes(of: UInt32(passes).bigEndian, Array.init))
        try Data(bytes).write(to: URL(fileURLWithPath: store.vaultPath))
        for attempt in [password, "not the password"] {
            let fresh = VaultStore(directory: dir.path)
            do {
                _ = try fresh.unlock(password: attempt)
                Issue.record("an out-of-range header opened")
            } catch let StoreError.damaged(_, reason) {
                #expect(reason.contains("key-derivation parameters"))
            }
            #expect(fresh.lastWork.derivations == 0)
        }
        #expect(try fileBytes(store) == bytes)
    }

    /// The largest parameters `init` can choose are still accepted.
    @Test func theLargestParametersInitCanChooseAreAccepted() {
        #expect(KDFLimits.initCanChoose(Argon2Parameters(memoryKiB: 1 << 20, passes: 16, lanes: 4)))
        #expect(KDFLimits.initCanChoose(Argon2Parameters(memoryKiB: 64 << 10, passes: 128, lanes: 1)))
        #expect(!KDFLimits.initCanChoose(Argon2Parameters(memoryKiB: 1 << 20, passes: 17, lanes: 4)))
        // An account's vault keeps the account's parameters in its header (up to 4 GiB): still a valid header.
        #expect(KDFLimits.accepts(Argon2Parameters(memoryKiB: 4 << 20, passes: 64, lanes: 4)))
    }
}
