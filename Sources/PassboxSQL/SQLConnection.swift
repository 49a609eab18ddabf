/// One connection to a SQL database, whichever engine is behind it (SQLite or PostgreSQL). The server's
/// storage speaks only this, in the SQL both engines read alike: `?` parameters, `ON CONFLICT … DO
/// UPDATE/NOTHING`, `RETURNING`, integers, text and byte strings. A connection is used by one thread at a
/// time; values reach SQL only as bound parameters.
public protocol SQLConnection: AnyObject {
    /// Runs one statement with its values bound; the number of rows it changed.
    @discardableResult
    func run(_ sql: String, _ values: [Value]) throws -> Int

    /// Runs one query (or a statement with `RETURNING`) with its values bound; every row.
    func rows(_ sql: String, _ values: [Value]) throws -> [Row]

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws (the error is
    /// passed on). Inside another transaction this is a savepoint of it.
    func transaction<R>(_ body: () throws -> R) throws -> R

    /// Brings the schema up to `migrations.count` (each step whole, a database newer than the code refused).
    @discardableResult
    func migrate(_ migrations: [Migration]) throws -> (from: Int, to: Int)

    /// Whether the connection still works (false once a server it talks to has gone).
    var isUsable: Bool { get }
}

extension SQLConnection {
    public var isUsable: Bool { true }
}

/// A failure of the database engine that callers may need to tell apart; everything else is just an error.
public protocol SQLEngineError: Error {
    /// A unique or primary-key constraint refused the change (two writers raced to insert the same key).
    var isUniqueViolation: Bool { get }
}

/// One step of a schema, numbered from 1 without gaps.
public struct Migration: Sendable {
    public let version: Int
    public let sql: String

    public init(_ version: Int, _ sql: String) {
        self.version = version
        self.sql = sql
    }

    /// Checks the numbering (a programmer error when it has a gap).
    public static func checkNumbering(_ migrations: [Migration]) {
        for (offset, migration) in migrations.enumerated() {
            precondition(migration.version == offset + 1, "migrations are numbered 1, 2, 3… without gaps")
        }
    }
}

/// Why a database's schema cannot be brought up to date.
public enum MigrationError: Error, Equatable, Sendable {
    /// The database was written by a newer Passbox: its schema version is above the newest this code knows.
    case databaseIsNewer(database: Int, newestKnown: Int)
}
