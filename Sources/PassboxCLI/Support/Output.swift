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

    /// The items' table as `table` makes it, ending in a line feed, built in one buffer for the 100,000 rows a
    /// vault may list: a cell of printable ASCII (most of them) is measured by its bytes; any other goes through
    /// `Console.visibleLine` and is counted in characters.
    static func itemTable(_ rows: [ItemRow]) -> String {
        let columns = 4
        var texts = [String](), widths = [Int]()
        texts.reserveCapacity((rows.count + 1) * columns)
        widths.reserveCapacity((rows.count + 1) * columns)
        func add(_ text: String, last: Bool) {
            var shown = text, width = 0
            if text.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) {
                width = text.utf8.count
            } else {
                shown = Console.visibleLine(text)
                width = shown.count
            }
            if !last, width > cellLimit {
                shown = String(shown.prefix(cellLimit - 1)) + "…"
                width = cellLimit
            }
            texts.append(shown)
            widths.append(width)
        }
        for header in ["ID", "TITLE", "CATEGORY"] { add(header, last: false) }
        add("DETAILS", last: true)
        for row in rows {
            add(String(row.id.prefix(8)), last: false)
            add(row.favorite ? "★ " + row.title : row.title, last: false)
            add(row.categoryName, last: false)
            add(row.summary, last: true)
        }
        var columnWidths = [Int](repeating: 0, count: columns)
        for index in widths.indices { columnWidths[index % columns] = max(columnWidths[index % columns], widths[index]) }
        var out = [UInt8]()
        out.reserveCapacity(texts.count * 24)
        let space = UInt8(ascii: " ")
        for index in texts.indices {
            let column = index % columns
            out.append(contentsOf: texts[index].utf8)
            if column == columns - 1 {
                out.append(UInt8(ascii: "\n"))
            } else {
                out.append(contentsOf: repeatElement(space, count: columnWidths[column] - widths[index] + 2))
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
