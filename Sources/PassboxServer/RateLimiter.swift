import Foundation
import PassboxProtocol
import PassboxSQL

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
    static func check(_ db: any SQLConnection, email: String, address: String, now: Date = Date()) throws {
        for key in ["account:" + email, "address:" + address] {
            guard let row = try db.rows("SELECT locked_until FROM signin_failures WHERE key = ?", [.text(key)]).first else { continue }
            let until = row[0].integer ?? 0
            let left = until - milliseconds(now)
            if left > 0 { throw ProtocolError(.rateLimited, ["minutes": String((left + 59_999) / 60_000)]) }
        }
    }

    /// Counts one failed sign-in for both keys. Each count is one atomic upsert, so failures arriving at
    /// once (on several connections or server processes) are all counted.
    static func recordFailure(_ db: any SQLConnection, email: String, address: String, now: Date = Date()) throws {
        let nowMS = milliseconds(now)
        for (key, rule) in [("account:" + email, perAccount), ("address:" + address, perAddress)] {
            let (count, _) = try increment(db, key: key, window: rule.window, now: nowMS)
            if count >= rule.failures {
                try db.run("UPDATE signin_failures SET locked_until = ? WHERE key = ?", [.integer(nowMS + Int64(rule.lock * 1000)), .text(key)])
            }
        }
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

    /// A successful sign-in clears the account's count (not the address's: one right password does not buy
    /// another round of guesses at other accounts).
    static func recordSuccess(_ db: any SQLConnection, email: String) throws {
        try db.run("DELETE FROM signin_failures WHERE key = ?", [.text("account:" + email)])
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
