import Foundation
import PassboxCore
import PassboxCrypto
import PassboxStore
import PassboxStoreFakes
import PassboxTestKit
import Testing

@Suite struct UnlockTests {
    /// Quick unlock's path: the kept Argon2id output opens the same vault without a derivation, survives
    /// sealing, and stops working once the password is changed (the slot is re-keyed).
    @Test func aKeptPasswordKeyOpensTheVaultWithoutDerivingUntilThePasswordChanges() throws {
        let dir = try TemporaryDirectory()
        let store = VaultStore(directory: dir.path, clock: FakeClock())
        _ = try store.create(password: password, parameters: cheapKDF)
        let (first, key) = try store.unlockKeepingKey(password: password)
        #expect(store.lastWork.derivations == 1)
        let sealed = SealedSecret(key)
        let again = try store.unlock(passwordKey: sealed.open())
        #expect(store.lastWork.derivations == 0)
        #expect(store.lastWork.slotTrials == 16)
        #expect(again.vault.items.count == first.vault.items.count)
        #expect(throws: StoreError.wrongPassword) { try store.unlock(passwordKey: SecretBytes.generate(count: key.count)) }
        try store.changePassword(current: password, new: "a different long password")
        #expect(throws: StoreError.wrongPassword) { try store.unlock(passwordKey: sealed.open()) }
    }

