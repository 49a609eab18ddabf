@_exported import PassboxSQL
internal import CPQSupport

/// A PostgreSQL failure: its SQLSTATE and the server's primary message (which names tables and
/// constraints, never a bound value), plus what the wrapper was doing.
public struct PostgresError: Error, Sendable, CustomStringConvertible, SQLEngineError {
    public let sqlState: String
    public let message: String

    public init(sqlState: String, message: String) {
        self.sqlState = sqlState
        self.message = message
    }

    public var isUniqueViolation: Bool { sqlState == "23505" }
    public var description: String { sqlState.isEmpty ? "PostgreSQL: \(message)" : "PostgreSQL \(sqlState): \(message)" }
}

/// One PostgreSQL connection through libpq (loaded on first use). Statements are written as for SQLite,
/// with `?` parameters; they are numbered (`$1`, `$2`, …) here once per text and sent with
/// `PQexecParams`, every value bound in binary, every result read in binary. Read committed isolation: the
/// server's storage makes each race-prone change one atomic statement (`DELETE … RETURNING`, conditional
/// `UPDATE`s, upserts), so it needs no stronger level.
public final class PostgresConnection: SQLConnection {
    private let handle: UnsafeMutableRawPointer
    private var numbered: [String: String] = [:]
    private var depth = 0

    /// Connects with a `postgresql://` URI or a libpq `key=value` string.
    public init(_ connection: String) throws(PostgresError) {
        var error = [CChar](repeating: 0, count: 512)
        guard let handle = CPQ_connect(connection, &error, error.count) else {
            let reason = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw PostgresError(sqlState: "", message: "connecting: " + reason.trimmingSuffixWhitespace())
        }
        self.handle = handle
        // Dates, text and numbers are bound as numbers and bytes, so the session's locale settings never matter.
        CPQ_clear(try execute("SET client_min_messages = warning", []))
    }

    deinit { CPQ_finish(handle) }

    /// Whether the connection still works (a restarted server or a dropped network ends it).
    public var isUsable: Bool { CPQ_isOK(handle) != 0 }

