import Foundation

extension SecurityCheck {
    /// Logins whose password scores below 3 (of 4) in the strength estimate.
    /// `scores` are those of `logins.passwords`, in that order.
    static func findWeakPasswords(_ logins: CheckedLogins, scores: [Int], into findings: inout FindingList) {
        for (k, score) in scores.enumerated() where score < 3 {
            for i in logins.loginsByPassword[k] { findings.add(.weak, login: i, of: logins, ["score": String(score)]) }
        }
    }

    /// Strength scores of distinct passwords, computed in parallel (libzxcvbn is the slowest part).
    static func strengthScores(_ passwords: [String]) -> [Int] {
        // Each iteration writes only its own slot, so the unsynchronised buffer is safe.
        nonisolated(unsafe) let results = UnsafeMutableBufferPointer<Int>.allocate(capacity: max(passwords.count, 1))
        defer { results.deallocate() }
        DispatchQueue.concurrentPerform(iterations: passwords.count) { i in
            results[i] = PasswordStrength.estimate(passwords[i]).score
        }
        return Array(results.prefix(passwords.count))
    }
}

/// Strength scores kept between the Security Checks of one unlocked session, so only new passwords are
/// estimated (the estimate is most of a check: 10,000 logins cost about 330 ms of CPU). Keyed by the password
/// itself, whose storage the key shares with the item's field (no new copy of a password is made); it goes
/// with the session at lock, and each check keeps only the passwords it saw.
public final class StrengthMemo: @unchecked Sendable {
    // @unchecked: `scores` is read and replaced only under `lock`.
    private let lock = NSLock()
    private var scores: [String: Int] = [:]

    public init() {}

    /// How many passwords have a kept score.
    public var count: Int { lock.withLock { scores.count } }

    /// The scores of `passwords` (distinct), estimating only those not kept; then keeps exactly these
    /// (`forgetOthers`, as a check does) or adds them to what is kept.
    func scores(for passwords: [String], forgetOthers: Bool, parallel: Bool = true) -> [Int] {
        let known = lock.withLock { scores }
        var result = [Int](repeating: 0, count: passwords.count)
        var missing = [Int]()
        for (i, password) in passwords.enumerated() {
            if let score = known[password] { result[i] = score } else { missing.append(i) }
        }
        let fresh = parallel ? SecurityCheck.strengthScores(missing.map { passwords[$0] }) : missing.map { PasswordStrength.estimate(passwords[$0]).score }
        for (k, i) in missing.enumerated() { result[i] = fresh[k] }
        lock.withLock {
            if forgetOthers { scores = [:] }
            for (password, score) in zip(passwords, result) { scores[password] = score }
        }
        return result
    }

    /// Estimates `passwords` ahead of the first check, on this thread alone (the agent does this in the
    /// background after unlocking, leaving the other core to the commands).
    public func warm(_ passwords: [String]) {
        _ = scores(for: passwords, forgetOthers: false, parallel: false)
    }
}

/// Strength scores computed on other threads while the other steps of the check run; `wait` collects them.
final class PendingStrength: @unchecked Sendable {
    // @unchecked: `scores` is written once, by the worker, before `done` is left, and read only after `wait`.
    private var scores: [Int] = []
    private let done = DispatchGroup()

    init(passwords: [String], memo: StrengthMemo?) {
        done.enter()
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            scores = memo?.scores(for: passwords, forgetOthers: true) ?? SecurityCheck.strengthScores(passwords)
            done.leave()
        }
    }

    func wait() -> [Int] {
        done.wait()
        return scores
    }
}