    @Test func rightAndWrongPasswordsDoTheSameWorkAndAnswerAtTheDeadline() throws {
        let dir = try TemporaryDirectory()
        let clock = FakeClock()
        let store = VaultStore(directory: dir.path, clock: clock)
        _ = try store.create(password: password, parameters: cheapKDF)
        try Data(#"{"deadlineMs":1500}"#.utf8).write(to: dir.file("unlock-timing"))

        var start = clock.monotonic()
        _ = try store.unlock(password: password)
        let right = store.lastWork
        #expect(clock.monotonic() == start + 1.5)

        start = clock.monotonic()
        #expect(throws: StoreError.wrongPassword) { try store.unlock(password: "a wrong password") }
        let wrong = store.lastWork
        #expect(clock.monotonic() == start + 1.5)

        #expect(right.derivations == 1 && wrong.derivations == 1)
        #expect(right.slotTrials == 16 && wrong.slotTrials == 16)
        #expect(right.bodyOpens == 1 && wrong.bodyOpens == 1)
        #expect(right.deadlineSeconds == wrong.deadlineSeconds)
    }

    @Test func deadlineIsRaisedWhenWorkComesCloseAndCappedAtFiveSeconds() throws {
        let dir = try TemporaryDirectory()
        let store = VaultStore(directory: dir.path)
        _ = try store.create(password: password, parameters: cheapKDF)
        try Data(#"{"deadlineMs":1}"#.utf8).write(to: dir.file("unlock-timing"))
        _ = try store.unlock(password: password)
        #expect(store.lastWork.deadlineSeconds >= 1.5 * store.lastWork.workSeconds * 0.99)
        try Data(#"{"deadlineMs":60000}"#.utf8).write(to: dir.file("unlock-timing"))
        let clock = FakeClock()
        let capped = VaultStore(directory: dir.path, clock: clock)
        _ = try capped.unlock(password: password)
        #expect(capped.lastWork.deadlineSeconds == 5)
    }

    @Test func attemptsAreCountedAndWaitsGrow() throws {
        let dir = try TemporaryDirectory()
        let clock = FakeClock()
        let store = VaultStore(directory: dir.path, clock: clock)
        _ = try store.create(password: password, parameters: cheapKDF)
        for _ in 0..<5 { #expect(throws: StoreError.wrongPassword) { try store.unlock(password: "wrong guess!") } }
        #expect(try store.attempts.failures() == 5)
        // The 6th try must wait a minute after the 5th; nothing is derived meanwhile.
        #expect(throws: StoreError.mustWait(seconds: 60)) { try store.unlock(password: password) }
        #expect(try store.attempts.failures() == 5)
        clock.advance(61)
        #expect(throws: StoreError.wrongPassword) { try store.unlock(password: "wrong again") }
        #expect(throws: StoreError.mustWait(seconds: 300)) { try store.unlock(password: password) }
        clock.advance(301)
        _ = try store.unlock(password: password)
        #expect(try store.attempts.failures() == 0)
    }

    /// The right password on a vault whose body is damaged says so and is not counted as a wrong one, so the
    /// owner is not locked out once the file is restored (found by a new-user trial).
    @Test func theRightPasswordOnADamagedBodyIsNotCountedAsWrong() throws {
        let dir = try TemporaryDirectory()
        let store = VaultStore(directory: dir.path, clock: FakeClock())
        _ = try store.create(password: password, parameters: cheapKDF)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: store.vaultPath)))
        let slotSize = (bytes.count - 128) / 16
        for slot in 0..<16 { bytes[128 + slot * slotSize + 128 + 64] ^= 0x5A }
        try Data(bytes).write(to: URL(fileURLWithPath: store.vaultPath))
        for _ in 0..<6 {
            do {
                _ = try store.unlock(password: password)
                Issue.record("a damaged body opened")
            } catch StoreError.damaged {
            } catch {
                Issue.record("\(error)")
            }
        }
        #expect(try store.attempts.failures() == 0)
        #expect(throws: StoreError.wrongPassword) { try store.unlock(password: "wrong guess!") }
        #expect(try store.attempts.failures() == 1)
    }

    @Test(arguments: [(0, 0), (4, 0), (5, 60), (6, 300), (7, 900), (8, 900), (9, 3600), (30, 3600)])
    func waitTable(_ failures: Int, _ seconds: Int) {
        #expect(AttemptCounter.wait(afterFailures: failures) == seconds)
    }

    @Test func attemptIsCountedBeforeTheDerivation() throws {
        let dir = try TemporaryDirectory()
        let store = VaultStore(directory: dir.path)
        _ = try store.create(password: password, parameters: cheapKDF)
        try store.attempts.beginAttempt(now: Date())
        // A process killed right after beginAttempt leaves the count raised.
        #expect(try store.attempts.failures() == 1)
    }

    @Test func weakPasswordsAreRefusedAtCreation() throws {
        let dir = try TemporaryDirectory()
        let store = VaultStore(directory: dir.path)
        #expect(throws: ValidationError.self) { try store.create(password: "12345678", parameters: cheapKDF) }
        #expect(throws: ValidationError.self) { try store.create(password: "short", parameters: cheapKDF) }
        #expect(!store.exists)
    }

    @Test func anExistingVaultIsNeverOverwritten() throws {
        let dir = try TemporaryDirectory()
        let (store, _) = try makeVault(dir, items: 1)
        let before = try fileBytes(store)
        #expect(throws: StoreError.vaultExists(path: store.vaultPath)) { try store.create(password: password, parameters: cheapKDF) }
        #expect(try fileBytes(store) == before)
    }

    @Test func calibrationMeetsTheFloors() throws {
        let result = try Argon2Calibration.calibrate(targetSeconds: 0.3)
        #expect(result.parameters.passes >= 3)
        #expect(result.parameters.memoryKiB >= 256 * 1024 || ProcessInfo.processInfo.physicalMemory < 2 << 30)
        #expect([1, 2, 4].contains(result.parameters.lanes))
        #expect(result.probes.count == 3)
    }

    @Test func realCostParametersDeriveThroughTheStore() throws {
        // Pins that a full-cost header (256 MiB, 3 passes, 4 lanes) opens: the tests elsewhere use a cheap preset.
        let dir = try TemporaryDirectory()
        let store = VaultStore(directory: dir.path)
        _ = try store.create(password: password, parameters: Argon2Parameters(memoryKiB: 256 * 1024, passes: 3, lanes: 4))
        #expect(try store.unlock(password: password).kdfParameters.memoryKiB == 256 * 1024)
    }
}

/// The real clocks, running `hook` once, the first time the unlock reads the monotonic clock (after it read
/// the header and counted the attempt, before it derives the key and reads the slots).
final class HookedClock: UnlockClock, @unchecked Sendable {
    // @unchecked: `hook` runs once, on the unlocking thread.
    private var hook: (() -> Void)?
    init(_ hook: @escaping () -> Void) { self.hook = hook }
    func now() -> Date { Date() }
    func monotonic() -> Double {
        if let run = hook {
            hook = nil
            run()
        }
        return SystemClock().monotonic()
    }
    func sleep(until deadline: Double) { SystemClock().sleep(until: deadline) }
}

@Suite struct UnlockFileTests {
    /// Another process grows the file (a new file renamed over) between the unlock's header read and its
    /// slot reads: the unlock reads the file it opened, so the right password opens the vault as it was and
    /// is not counted as a failure.
    @Test func aGrowthDuringUnlockDoesNotTurnTheRightPasswordIntoAFailure() throws {
        let dir = try TemporaryDirectory()
        let (_, writer) = try makeVault(dir, items: 1)
        var grown = writer.vault
        for i in 0..<24 {
            let noise = Hex.string(SecureRandom.bytes(count: 48 * 1024))
            try grown.add(Item(category: .secureNote, title: "Big \(i)", notes: noise), now: Date())
        }
        let clock = HookedClock { try? writer.save(grown) }
        let store = VaultStore(directory: dir.path, clock: clock)
        let opened = try store.unlock(password: password)
        #expect(writer.slotSize == 2 << 20)
        #expect(opened.vault.items.map(\.title) == ["Secret title 0"])
        #expect(try store.attempts.failures() == 0)
        // The next unlock sees the grown file.
        #expect(try VaultStore(directory: dir.path).unlock(password: password).vault.items.count == 25)
    }
}

/// What a damaged attempt counter may hold.
struct DamagedCounter: CustomTestStringConvertible, Sendable {
    let name: String
    let bytes: [UInt8]
    var testDescription: String { name }

