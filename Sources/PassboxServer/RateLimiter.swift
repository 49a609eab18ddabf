import Foundation
import PassboxProtocol
import PassboxSQLite

/// Failed sign-ins counted per account (email) and per client address, in the database so every server
/// process on it counts together (security.md §5). Past the limit within the window, sign-ins for that key
/// are refused for the lock time, answered with the whole minutes to wait. Unknown emails are counted like
/// known ones, so the limit tells nothing about which exist.
struct RateLimiter: Sendable {
    struct Rule: Sendable {
        let failures: Int
        let window: TimeInterval
        let lock: TimeInterval
    }

    static let perAccount = Rule(failures: 10, window: 15 * 60, lock: 15 * 60)
    static let perAddress = Rule(failures: 30, window: 15 * 60, lock: 15 * 60)

    /// Refuses with `rateLimited` (facts: minutes) when either key is locked now.
    static func check(_ db: Database, email: String, address: String, now: Date = Date()) throws {
        for key in ["account:" + email, "address:" + address] {
            guard let row = try db.rows("SELECT locked_until FROM signin_failures WHERE key = ?", [.text(key)]).first else { continue }
            let until = row[0].integer ?? 0
            let left = until - milliseconds(now)
            if left > 0 { throw ProtocolError(.rateLimited, ["minutes": String((left + 59_999) / 60_000)]) }
        }
    }

    /// Counts one failed sign-in for both keys.
    static func recordFailure(_ db: Database, email: String, address: String, now: Date = Date()) throws {
        for (key, rule) in [("account:" + email, perAccount), ("address:" + address, perAddress)] {
            let nowMS = milliseconds(now)
            let row = try db.rows("SELECT count, window_start FROM signin_failures WHERE key = ?", [.text(key)]).first
            var count = Int(row?[0].integer ?? 0)
            var start = row?[1].integer ?? nowMS
            if nowMS - start > Int64(rule.window * 1000) {
                count = 0
                start = nowMS
            }
            count += 1
            let lockedUntil = count >= rule.failures ? nowMS + Int64(rule.lock * 1000) : 0
            try db.run(
                "INSERT INTO signin_failures (key, count, window_start, locked_until) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET count = excluded.count, window_start = excluded.window_start, locked_until = excluded.locked_until",
                [.text(key), .integer(Int64(count)), .integer(start), .integer(lockedUntil)])
        }
    }

    /// A successful sign-in clears the account's count (not the address's: one right password does not buy
    /// another round of guesses at other accounts).
    static func recordSuccess(_ db: Database, email: String) throws {
        try db.run("DELETE FROM signin_failures WHERE key = ?", [.text("account:" + email)])
    }

    /// Counts one request under `key` in a fixed window; past `limit`, refuses with `rateLimited` until the
    /// window ends.
    static func countRequest(_ db: Database, key: String, limit: Int, window: TimeInterval, now: Date = Date()) throws {
        let nowMS = milliseconds(now)
        let row = try db.rows("SELECT count, window_start FROM signin_failures WHERE key = ?", [.text(key)]).first
        var count = Int(row?[0].integer ?? 0)
        var start = row?[1].integer ?? nowMS
        if nowMS - start >= Int64(window * 1000) {
            count = 0
            start = nowMS
        }
        guard count < limit else {
            let left = start + Int64(window * 1000) - nowMS
            throw ProtocolError(.rateLimited, ["minutes": String(max(1, (left + 59_999) / 60_000))])
        }
        try db.run(
            "INSERT INTO signin_failures (key, count, window_start, locked_until) VALUES (?, ?, ?, 0) ON CONFLICT (key) DO UPDATE SET count = excluded.count, window_start = excluded.window_start",
            [.text(key), .integer(Int64(count + 1)), .integer(start)])
    }
}
