import Foundation

extension SecurityCheck {
    /// Logins whose password scores below 3 (of 4) in the strength estimate.
    static func findWeakPasswords(_ logins: CheckedLogins, scores: [String: Int], into findings: inout FindingList) {
        for login in logins.items {
            if let p = login.password, let score = scores[p], score < 3 { findings.add(.weak, login, ["score": String(score)]) }
        }
    }

    /// Strength scores of distinct passwords, computed in parallel (libzxcvbn is the slowest part).
    static func strengthScores(_ passwords: [String]) -> [String: Int] {
        // Each iteration writes only its own slot, so the unsynchronised buffer is safe.
        nonisolated(unsafe) let results = UnsafeMutableBufferPointer<Int>.allocate(capacity: max(passwords.count, 1))
        defer { results.deallocate() }
        DispatchQueue.concurrentPerform(iterations: passwords.count) { i in
            results[i] = PasswordStrength.estimate(passwords[i]).score
        }
        var out = [String: Int](minimumCapacity: passwords.count)
        for (i, p) in passwords.enumerated() { out[p] = results[i] }
        return out
    }
}

/// Strength scores computed on other threads while the other steps of the check run; `wait` collects them.
final class PendingStrength: @unchecked Sendable {
    // @unchecked: `scores` is written once, by the worker, before `done` is left, and read only after `wait`.
    private var scores: [String: Int] = [:]
    private let done = DispatchGroup()

    init(passwords: [String]) {
        done.enter()
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            scores = SecurityCheck.strengthScores(passwords)
            done.leave()
        }
    }

    func wait() -> [String: Int] {
        done.wait()
        return scores
    }
}