    static let all: [DamagedCounter] = [
        DamagedCounter(name: "text", bytes: Array("not a counter at all\n".utf8)),
        DamagedCounter(name: "empty", bytes: []),
        DamagedCounter(name: "empty object", bytes: Array("{}".utf8)),
        DamagedCounter(name: "a huge number", bytes: Array("99999999999999999999999999".utf8)),
        DamagedCounter(name: "a count too large for an integer", bytes: Array(#"{"failures":1e300,"lastAttemptMs":0}"#.utf8)),
        DamagedCounter(name: "a negative count", bytes: Array(#"{"failures":-4,"lastAttemptMs":0}"#.utf8)),
        DamagedCounter(name: "random bytes", bytes: SecureRandom.bytes(count: 300)),
    ]
}

@Suite struct AttemptCounterTests {
    /// A damaged counter is one longest wait, measured from the time it was found (written to the file once),
    /// even for the right password; the wait does not restart on later tries, and the error names the file.
    @Test(arguments: DamagedCounter.all)
    func aDamagedCounterMeansOneLongestWaitThatDoesNotRestart(_ damage: DamagedCounter) throws {
        let dir = try TemporaryDirectory()
        let clock = FakeClock()
        let store = VaultStore(directory: dir.path, clock: clock)
        _ = try store.create(password: password, parameters: cheapKDF)
        try Data(damage.bytes).write(to: dir.file("attempts"))
        let path = dir.path + "/attempts"
        #expect(throws: StoreError.attemptCounterDamaged(path: path, seconds: 3600)) { try store.unlock(password: password) }
        // Rewritten once: the longest count, from now.
        let record = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.file("attempts"))) as? [String: Any]
        #expect(record?["failures"] as? Int == 9)
        #expect((record?["lastAttemptMs"] as? NSNumber)?.int64Value == Int64(clock.now().timeIntervalSince1970 * 1000))
        clock.advance(1800)
        #expect(throws: StoreError.mustWait(seconds: 1800)) { try store.unlock(password: password) }
        clock.advance(1801)
        #expect(try store.unlock(password: password).vault.items.isEmpty)
        #expect(try store.attempts.failures() == 0)
    }

    /// A last attempt in the future never makes a wait longer than the longest one.
    @Test func aFutureTimestampWaitsAtMostTheLongestWait() throws {
        let dir = try TemporaryDirectory()
        let clock = FakeClock()
        let store = VaultStore(directory: dir.path, clock: clock)
        _ = try store.create(password: password, parameters: cheapKDF)
        let future = Int64(clock.now().timeIntervalSince1970 * 1000) + 1_000_000_000_000
        try Data(#"{"failures":20,"lastAttemptMs":\#(future)}"#.utf8).write(to: dir.file("attempts"))
        #expect(throws: StoreError.mustWait(seconds: 3600)) { try store.unlock(password: password) }
        clock.advance(600)
        #expect(throws: StoreError.mustWait(seconds: 3000)) { try store.unlock(password: password) }
        clock.advance(3001)
        #expect(try store.unlock(password: password).vault.items.isEmpty)
    }

    /// The largest count a file can hold is the longest wait, and counting on from it does not overflow.
    @Test func theLargestCountIsTheLongestWait() throws {
        let dir = try TemporaryDirectory()
        let clock = FakeClock()
        let store = VaultStore(directory: dir.path, clock: clock)
        _ = try store.create(password: password, parameters: cheapKDF)
        let now = Int64(clock.now().timeIntervalSince1970 * 1000)
        try Data(#"{"failures":\#(Int.max),"lastAttemptMs":\#(now)}"#.utf8).write(to: dir.file("attempts"))
        #expect(throws: StoreError.mustWait(seconds: 3600)) { try store.unlock(password: password) }
        clock.advance(3601)
        #expect(throws: StoreError.wrongPassword) { try store.unlock(password: "still not it") }
        clock.advance(3601)
        #expect(try store.unlock(password: password).vault.items.isEmpty)
    }
}
