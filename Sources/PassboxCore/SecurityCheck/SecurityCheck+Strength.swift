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

/// Strength scores kept between the Security Checks of one unlocked session, so a later check estimates only
/// new passwords (the estimate is most of a check: 10,000 logins cost about 330 ms of CPU). Keyed by the
/// password itself: a long one shares the item's storage, one of up to 15 bytes is held inside the key as
/// every Swift string holds it (a copy, not wiped, as the vault's own strings are not); it goes with the
/// session at lock, and each check keeps only the passwords it saw. Nothing is estimated
/// ahead of the first check: most unlocks never run one, and at 100,000 logins that would be 3 s of CPU and
/// memory the allocator kept after lock.
public final class StrengthMemo: @unchecked Sendable {
    // @unchecked: `scores` is read and replaced only under `lock`.
    private let lock = NSLock()
    private var scores: [String: Int] = [:]
    private var estimates = 0

    public init() {}

    /// How many passwords have a kept score.
    public var count: Int { lock.withLock { scores.count } }

    /// How many passwords it has estimated (rather than answered from what it kept) since it was made.
    public var estimated: Int { lock.withLock { estimates } }

    /// The scores of `passwords` (distinct), estimating only those not kept; then keeps exactly these.
    func scores(for passwords: [String]) -> [Int] {
        let known = lock.withLock { scores }
        var result = [Int](repeating: 0, count: passwords.count)
        var missing = [Int]()
        for (i, password) in passwords.enumerated() {
            if let score = known[password] { result[i] = score } else { missing.append(i) }
        }
        let fresh = SecurityCheck.strengthScores(missing.map { passwords[$0] })
        for (k, i) in missing.enumerated() { result[i] = fresh[k] }
        lock.withLock {
            scores = Dictionary(zip(passwords, result)) { first, _ in first }
            estimates += missing.count
        }
        return result
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
            scores = memo?.scores(for: passwords) ?? SecurityCheck.strengthScores(passwords)
            done.leave()
        }
    }

    func wait() -> [Int] {
        done.wait()
        return scores
    }
}
