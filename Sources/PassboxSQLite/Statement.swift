internal import CSQLite

/// A prepared statement. Values are only ever bound (`?` parameters), never put into the SQL text.
public final class Statement {
    let handle: OpaquePointer
    private let database: Database

    init(database: Database, sql: String) throws(SQLiteError) {
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let result = sql.withCString { sqlite3_prepare_v2(database.handle, $0, -1, &statement, &tail) }
        try check(result, database.handle, "preparing a statement")
        guard let statement else { throw SQLiteError(code: .misuse, message: "preparing a statement: the SQL holds no statement") }
        self.handle = statement
        self.database = database
        if let tail, tail.pointee != 0, String(cString: tail).contains(where: { !$0.isWhitespace && $0 != ";" }) {
            throw SQLiteError(code: .misuse, message: "preparing a statement: only one statement may be prepared at a time")
        }
    }

    deinit { sqlite3_finalize(handle) }

    /// The number of `?` parameters.
    public var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    /// Binds `values` to the parameters in order (their count must match) after a reset.
    public func bind(_ values: [Value]) throws(SQLiteError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        guard values.count == parameterCount else {
            throw SQLiteError(code: .range, message: "binding: the statement has \(parameterCount) parameters, \(values.count) values were given")
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let result: Int32
            switch value {
            case .null: result = sqlite3_bind_null(handle, index)
            case .integer(let v): result = sqlite3_bind_int64(handle, index, v)
            case .real(let v): result = sqlite3_bind_double(handle, index, v)
            case .text(let v): result = sqlite3_bind_text64(handle, index, v, UInt64(v.utf8.count), CSQLite_transient(), UInt8(SQLITE_UTF8))
            case .blob(let v):
                result = v.withUnsafeBytes { sqlite3_bind_blob64(handle, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64(v.count), CSQLite_transient()) }
            }
            try check(result, database.handle, "binding parameter \(index)")
        }
    }

    /// Runs the statement to its end and returns every row.
    public func rows() throws(SQLiteError) -> [Row] {
        defer { sqlite3_reset(handle) }
        let count = Int(sqlite3_column_count(handle))
        let columns = (0..<count).map { String(cString: sqlite3_column_name(handle, Int32($0))) }
        var rows: [Row] = []
        while true {
            let result = sqlite3_step(handle)
            if result == SQLITE_DONE { return rows }
            guard result == SQLITE_ROW else { try check(result, database.handle, "running a statement"); return rows }
            rows.append(Row(values: (0..<count).map { column(Int32($0)) }, columns: columns))
        }
    }

    /// Runs a statement that returns no rows; the number of rows it changed.
    @discardableResult
    public func run() throws(SQLiteError) -> Int {
        defer { sqlite3_reset(handle) }
        while true {
            let result = sqlite3_step(handle)
            if result == SQLITE_DONE { return Int(sqlite3_changes64(database.handle)) }
            if result != SQLITE_ROW { try check(result, database.handle, "running a statement") }
        }
    }

    private func column(_ index: Int32) -> Value {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard let text = sqlite3_column_text(handle, index) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }
}
