/// One SQL value, as bound to a parameter or read from a column (SQLite and PostgreSQL alike).
public enum Value: Equatable, Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    public var integer: Int64? { if case .integer(let v) = self { v } else { nil } }
    public var text: String? { if case .text(let v) = self { v } else { nil } }
    public var blob: [UInt8]? {
        switch self {
        case .blob(let v): v
        case .null: nil
        case .text(let t): Array(t.utf8)
        default: nil
        }
    }
    public var isNull: Bool { self == .null }
}

extension Value: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByNilLiteral {
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(nilLiteral: ()) { self = .null }
}

/// One result row: its values by column position, and the column names.
public struct Row: Sendable, Equatable {
    public let values: [Value]
    public let columns: [String]

    public init(values: [Value], columns: [String]) {
        self.values = values
        self.columns = columns
    }

    public subscript(_ index: Int) -> Value { values[index] }
    /// The value of the column `name` (`.null` when there is no such column).
    public subscript(_ name: String) -> Value { columns.firstIndex(of: name).map { values[$0] } ?? .null }
}
