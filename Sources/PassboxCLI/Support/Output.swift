import Foundation
import PassboxProtocol

/// Text and JSON rendering shared by the commands. Every cell of a table is made visible
/// (`Console.visible`) and cut to a width a terminal can show.
enum Output {
    static let mask = "••••••••"

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
                if last && multilineValues { return Console.visible(cell).replacingOccurrences(of: "\t", with: "\\u{9}") }
                return ItemRows.cell(cell, last: last).shown
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
        var widths = ItemTableWidths()
        for row in rows { widths.include(row) }
        return itemTable(rows, widths: widths, header: true)
    }

    /// Rows of the items' table padded to `widths` (worked out over the whole listing, possibly by the agent),
    /// with the header line first when `header`: so a listing's pages can be printed as they come. A cell
    /// wider than its column (widths from an agent that measured otherwise) is followed by two spaces.
    static func itemTable(_ rows: [ItemRow], widths: ItemTableWidths, header: Bool) -> String {
        var out = [UInt8]()
        out.reserveCapacity((rows.count + 1) * 96)
        let space = UInt8(ascii: " ")
        func add(_ cells: [String]) {
            for (column, text) in cells.enumerated() {
                let last = column == cells.count - 1
                let (shown, width) = ItemRows.cell(text, last: last)
                out.append(contentsOf: shown.utf8)
                if last {
                    out.append(UInt8(ascii: "\n"))
                } else {
                    out.append(contentsOf: repeatElement(space, count: max(widths.columns[column] - width, 0) + 2))
                }
            }
        }
        if header { add(ItemRows.headers) }
        for row in rows { add([String(row.id.prefix(8)), ItemRows.titleCell(row.title, favorite: row.favorite), row.categoryName, row.summary]) }
        return String(decoding: out, as: UTF8.self)
    }
}
