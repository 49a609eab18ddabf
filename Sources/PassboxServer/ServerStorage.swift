import Foundation
import PassboxPostgres
import PassboxSQL
import PassboxSQLite

/// The server's tables: the schema's numbered steps, written for SQLite and translated for PostgreSQL.
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

extension ServerSchema {
    /// The same steps for PostgreSQL. The SQLite text is the one source; the translation is mechanical and
    /// covers exactly the types this schema uses: `BLOB` is `BYTEA`, every `INTEGER` a `BIGINT` (Passbox
    /// binds 64-bit integers), and the events' `INTEGER PRIMARY KEY` (SQLite's row id) an identity column.
    static var postgresMigrations: [Migration] {
        migrations.map { step in
            let sql = step.sql
                .replacingOccurrences(of: "INTEGER PRIMARY KEY", with: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY")
                .replacingOccurrences(of: "BLOB", with: "BYTEA")
                .replacingOccurrences(of: "INTEGER", with: "BIGINT")
            return Migration(step.version, sql)
        }
    }
}

/// Where a server keeps its accounts.
public enum ServerDatabase: Sendable, Equatable {
    /// `server.sqlite` in this directory (the embedded default).
    case sqlite(directory: String)
    /// A PostgreSQL database, by libpq connection URI (`postgresql://passbox@db.example.org/passbox`); a
    /// password comes from libpq's password file, never from the URI.
    case postgres(String)
}

/// The connections shared by the HTTP worker threads: one request holds one connection at a time.
final class ConnectionPool: @unchecked Sendable {
    // @unchecked: `idle` is touched only under `lock`; a connection is used by one thread at a time.
    private let lock = NSLock()
    private var idle: [any SQLConnection] = []
    private let open: @Sendable () throws -> any SQLConnection
    /// Serialises this process's use of SQLite. SQLite has one writer at a time, and nearly every request
    /// writes (a session's last use at least); waiting here in turn is fair and immediate, where SQLite's own
    /// busy handler sleeps 1 to 100 ms between tries (p99 at 64 connections: 147 → see bench). Other server
    /// processes on the same database still meet the busy timeout. PostgreSQL runs requests side by side.
    private let turn: NSLock?

    /// Opens the database, bringing its schema up to date.
    init(_ database: ServerDatabase) throws {
        switch database {
        case .sqlite(let directory):
            let path = directory + "/server.sqlite"
            open = { try Database(path: path) }
            turn = NSLock()
            let first = try open()
            try first.migrate(ServerSchema.migrations)
            chmod(path, 0o600)
            idle.append(first)
        case .postgres(let uri):
            open = { try PostgresConnection(uri) }
            turn = nil
            let first = try open()
            try first.migrate(ServerSchema.postgresMigrations)
            idle.append(first)
        }
    }

    /// Runs `body` with a connection of its own (in this process's turn, on SQLite). A connection that broke
    /// (a restarted PostgreSQL) is dropped, and the next request opens a new one.
    func with<R>(_ body: (any SQLConnection) throws -> R) throws -> R {
        turn?.lock()
        defer { turn?.unlock() }
        lock.lock()
        let kept = idle.popLast()
        lock.unlock()
        let database = try kept ?? open()
        defer {
            if database.isUsable {
                lock.lock()
                idle.append(database)
                lock.unlock()
            }
        }
        return try body(database)
    }
}

/// Milliseconds since 1970, as stored.
func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
func date(milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
