import Foundation
import PassboxCore
import PassboxCrypto
@testable import PassboxStore
import PassboxStoreFakes
import PassboxTestKit
import Testing

/// Duress vaults (security.md §7; G12–G16), erasing after ten wrong passwords (G18–G20) and Delete All Data
/// (G15), on real files with the store's own code.
@Suite struct DuressTests {
    static func duressPassword(_ level: Int) -> String { "duress password of level \(level)" }
    static func passwordOf(_ level: Int) -> String { level == 0 ? password : duressPassword(level) }

    func slot(_ file: [UInt8], _ index: Int) -> [UInt8] {
        let size = Int(file[12]) << 24 | Int(file[13]) << 16 | Int(file[14]) << 8 | Int(file[15])
        return Array(file[(128 + index * size)..<(128 + (index + 1) * size)])
    }

    func fileBytes(_ dir: TemporaryDirectory) throws -> [UInt8] { Array(try Data(contentsOf: dir.file("vault.pbx"))) }

    /// A real vault with one item, and a chain of `depth` duress vaults, each set from the one before and
    /// given an item of its own. After every set, the header and the slot of every vault up the chain are
    /// byte for byte what they were. Returns the slot of each level.
    func makeChain(_ dir: TemporaryDirectory, depth: Int, clock: FakeClock) throws -> [Int] {
        let (store, real) = try makeVault(dir, items: 1, clock: clock)
        var slots = [real.slotIndex]
        var current = real
        for level in 1...max(depth, 1) where depth > 0 {
            let before = try fileBytes(dir)
            clock.advance(1)
            try current.setDuressPassword(current: VaultStore.passwordBytes(Self.passwordOf(level - 1)), duress: VaultStore.passwordBytes(Self.duressPassword(level)))
            let after = try fileBytes(dir)
            #expect(Array(after[0..<128]) == Array(before[0..<128]), "level \(level): the header changed")
            for (up, index) in slots.enumerated() {
                #expect(slot(after, index) == slot(before, index), "level \(level): the slot of level \(up) changed")
            }
            let opened = try store.unlock(password: Self.duressPassword(level))
            #expect(opened.vault.items.isEmpty, "a new duress vault is empty")
            #expect(!slots.contains(opened.slotIndex))
            #expect(opened.vault.slotOrder == real.vault.slotOrder, "the chain shares the secret order")
            #expect(!opened.vault.keyrings.killphrase.isEmpty && opened.vault.keyrings.killphrase != real.vault.keyrings.killphrase, "keyrings of its own")
            var vault = opened.vault
            try vault.add(Item(category: .secureNote, title: "Level \(level) note"), now: clock.now())
            let beforeSave = try fileBytes(dir)
            try opened.save(vault)
            let afterSave = try fileBytes(dir)
            for index in slots { #expect(slot(afterSave, index) == slot(beforeSave, index), "a duress vault's save touched a vault up the chain") }
            slots.append(opened.slotIndex)
            current = opened
        }
        return slots
    }

    /// Files with a real vault and duress vaults nested 1, 3 and 12 deep: every password opens exactly its own
    /// vault; the work done is the same for the real password, each duress one and a wrong one (one
    /// derivation, sixteen slot trials, one body); and the used slots' bytes look like the unused ones'.
    @Test(arguments: [1, 3, 12])
    func aDuressChainLeavesEveryVaultUpTheChainAsItWas(_ depth: Int) throws {
        let dir = try TemporaryDirectory()
        let clock = FakeClock()
        let slots = try makeChain(dir, depth: depth, clock: clock)
        #expect(Set(slots).count == depth + 1)
        let store = VaultStore(directory: dir.path, clock: clock)
        var works = [UnlockWork]()
        for level in 0...depth {
            let opened = try store.unlock(password: Self.passwordOf(level))
            #expect(opened.slotIndex == slots[level])
            #expect(opened.vault.items.map(\.title) == (level == 0 ? ["Secret title 0"] : ["Level \(level) note"]))
            works.append(store.lastWork)
        }
        #expect(throws: StoreError.wrongPassword) { try store.unlock(password: "a password of no vault") }
        works.append(store.lastWork)
        for work in works {
            #expect(work.derivations == 1 && work.slotTrials == 16 && work.bodyOpens == 1)
            #expect(work.deadlineSeconds == works[0].deadlineSeconds)
        }
        // Used and unused slots alike: no shared bytes at any checked offset, and a uniform histogram.
        let file = try fileBytes(dir)
        let check = FormatTwoTests()
        let used = slots.map { s in FormatTwoTests.offsets.map { o in file[128 + s * FormatTwoTests.slotSize + o] } }
        let unused = (0..<16).filter { !slots.contains($0) }.map { s in FormatTwoTests.offsets.map { o in file[128 + s * FormatTwoTests.slotSize + o] } }
        for (group, pooled) in [("used", used), ("unused", unused)] where !pooled.isEmpty {
            #expect(check.chiSquare(pooled.flatMap { $0 }) < 400, "\(group) slots")
        }
        #expect(check.sharedOffsets(used + unused) == [])
    }

    /// The cycle has sixteen slots: fifteen levels of duress vaults never touch the real vault; the
    /// sixteenth takes its slot (the accepted limit docs/SECURITY.md states; refusing would mark the vault).
    @Test func fifteenLevelsNeverTouchTheRealVaultAndTheSixteenthTakesItsSlot() throws {
        let dir = try TemporaryDirectory()
        let clock = FakeClock()
        let slots = try makeChain(dir, depth: 15, clock: clock)
        #expect(Set(slots).count == 16)
        let store = VaultStore(directory: dir.path, clock: clock)
        #expect(try store.unlock(password: password).vault.items.count == 1)
        let deepest = try store.unlock(password: Self.duressPassword(15))
        clock.advance(1)
        try deepest.setDuressPassword(current: VaultStore.passwordBytes(Self.duressPassword(15)), duress: VaultStore.passwordBytes(Self.duressPassword(16)))
        #expect(try store.unlock(password: Self.duressPassword(16)).slotIndex == slots[0])
        #expect(throws: StoreError.wrongPassword) { try store.unlock(password: password) }
    }

    /// A second duress password replaces the first vault (G12); a wrong current password makes nothing
    /// (G76); a duress password equal to the vault's own is refused, after the check (G14); and changing the
    /// duress password keeps what the duress vault holds and rewrites its slot alone.
    @Test func settingAgainReplacesChangingKeepsAndTheOwnPasswordIsRefused() throws {
        let dir = try TemporaryDirectory()
        let clock = FakeClock()
        let (store, real) = try makeVault(dir, items: 2, clock: clock)
        let untouched = try fileBytes(dir)
        #expect(throws: StoreError.wrongPassword) {
            try real.setDuressPassword(current: VaultStore.passwordBytes("not the password"), duress: VaultStore.passwordBytes("a duress password"))
        }
        #expect(try fileBytes(dir) == untouched)
        #expect(throws: StoreError.duressSameAsOwn) {
            try real.setDuressPassword(current: VaultStore.passwordBytes(password), duress: VaultStore.passwordBytes(password))
        }
        #expect(try fileBytes(dir) == untouched)

