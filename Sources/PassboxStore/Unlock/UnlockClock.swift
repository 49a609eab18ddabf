import Foundation

/// Time as the unlock path sees it, injected so tests can check deadlines and waits without sleeping.
public protocol UnlockClock: Sendable {
    /// Wall-clock time (attempt records, timestamps).
    func now() -> Date
    /// Monotonic seconds (deadlines).
    func monotonic() -> Double
    /// Sleeps until the monotonic clock reads `deadline`.
    func sleep(until deadline: Double)
}

/// The real clocks.
public struct SystemClock: UnlockClock {
    public init() {}
    public func now() -> Date { Date() }
    public func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
    public func sleep(until deadline: Double) {
        let remaining = deadline - monotonic()
        if remaining > 0 { usleep(useconds_t(remaining * 1e6)) }
    }
}

/// Counts of the unlock path's work, so tests can check that right, wrong and other passwords do the same.
public struct UnlockWork: Sendable, Equatable {
    public var derivations = 0
    public var slotTrials = 0
    public var bodyOpens = 0
    /// Seconds spent in Argon2id.
    public var derivationSeconds = 0.0
    /// Seconds of all work before the wait to the deadline (derivation, trials, body, decoding).
    public var workSeconds = 0.0
    /// The deadline the answer was held to, in seconds from the start.
    public var deadlineSeconds = 0.0
    public init() {}
}
