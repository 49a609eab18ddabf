import Foundation
import PassboxProtocol

/// Text and JSON rendering shared by the commands. Every cell of a table is made visible
/// (`Console.visible`) and cut to a width a terminal can show.
enum Output {
    static let mask = "••••••••"
    static let cellLimit = 120

    private static let dateFormatter: DateFormatter = {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy-MM-dd HH:mm"
        return f
    }()

    /// "1 item", "2 items": a count with its noun (English nouns that take an s).
    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    static func date(_ date: Date?) -> String { date.map { dateFormatter.string(from: $0) } ?? "" }

    static func day(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd"
        return f.string(from: date)
    }

    /// A reply body as pretty JSON (sorted keys, ISO 8601 dates): the `--json` output of every command.
    static func json<T: Encodable>(_ value: T) throws {
        Console.out(String(decoding: try ProtocolCoding.encode(value, pretty: true), as: UTF8.self))
    }

    /// A table with left-aligned columns; cells are made visible and cut (but the last column) so one huge
    /// value cannot widen every row. A line feed or tab in a cell is shown as `\u{A}` / `\u{9}` so no value
    /// can forge a row; only `show`'s values (`multilineValues`) keep their line feeds, indented under the value.
    static func table(_ rows: [[String]], multilineValues: Bool = false) -> String {
        guard let first = rows.first else { return "" }
        let cells = rows.map { row in
            row.enumerated().map { i, cell -> String in
                let last = i == row.count - 1
                let shown = last && multilineValues ? Console.visible(cell).replacingOccurrences(of: "\t", with: "\\u{9}") : Console.visibleLine(cell)
                return i < row.count - 1 && shown.count > cellLimit ? String(shown.prefix(cellLimit - 1)) + "…" : shown
            }
        }
        var widths = [Int](repeating: 0, count: first.count)
        for row in cells { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) } }
        return cells.map { row in
            row.enumerated().map { i, cell in i == row.count - 1 ? cell : cell + String(repeating: " ", count: max(0, widths[i] - cell.count)) }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    static func itemTable(_ items: [ItemSummary]) -> String {
        table([["ID", "TITLE", "CATEGORY", "DETAILS"]] + items.map { [String($0.id.prefix(8)), ($0.favorite ? "★ " : "") + $0.title, $0.categoryName, $0.summary] })
    }
}