    /// Waits for a notification on a channel this connection LISTENs on; its payload, or nil after `timeout`
    /// seconds without one. A broken connection throws.
    public func nextNotification(timeout: Double) throws -> String? {
        var payload = [CChar](repeating: 0, count: 8192)
        switch CPQ_waitNotification(handle, Int32(timeout * 1000), &payload, payload.count) {
        case 1: return String(decoding: payload.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        case 0: return nil
        default: throw PostgresError(sqlState: "", message: "the notification connection failed")
        }
    }

    @discardableResult
    public func run(_ sql: String, _ values: [Value]) throws -> Int {
        let result = try execute(sql, values)
        defer { CPQ_clear(result) }
        return Int(String(cString: CPQ_changedRows(result))) ?? 0
    }

    public func rows(_ sql: String, _ values: [Value]) throws -> [Row] {
        let result = try execute(sql, values)
        defer { CPQ_clear(result) }
        let count = Int(CPQ_rowCount(result)), width = Int(CPQ_columnCount(result))
        let columns = (0..<width).map { String(cString: CPQ_columnName(result, Int32($0))) }
        let types = (0..<width).map { CPQ_columnType(result, Int32($0)) }
        var rows: [Row] = []
        rows.reserveCapacity(count)
        for row in 0..<count {
            var values: [Value] = []
            values.reserveCapacity(width)
            for column in 0..<width {
                values.append(try Self.decode(result, Int32(row), Int32(column), type: types[column], name: columns[column]))
            }
            rows.append(Row(values: values, columns: columns))
        }
        return rows
    }

    /// Runs SQL that takes no values; several statements may be given (schema steps).
    public func execute(_ script: String) throws {
        let result = CPQ_executeScript(handle, script)
        defer { CPQ_clear(result) }
        guard CPQ_outcome(result) >= 0 else { throw failure(result, "running SQL") }
    }

    public func transaction<R>(_ body: () throws -> R) throws -> R {
        let entry = depth
        let nested = entry > 0
        let savepoint = "passbox_nested_\(entry)"
        try execute(nested ? "SAVEPOINT \(savepoint)" : "BEGIN")
        depth = entry + 1
        do {
            let result = try body()
            depth = entry
            try execute(nested ? "RELEASE SAVEPOINT \(savepoint)" : "COMMIT")
            return result
        } catch {
            depth = entry
            // After a failure PostgreSQL refuses every statement until the rollback; a failed COMMIT has
            // ended the transaction already, and the ROLLBACK then only warns.
            try? execute(nested ? "ROLLBACK TO SAVEPOINT \(savepoint); RELEASE SAVEPOINT \(savepoint)" : "ROLLBACK")
            throw error
        }
    }

    /// The schema's version lives in `passbox_schema`. Each step runs in its own transaction holding an
    /// advisory lock, so two server processes starting at once apply it once; a database newer than the code
    /// is refused and left as it is.
    @discardableResult
    public func migrate(_ migrations: [Migration]) throws -> (from: Int, to: Int) {
        Migration.checkNumbering(migrations)
        var start: Int?
        var step = 0
        repeat {
            let done = try transaction { () -> Bool in
                try execute("SELECT pg_advisory_xact_lock(727274); CREATE TABLE IF NOT EXISTS passbox_schema (version BIGINT NOT NULL)")
                try run("INSERT INTO passbox_schema (version) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM passbox_schema)", [])
                let version = Int(try rows("SELECT version FROM passbox_schema", []).first?[0].integer ?? 0)
                if start == nil { start = version }
                guard version <= migrations.count else { throw MigrationError.databaseIsNewer(database: version, newestKnown: migrations.count) }
                guard version < migrations.count else { return true }
                try execute(migrations[version].sql)
                try run("UPDATE passbox_schema SET version = ?", [.integer(Int64(version + 1))])
                return false
            }
            if done { break }
            step += 1
        } while step <= migrations.count
        return (start ?? 0, migrations.count)
    }

    // MARK: - Statements

    private func execute(_ sql: String, _ values: [Value]) throws(PostgresError) -> UnsafeMutableRawPointer {
        let text: String
        if let kept = numbered[sql] {
            text = kept
        } else {
            text = Self.numberParameters(sql)
            numbered[sql] = text
        }
        var types: [UInt32] = [], lengths: [Int32] = [], formats: [Int32] = []
        var buffers: [UnsafeMutablePointer<CChar>?] = []
        defer { for buffer in buffers { buffer?.deallocate() } }
        for value in values {
            let bytes: [UInt8]?
            let type: UInt32
            switch value {
            case .null: (bytes, type) = (nil, 0)
            case .integer(let v): (bytes, type) = (Self.bigEndian(UInt64(bitPattern: v)), 20)
            case .real(let v): (bytes, type) = (Self.bigEndian(v.bitPattern), 701)
            case .text(let v): (bytes, type) = (Array(v.utf8), 25)
            case .blob(let v): (bytes, type) = (v, 17)
            }
            types.append(type)
            formats.append(1)
            lengths.append(Int32(bytes?.count ?? 0))
            if let bytes {
                let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(bytes.count, 1))
                bytes.withUnsafeBytes { raw in
                    if let base = raw.baseAddress { UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: bytes.count) }
                }
                buffers.append(buffer)
            } else {
                buffers.append(nil)
            }
        }
        let pointers = buffers.map { UnsafePointer($0) }
        let result = pointers.withUnsafeBufferPointer { values in
            CPQ_execute(handle, text, Int32(types.count), types, values.baseAddress, lengths, formats)
        }
        guard let result, CPQ_outcome(result) >= 0 else {
            let error = failure(result, "running a statement")
            CPQ_clear(result)
            throw error
        }
        return result
    }

    private func failure(_ result: UnsafeMutableRawPointer?, _ doing: String) -> PostgresError {
        let state = String(cString: CPQ_sqlState(result))
        var message = String(cString: CPQ_message(result))
        if message.isEmpty { message = String(cString: CPQ_connectionMessage(handle)).trimmingSuffixWhitespace() }
        return PostgresError(sqlState: state, message: "\(doing): \(message)")
    }

    private static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) }
    }

    private static func decode(_ raw: UnsafeMutableRawPointer, _ row: Int32, _ column: Int32, type: UInt32, name: String) throws(PostgresError) -> Value {
        if CPQ_isNull(raw, row, column) != 0 { return .null }
        let length = Int(CPQ_length(raw, row, column))
        let bytes = Array(UnsafeBufferPointer(start: CPQ_value(raw, row, column), count: length))
        func integer() -> Int64 {
            var value: UInt64 = 0
            for byte in bytes { value = value << 8 | UInt64(byte) }
            // Sign-extend the narrower integer types.
            let shift = UInt64(64 - 8 * length)
            return length == 8 ? Int64(bitPattern: value) : Int64(bitPattern: value << shift) >> Int64(shift)
        }
        switch type {
        case 16: return .integer(bytes.first == 0 ? 0 : 1)
        case 20, 21, 23: return .integer(integer())
        case 25, 1043, 19, 18: return .text(String(decoding: bytes, as: UTF8.self))
        case 17: return .blob(bytes)
        case 701: return .real(Double(bitPattern: UInt64(bitPattern: integer())))
        case 700:
            var value: UInt32 = 0
            for byte in bytes { value = value << 8 | UInt32(byte) }
            return .real(Double(Float(bitPattern: value)))
        default: throw PostgresError(sqlState: "", message: "reading column \(name): type \(type) is not one Passbox stores")
        }
    }

    /// `?` parameters numbered `$1`, `$2`, … (a `?` inside quotes, or a comment, is left alone).
    static func numberParameters(_ sql: String) -> String {
        var out = "", number = 0
        var quote: Character?
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                out.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                out.append(character)
            } else if character == "?" {
                number += 1
                out += "$\(number)"
            } else {
                out.append(character)
            }
        }
        return out
    }
}

extension String {
    func trimmingSuffixWhitespace() -> String {
        var text = self
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return text
    }
}
