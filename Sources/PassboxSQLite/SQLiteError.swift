internal import CSQLite

/// An SQLite result code (the primary code, `rawValue & 0xFF`, is what callers match on).
public struct ResultCode: RawRepresentable, Equatable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let error = ResultCode(rawValue: SQLITE_ERROR)
    public static let busy = ResultCode(rawValue: SQLITE_BUSY)
    public static let locked = ResultCode(rawValue: SQLITE_LOCKED)
    public static let readOnly = ResultCode(rawValue: SQLITE_READONLY)
    public static let ioError = ResultCode(rawValue: SQLITE_IOERR)
    public static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
    public static let full = ResultCode(rawValue: SQLITE_FULL)
    public static let cannotOpen = ResultCode(rawValue: SQLITE_CANTOPEN)
    public static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
    public static let notADatabase = ResultCode(rawValue: SQLITE_NOTADB)
    public static let misuse = ResultCode(rawValue: SQLITE_MISUSE)
    public static let range = ResultCode(rawValue: SQLITE_RANGE)

    /// The primary code of an extended one (`SQLITE_CONSTRAINT_UNIQUE` → `constraint`).
    public var primary: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

    public var description: String { String(cString: sqlite3_errstr(rawValue)) }

    /// Matches an error's primary code, so callers can `catch let e as SQLiteError where e.code ~= .busy`
    /// or `case .constraint`.
    public static func ~= (pattern: ResultCode, value: ResultCode) -> Bool { pattern.primary == value.primary }
}

/// An SQLite failure: its code and SQLite's own message (which names tables and columns, never a bound
/// value), plus what the wrapper was doing.
public struct SQLiteError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: ResultCode
    public let message: String

    public init(code: ResultCode, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "SQLite \(code.rawValue) (\(code)): \(message)" }
}

/// Turns a return code into a thrown error once, in one place.
@inline(__always)
func check(_ result: Int32, _ handle: OpaquePointer?, _ doing: @autoclosure () -> String) throws(SQLiteError) {
    guard result != SQLITE_OK else { return }
    let detail = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(result))
    throw SQLiteError(code: ResultCode(rawValue: result), message: "\(doing()): \(detail)")
}
