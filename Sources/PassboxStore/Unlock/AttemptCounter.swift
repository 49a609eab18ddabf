import Foundation

/// Counts unlock attempts in a file of its own (`attempts`, 0600), written before the key is derived so
/// killing the process cannot take an attempt back. From the 5th wrong password in a row each try waits
/// 1, 5, 15, 15, then 60 minutes after the previous one (G26).
public struct AttemptCounter: Sendable {
    let path: String
    let lockPath: String

    public init(directory: String) {
        path = directory + "/attempts"
        lockPath = directory + "/state.lock"
    }

    /// Seconds to wait after `failures` wrong passwords in a row.
    public static func wait(afterFailures failures: Int) -> Int {
        switch failures {
        case ..<5: 0
        case 5: 60
        case 6: 300
        case 7, 8: 900
        default: 3600
        }
    }

    struct Record: Codable {
        var failures: Int
        var lastAttemptMs: Int64
        /// Erase after ten wrong passwords in a row (G18): a setting of this machine, off when absent.
        var erase: Bool?
    }

    /// The wrong password in a row that erases when erasing is on.
    public static let eraseAfter = 10

    /// What the file says: a record, nothing yet, or something that is not a counter.
    private enum Reading {
        case missing
        case record(Record)
        case damaged
    }

    /// The count a damaged file stands for: the longest wait.
    static let damagedFailures = 9
    /// Counts above this are kept at it (the wait is the longest long before), so adding one never overflows.
    static let failureCeiling = 1_000_000

    private func read() throws -> Reading {
        guard let bytes = try POSIX.readFile(path) else { return .missing }
        guard let record = try? JSONDecoder().decode(Record.self, from: Data(bytes)), record.failures >= 0, record.lastAttemptMs >= 0 else {
            return .damaged
        }
        return .record(record)
    }

    private func write(_ record: Record) throws {
        try POSIX.writeAtomically(Array(try JSONEncoder().encode(record)), to: path)
    }

    /// Records an attempt about to be made, or throws `mustWait` if one is not allowed yet.
    ///
    /// A counter that cannot be read as one (text, empty, `{}`, negative, random bytes) never unlocks more
    /// and never locks out for ever: it is rewritten once as the longest wait from now, and this attempt is
    /// refused with `attemptCounterDamaged`, naming the file; from then on the wait runs from that time. A
    /// last attempt in the future (a clock set back, or a forged file) is taken as now, so no wait is ever
    /// longer than the longest one.
    public func beginAttempt(now: Date) throws {
        let lock = try FileLock(path: lockPath)
        defer { withExtendedLifetime(lock) {} }
        let nowMs = Int64(now.timeIntervalSince1970 * 1000)
        var record: Record
        switch try read() {
        case .missing:
            record = Record(failures: 0, lastAttemptMs: 0)
        case .damaged:
            try write(Record(failures: AttemptCounter.damagedFailures, lastAttemptMs: nowMs))
            throw StoreError.attemptCounterDamaged(path: path, seconds: AttemptCounter.wait(afterFailures: AttemptCounter.damagedFailures))
        case .record(let stored):
            record = stored
            record.failures = min(record.failures, AttemptCounter.failureCeiling)
            if record.lastAttemptMs > nowMs {
                record.lastAttemptMs = nowMs
                try write(record)
            }
        }
        let wait = AttemptCounter.wait(afterFailures: record.failures)
        let allowedAt = record.lastAttemptMs + Int64(wait) * 1000
        if wait > 0, nowMs < allowedAt {
            throw StoreError.mustWait(seconds: Int((allowedAt - nowMs + 999) / 1000))
        }
        record.failures += 1
        record.lastAttemptMs = nowMs
        try write(record)
    }

    /// Resets the count after a password opened a vault; if this fails the caller must stay locked. The
    /// erase setting stays.
    public func succeeded() throws {
        let lock = try FileLock(path: lockPath)
        defer { withExtendedLifetime(lock) {} }
        let erase = if case .record(let r) = try read() { r.erase } else { Bool?.none }
        try write(Record(failures: 0, lastAttemptMs: 0, erase: erase))
    }

    /// Whether erasing after ten wrong passwords is on.
    public func eraseIsOn() throws -> Bool {
        if case .record(let r) = try read() { return r.erase ?? false }
        return false
    }

    /// Turns erasing on or off, keeping the count.
    public func setErase(_ on: Bool) throws {
        let lock = try FileLock(path: lockPath)
        defer { withExtendedLifetime(lock) {} }
        var record = Record(failures: 0, lastAttemptMs: 0)
        switch try read() {
        case .record(let r): record = r
        case .damaged: record = Record(failures: AttemptCounter.damagedFailures, lastAttemptMs: Int64(Date().timeIntervalSince1970 * 1000))
        case .missing: break
        }
        record.erase = on ? true : nil
        try write(record)
    }

    /// After a wrong password (already counted): whether it was the tenth in a row with erasing on. The
    /// record is read whether erasing is on or off, so the time taken does not tell the setting.
    func eraseIsDue() throws -> Bool {
        guard case .record(let r) = try read() else { return false }
        return r.failures >= AttemptCounter.eraseAfter && r.erase == true
    }

    /// Right after an attempt was counted: whether an erase was already due before it (one that a stopped
    /// process did not make), which then comes before any trial.
    func eraseWasDue() throws -> Bool {
        guard case .record(let r) = try read() else { return false }
        return r.failures > AttemptCounter.eraseAfter && r.erase == true
    }

    /// Settings flows (a password change, a duress password, the erase setting, Delete All Data) never make the
    /// tenth attempt in a row: that one is made only at the unlock prompt (G20). Nothing is tried or counted.
    public func refuseTenthOutsideUnlock() throws {
        if try failures() >= AttemptCounter.eraseAfter - 1 { throw StoreError.unlockPromptOnly }
    }

    /// Removes the record (an erase: the next vault starts with no count and erasing off).
    func remove() throws {
        let lock = try FileLock(path: lockPath)
        defer { withExtendedLifetime(lock) {} }
        guard unlink(path) == 0 || errno == ENOENT else { throw StoreError.io(operation: "remove", path: path, errno: errno) }
    }

    /// Wrong passwords in a row so far (for tests; never shown to users).
    public func failures() throws -> Int {
        switch try read() {
        case .missing: 0
        case .record(let record): record.failures
        case .damaged: AttemptCounter.damagedFailures
        }
    }
}

/// The unlock deadline for this machine (`unlock-timing`, machine-local, never in the vault): 1.5 × the
/// measured work of an unlock, only ever raised, at most 5 seconds.
struct UnlockTiming {
    let path: String
    static let cap = 5.0

    init(directory: String) { path = directory + "/unlock-timing" }

    struct Record: Codable { var deadlineMs: Int }

    func deadline() -> Double? {
        guard let bytes = try? POSIX.readFile(path), let r = try? JSONDecoder().decode(Record.self, from: Data(bytes)) else { return nil }
        return min(Double(r.deadlineMs) / 1000, UnlockTiming.cap)
    }

    /// The deadline to hold this attempt to, raising the stored one when the work came close to it.
    func deadline(forWork work: Double) -> Double {
        let stored = deadline()
        if let stored, work <= stored * 2 / 3 { return stored }
        let raised = min(max(stored ?? 0, 1.5 * work), UnlockTiming.cap)
        if let data = try? JSONEncoder().encode(Record(deadlineMs: Int(raised * 1000))) { try? POSIX.writeAtomically(Array(data), to: path) }
        return raised
    }
}
