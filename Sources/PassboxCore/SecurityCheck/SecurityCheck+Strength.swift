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

/// Strength scores computed on other threads while the other steps of the check run; `wait` collects them.
final class PendingStrength: @unchecked Sendable {
    // @unchecked: `scores` is written once, by the worker, before `done` is left, and read only after `wait`.
    private var scores: [Int] = []
    private let done = DispatchGroup()

    init(passwords: [String]) {
        done.enter()
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            scores = SecurityCheck.strengthScores(passwords)
            done.leave()
        }
    }

    func wait() -> [Int] {
        done.wait()
        return scores
    }
}
