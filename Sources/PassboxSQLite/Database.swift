internal import CSQLite

/// One SQLite connection: WAL journal, durable commits (`synchronous = FULL`), foreign keys on, a busy
/// timeout. A connection is used by one thread at a time (a server keeps a connection per worker); values
/// reach SQL only as bound parameters.
public final class Database {
    let handle: OpaquePointer
    private var statements: [String: Statement] = [:]

    /// How long a statement waits for another connection's write lock before it fails with `busy`.
    public static let busyTimeoutMilliseconds: Int32 = 5_000

    /// Opens (creating if needed) the database at `path`; `":memory:"` is a private in-memory database.
    public init(path: String) throws(SQLiteError) {
        let db = try Self.openHandle(path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, doing: "opening the database")
        handle = db
        sqlite3_busy_timeout(db, Self.busyTimeoutMilliseconds)
        // Reading the journal mode back also proves the file is a database (a stranger file fails here).
        if path != ":memory:" {
            let mode = try rows("PRAGMA journal_mode = WAL").first?[0].text
            guard mode?.lowercased() == "wal" else {
                throw SQLiteError(code: .error, message: "opening the database: it cannot use a write-ahead log (journal mode \(mode ?? "unknown"))")
            }
        }
        try execute("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;")
    }

    /// A connection to `path` opened with `flags` (and NOMUTEX, EXRESCODE): on a failure what SQLite made is
    /// closed, and the error says `doing` and SQLite's reason.
    static func openHandle(_ path: String, flags: Int32, doing: String) throws(SQLiteError) -> OpaquePointer {
        var db: OpaquePointer?
        let result = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE, nil)
        guard let db else { throw SQLiteError(code: ResultCode(rawValue: result), message: "\(doing): out of memory") }
        guard result == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(db))
            sqlite3_close_v2(db)
            throw SQLiteError(code: ResultCode(rawValue: result), message: "\(doing): \(message)")
        }
        return db
    }

    /// A connection `openReadOnly` opened: nothing is set on it, as nothing may be written.
    init(readOnlyHandle: OpaquePointer) {
        handle = readOnlyHandle
        sqlite3_busy_timeout(readOnlyHandle, Self.busyTimeoutMilliseconds)
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs SQL that takes no values (schema changes, pragmas); several statements may be given.
    public func execute(_ sql: String) throws(SQLiteError) {
        try check(sqlite3_exec(handle, sql, nil, nil, nil), handle, "running SQL")
    }

    /// A prepared statement for `sql`, kept and reused for the same text.
    public func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        if let kept = statements[sql] { return kept }
        let statement = try Statement(database: self, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// Runs one statement with its values bound; the number of rows it changed.
    @discardableResult
    public func run(_ sql: String, _ values: [Value] = []) throws(SQLiteError) -> Int {
        let statement = try prepare(sql)
        try statement.bind(values)
        return try statement.run()
    }

    /// Runs one query with its values bound; every row.
    public func rows(_ sql: String, _ values: [Value] = []) throws(SQLiteError) -> [Row] {
        let statement = try prepare(sql)
        try statement.bind(values)
        return try statement.rows()
    }

    /// The row id of the last row inserted through this connection.
    public var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Whether a transaction is open on this connection.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws (the error is
    /// passed on). The write lock is taken at the start (`BEGIN IMMEDIATE`), so two writers never deadlock
    /// upgrading read locks. Inside another transaction this is a savepoint of it.
    public func transaction<R>(_ body: () throws -> R) throws -> R {
        let nested = isInTransaction
        try execute(nested ? "SAVEPOINT passbox_nested" : "BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute(nested ? "RELEASE passbox_nested" : "COMMIT")
            return result
        } catch {
            // A failed COMMIT leaves the transaction open; roll it back either way.
            if nested {
                try? execute("ROLLBACK TO passbox_nested; RELEASE passbox_nested")
            } else if isInTransaction {
                try? execute("ROLLBACK")
            }
            throw error
        }
    }
}