        try real.setDuressPassword(current: VaultStore.passwordBytes(password), duress: VaultStore.passwordBytes("first duress password"))
        let first = try store.unlock(password: "first duress password")
        var vault = first.vault
        try vault.add(Item(category: .secureNote, title: "Decoy"), now: clock.now())
        try first.save(vault)
        let beforeChange = try fileBytes(dir)
        #expect(throws: StoreError.wrongDuressPassword) {
            try real.changeDuressPassword(
                current: VaultStore.passwordBytes(password), duress: VaultStore.passwordBytes("not the duress one"),
                new: VaultStore.passwordBytes("second duress password"))
        }
        try real.changeDuressPassword(
            current: VaultStore.passwordBytes(password), duress: VaultStore.passwordBytes("first duress password"),
            new: VaultStore.passwordBytes("second duress password"))
        let changed = try fileBytes(dir)
        for index in 0..<16 where index != first.slotIndex { #expect(slot(changed, index) == slot(beforeChange, index)) }
        #expect(throws: StoreError.wrongPassword) { try store.unlock(password: "first duress password") }
        #expect(try store.unlock(password: "second duress password").vault.items.map(\.title) == ["Decoy"])

        clock.advance(1)
        try real.setDuressPassword(current: VaultStore.passwordBytes(password), duress: VaultStore.passwordBytes("third duress password"))
        #expect(try store.unlock(password: "third duress password").vault.items.isEmpty)
        #expect(throws: StoreError.wrongPassword) { try store.unlock(password: "second duress password") }
        #expect(try store.unlock(password: password).vault.items.count == 2)
    }

    /// A duress password typed with decomposed accents opens the vault set with composed ones (G65).
    @Test func aDuressPasswordIsNormalisedLikeAnyOther() throws {
        let dir = try TemporaryDirectory()
        let (store, real) = try makeVault(dir, items: 0, clock: FakeClock())
        try real.setDuressPassword(current: VaultStore.passwordBytes(password), duress: VaultStore.passwordBytes("caf\u{E9} cr\u{E8}me br\u{FB}l\u{E9}e"))
        let opened = try store.unlock(password: "cafe\u{301} cre\u{300}me bru\u{302}le\u{301}e")
        #expect(opened.slotIndex != real.slotIndex)
    }

    // MARK: Erasing

    func setFailures(_ dir: TemporaryDirectory, _ failures: Int, erase: Bool) throws {
        let json = #"{"failures":\#(failures),"lastAttemptMs":0\#(erase ? #","erase":true"# : "")}"#
        try Data(json.utf8).write(to: dir.file("attempts"))
    }

    /// With erasing on, the tenth wrong password in a row erases the file (every byte written over, then
    /// removed), the settings and the count, and answers as any wrong password; with it off, nothing is
    /// erased; and a right password resets the count toward it (G19).
    @Test func theTenthWrongPasswordErasesOnlyWhenErasingIsOn() throws {
        let dir = try TemporaryDirectory()
        let clock = FakeClock()
        let (store, real) = try makeVault(dir, items: 1, clock: clock)
        try real.setDuressPassword(current: VaultStore.passwordBytes(password), duress: VaultStore.passwordBytes("a duress password"))
        try Data("{}".utf8).write(to: dir.file("settings.json"))

        try setFailures(dir, 9, erase: false)
        #expect(throws: StoreError.wrongPassword) { try store.unlock(password: "wrong one") }
        #expect(store.exists && FileManager.default.fileExists(atPath: dir.file("vault.pbx").path))
        #expect(try store.attempts.failures() == 10)

        try setFailures(dir, 8, erase: true)
        #expect(throws: StoreError.wrongPassword) { try store.unlock(password: "wrong one") }
        #expect(store.exists, "the ninth does not erase")
        clock.advance(3600)
        _ = try store.unlock(password: "a duress password")
        #expect(try store.attempts.failures() == 0 && store.attempts.eraseIsOn(), "a duress password resets the count; the setting stays")

        try setFailures(dir, 9, erase: true)
        #expect(throws: StoreError.wrongPassword) { try store.unlock(password: "wrong one") }
        #expect(!store.exists)
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(left.allSatisfy { ["state.lock", "unlock-timing", "vault.lock"].contains($0) }, "left: \(left)")
        #expect(throws: StoreError.noVault(path: store.vaultPath)) { try store.unlock(password: password) }
    }

    /// An erase stopped after any of its steps is finished by the next open, before anything is tried: the
    /// vault does not open with its right password, and nothing of the erase is left.
    @Test(arguments: EraseStep.allCases)
    func anEraseStoppedAfterAnyStepIsFinishedAtTheNextOpen(_ step: EraseStep) throws {
        struct Stop: Error {}
        let dir = try TemporaryDirectory()
        let (store, _) = try makeVault(dir, items: 2, clock: FakeClock())
        let original = try fileBytes(dir)
        try setFailures(dir, 9, erase: true)
        store.eraseStepHook = { if $0 == step { throw Stop() } }
        #expect(throws: Stop.self) { try store.unlock(password: "wrong one") }
        if step.rawValue >= EraseStep.fileOverwritten.rawValue, let partial = try? fileBytes(dir) {
            #expect(ByteSearch.equalPositions(partial, original) < partial.count / 100, "the file was written over")
        }
        let next = VaultStore(directory: dir.path, clock: FakeClock())
        #expect(!next.exists)
        #expect(throws: StoreError.noVault(path: next.vaultPath)) { try next.unlock(password: password) }
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(left.allSatisfy { ["state.lock", "unlock-timing", "vault.lock"].contains($0) }, "left: \(left)")
        // A new vault can be made where the old one was.
        _ = try next.create(password: password, parameters: cheapKDF)
        #expect(try next.unlock(password: password).vault.items.isEmpty)
    }

    /// An erase that was due but did not happen (the count is past ten) comes first at the next attempt,
    /// whatever password it brings (G18).
    @Test func anEraseThatWasDueComesBeforeAnyPasswordIsTried() throws {
        let dir = try TemporaryDirectory()
        let (store, _) = try makeVault(dir, items: 1, clock: FakeClock())
        try setFailures(dir, 10, erase: true)
        #expect(throws: StoreError.wrongPassword) { try store.unlock(password: password) }
        #expect(!store.exists)
    }

    /// Settings flows never make the tenth attempt in a row (G20): a password change, a duress password,
    /// the erase setting and Delete All Data are refused without trying or counting.
    @Test func settingsFlowsRefuseTheTenthAttempt() throws {
        let dir = try TemporaryDirectory()
        let (store, real) = try makeVault(dir, items: 1, clock: FakeClock())
        try setFailures(dir, 9, erase: true)
        let p = VaultStore.passwordBytes(password)
        #expect(throws: StoreError.unlockPromptOnly) { try real.changePassword(current: p, new: VaultStore.passwordBytes("another long password")) }
        #expect(throws: StoreError.unlockPromptOnly) { try real.setDuressPassword(current: p, duress: VaultStore.passwordBytes("a duress password")) }
        #expect(throws: StoreError.unlockPromptOnly) { try real.setEraseAfterFailures(false, current: p) }
        #expect(throws: StoreError.unlockPromptOnly) { try real.deleteAllData(current: p) }
        #expect(try store.attempts.failures() == 9, "nothing was counted")
        #expect(store.exists)
        // At the unlock prompt the right password opens and resets; then the setting can be changed.
        _ = try store.unlock(password: password)
        try real.setEraseAfterFailures(false, current: p)
        #expect(try !store.attempts.eraseIsOn())
    }

    /// Delete All Data from a duress vault erases the real vault too (G15).
    @Test func deleteAllDataFromADuressVaultErasesEveryVault() throws {
        let dir = try TemporaryDirectory()
        let (store, real) = try makeVault(dir, items: 1, clock: FakeClock())
        try real.setDuressPassword(current: VaultStore.passwordBytes(password), duress: VaultStore.passwordBytes("a duress password"))
        let duress = try store.unlock(password: "a duress password")
        #expect(throws: StoreError.wrongPassword) { try duress.deleteAllData(current: VaultStore.passwordBytes(password)) }
        #expect(store.exists, "the real password is not the duress vault's")
        try duress.deleteAllData(current: VaultStore.passwordBytes("a duress password"))
        #expect(!store.exists)
        #expect(throws: StoreError.noVault(path: store.vaultPath)) { try store.unlock(password: password) }
    }
}
