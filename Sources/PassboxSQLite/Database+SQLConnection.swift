@_exported import PassboxSQL
internal import CSQLite

/// An SQLite connection is one of the server's two storage engines.
extension Database: SQLConnection {}

extension SQLiteError: SQLEngineError {
    public var isUniqueViolation: Bool {
        // SQLITE_CONSTRAINT_UNIQUE and SQLITE_CONSTRAINT_PRIMARYKEY (function-like macros Swift does not import).
        code.rawValue == SQLITE_CONSTRAINT | (8 << 8) || code.rawValue == SQLITE_CONSTRAINT | (6 << 8)
    }
}
