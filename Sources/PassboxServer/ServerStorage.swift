import Foundation
import PassboxSQLite

/// The server's tables (SQLite; the schema's numbered steps).
enum ServerSchema {
    static let migrations = [
        Migration(1, """
            CREATE TABLE accounts (
                id TEXT PRIMARY KEY,
                email TEXT NOT NULL UNIQUE,
                salt BLOB NOT NULL,
                kdf_memory INTEGER NOT NULL,
                kdf_passes INTEGER NOT NULL,
                kdf_lanes INTEGER NOT NULL,
                signin_public_key BLOB NOT NULL,
                keyset BLOB NOT NULL,
                created INTEGER NOT NULL
            );
            CREATE TABLE challenges (
                id TEXT PRIMARY KEY,
                email TEXT NOT NULL,
                device_id TEXT NOT NULL,
                challenge BLOB NOT NULL,
                expires INTEGER NOT NULL
            );
            CREATE INDEX challenges_expires ON challenges (expires);
            CREATE TABLE sessions (
                token_hash BLOB PRIMARY KEY,
                account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                device_id TEXT NOT NULL,
                device_name TEXT NOT NULL,
                created INTEGER NOT NULL,
                last_seen INTEGER NOT NULL,
                address TEXT NOT NULL
            );
            CREATE INDEX sessions_account ON sessions (account_id);
            CREATE TABLE server_secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL);
            """),
        Migration(2, """
            CREATE TABLE signin_failures (
                key TEXT PRIMARY KEY,
                count INTEGER NOT NULL,
                window_start INTEGER NOT NULL,
                locked_until INTEGER NOT NULL
            );
            CREATE TABLE events (
                id INTEGER PRIMARY KEY,
                account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                kind TEXT NOT NULL,
                at INTEGER NOT NULL,
                address TEXT NOT NULL,
                device_name TEXT NOT NULL
            );
            CREATE INDEX events_account ON events (account_id, at);
            """),
        Migration(3, """
            CREATE TABLE invitations (
                token_hash BLOB PRIMARY KEY,
                email TEXT NOT NULL,
                created INTEGER NOT NULL,
                expires INTEGER NOT NULL,
                used INTEGER
            );
            """),
        Migration(4, """
            CREATE TABLE two_factor (
                account_id TEXT PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
                secret BLOB NOT NULL,
                enabled INTEGER NOT NULL,
                last_step INTEGER NOT NULL
            );
            CREATE TABLE recovery_codes (
                account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                code_hash BLOB NOT NULL,
                used INTEGER,
                PRIMARY KEY (account_id, code_hash)
            );
            """),
        Migration(5, """
            CREATE TABLE account_recovery (
                account_id TEXT PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
                public_key BLOB NOT NULL,
                blob BLOB NOT NULL,
                created INTEGER NOT NULL
            );
            """),
        Migration(6, """
            CREATE TABLE remembered_devices (
                token_hash BLOB PRIMARY KEY,
                account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                device_id TEXT NOT NULL,
                expires INTEGER NOT NULL
            );
            """),
    ]
}

/// A few SQLite connections shared by the HTTP worker threads: one request holds one connection.
final class ConnectionPool: @unchecked Sendable {
    // @unchecked: `idle` is touched only under `lock`; a connection is used by one thread at a time.
    private let path: String
    private let lock = NSLock()
    private var idle: [Database] = []

    /// Opens the database at `path`, bringing its schema up to date.
    init(path: String) throws {
        self.path = path
        let first = try Database(path: path)
        try first.migrate(ServerSchema.migrations)
        idle.append(first)
    }

    /// Serialises this process's use of the database. SQLite has one writer at a time, and nearly every
    /// request writes (a session's last use at least); waiting here in turn is fair and immediate, where
    /// SQLite's own busy handler sleeps 1 to 100 ms between tries (p99 at 64 connections: 147 → see bench).
    /// Other server processes on the same database still meet the busy timeout.
    private let turn = NSLock()

    /// Runs `body` with a connection of its own, in this process's turn.
    func with<R>(_ body: (Database) throws -> R) throws -> R {
        turn.lock()
        defer { turn.unlock() }
        lock.lock()
        let kept = idle.popLast()
        lock.unlock()
        let database = try kept ?? Database(path: path)
        defer {
            lock.lock()
            idle.append(database)
            lock.unlock()
        }
        return try body(database)
    }
}

/// Milliseconds since 1970, as stored.
func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
func date(milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
