import Foundation
import PassboxServerAPI
import PassboxSQL

/// Failed sign-ins counted in the database, so every server process on it counts together (security.md §5).
///
/// - The hard lock counts failures per (account, address) and per address: past the limit within the window,
///   that pair (or that address) is refused for the lock time, answered with the whole minutes to wait. A
///   stranger who knows an email can so lock out only their own address, never the owner's.
/// - The account-wide count only slows answers down: once an account has had `slowAfter` failures in the
///   window, each further failed answer waits `slowdown` seconds (outside any database connection).
/// - Recovery proofs count apart from sign-ins (scope `recovery`), and a signed-in session's fresh proofs
///   count per session: neither is locked by strangers' failed sign-ins.
/// - Unknown emails are counted like known ones, so the limits tell nothing about which exist.
/// - Addresses are counted as `key(for:)` gives them: IPv6 by its /64, which one client holds whole.
struct RateLimiter: Sendable {
    struct Rule: Sendable {
        let failures: Int
        let window: TimeInterval
        let lock: TimeInterval
    }

    /// What the failures are of: a sign-in (password, second factor) or a recovery proof.
    enum Scope: String, Sendable { case signin, recovery }

    static let perPair = Rule(failures: 10, window: 15 * 60, lock: 15 * 60)
    static let perAddress = Rule(failures: 30, window: 15 * 60, lock: 15 * 60)
    static let perSession = Rule(failures: 10, window: 15 * 60, lock: 15 * 60)
    static let slowAfter = 10
    static let slowdown: TimeInterval = 1

    static func pairKey(_ scope: Scope, email: String, address: String) -> String { "\(scope.rawValue):\(email)|\(key(for: address))" }
    static func accountKey(_ scope: Scope, email: String) -> String { "\(scope.rawValue)-account:\(email)" }
    static func addressKey(_ address: String) -> String { "address:" + key(for: address) }

    /// Refuses with `rateLimited` (facts: minutes) when the pair or the address is locked now.
    static func check(_ db: any SQLConnection, _ scope: Scope = .signin, email: String, address: String, now: Date = Date()) throws {
        try checkLocked(db, keys: [pairKey(scope, email: email, address: address), addressKey(address)], now: now)
    }

    /// Counts one failure for the pair, the address and the account; answers how long the failed answer is
    /// to wait (the account-wide slowdown). Each count is one atomic upsert, so failures arriving at once
    /// (on several connections or server processes) are all counted.
    @discardableResult
    static func recordFailure(_ db: any SQLConnection, _ scope: Scope = .signin, email: String, address: String, now: Date = Date()) throws -> TimeInterval {
        let nowMS = milliseconds(now)
        for (key, rule) in [(pairKey(scope, email: email, address: address), perPair), (addressKey(address), perAddress)] {
            try countFailure(db, key: key, rule: rule, now: nowMS)
        }
        let (count, _) = try increment(db, key: accountKey(scope, email: email), window: perPair.window, now: nowMS)
        return count > slowAfter ? slowdown : 0
    }

    /// A signed-in session's fresh proofs (password change, recovery set-up, two-factor on or off, signing
    /// out other devices): counted and locked per session only.
    static func checkSession(_ db: any SQLConnection, tokenHash: [UInt8], now: Date = Date()) throws {
        try checkLocked(db, keys: [sessionKey(tokenHash)], now: now)
    }

    static func recordSessionFailure(_ db: any SQLConnection, tokenHash: [UInt8], now: Date = Date()) throws {
        try countFailure(db, key: sessionKey(tokenHash), rule: perSession, now: milliseconds(now))
    }

    static func sessionKey(_ tokenHash: [UInt8]) -> String { "session:" + tokenHash.prefix(16).map { String(format: "%02x", $0) }.joined() }

    private static func checkLocked(_ db: any SQLConnection, keys: [String], now: Date) throws {
        for key in keys {
            guard let row = try db.rows("SELECT locked_until FROM signin_failures WHERE key = ?", [.text(key)]).first else { continue }
            let until = row[0].integer ?? 0
            let left = until - milliseconds(now)
            if left > 0 { throw ProtocolError(.rateLimited, ["minutes": String((left + 59_999) / 60_000)]) }
        }
    }

    private static func countFailure(_ db: any SQLConnection, key: String, rule: Rule, now nowMS: Int64) throws {
        let (count, _) = try increment(db, key: key, window: rule.window, now: nowMS)
        if count >= rule.failures {
            try db.run("UPDATE signin_failures SET locked_until = ? WHERE key = ?", [.integer(nowMS + Int64(rule.lock * 1000)), .text(key)])
        }
    }

    /// The address as counted: an IPv4 address as it is (also when written as ::ffff:a.b.c.d), an IPv6
    /// address by its /64 ("2001:db8:1:2::/64"), anything else as given.
    static func key(for address: String) -> String {
        if address.hasPrefix("::ffff:"), address.contains(".") { return String(address.dropFirst(7)) }
        var bytes = [UInt8](repeating: 0, count: 16)
        guard address.contains(":"), inet_pton(AF_INET6, address, &bytes) == 1 else { return address }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }

    /// Adds one to `key`'s count in its fixed window (a window older than `window` starts again at 1);
    /// answers the new count and the window's start.
    private static func increment(_ db: any SQLConnection, key: String, window: TimeInterval, now: Int64) throws -> (count: Int, start: Int64) {
        let windowMS = Int64(window * 1000)
        let row = try db.rows(
            """
            INSERT INTO signin_failures (key, count, window_start, locked_until) VALUES (?, 1, ?, 0)
            ON CONFLICT (key) DO UPDATE SET
                count = CASE WHEN ? - signin_failures.window_start >= ? THEN 1 ELSE signin_failures.count + 1 END,
                window_start = CASE WHEN ? - signin_failures.window_start >= ? THEN ? ELSE signin_failures.window_start END
            RETURNING count, window_start
            """,
            [.text(key), .integer(now), .integer(now), .integer(windowMS), .integer(now), .integer(windowMS), .integer(now)]
        ).first
        return (Int(row?[0].integer ?? 1), row?[1].integer ?? now)
    }

    /// A success clears the pair's and the account's counts (not the address's: one right password does not
    /// buy another round of guesses at other accounts).
    static func recordSuccess(_ db: any SQLConnection, _ scope: Scope = .signin, email: String, address: String) throws {
        for key in [pairKey(scope, email: email, address: address), accountKey(scope, email: email)] {
            try db.run("DELETE FROM signin_failures WHERE key = ?", [.text(key)])
        }
    }

    /// Counts one request under `key` in a fixed window; past `limit`, refuses with `rateLimited` until the
    /// window ends (the refused request is not counted: the caller's transaction rolls the count back).
    static func countRequest(_ db: any SQLConnection, key: String, limit: Int, window: TimeInterval, now: Date = Date()) throws {
        let nowMS = milliseconds(now)
        let (count, start) = try increment(db, key: key, window: window, now: nowMS)
        guard count <= limit else {
            let left = start + Int64(window * 1000) - nowMS
            throw ProtocolError(.rateLimited, ["minutes": String(max(1, (left + 59_999) / 60_000))])
        }
    }
}
