import Foundation

/// A page of a listing as text rows, for a surface that shows a table (`ListRequest.rows`): one line an item,
/// five fields separated by tabs — id, favorite ("1" or empty), title, category name, summary — with a
/// backslash, tab and line feed inside a field written `\\`, `\t` and `\n`. One string decodes far faster than
/// a thousand keyed objects (Foundation's JSON decoder was 61% of `passbox list`'s time at 10,000 items), and
/// an agent that does not know the request's `rows` still answers `items`, which the reader takes instead.
public struct ItemRow: Sendable, Equatable {
    public var id: String
    public var favorite: Bool
    public var title: String
    public var categoryName: String
    public var summary: String

    public init(id: String, favorite: Bool, title: String, categoryName: String, summary: String) {
        self.id = id
        self.favorite = favorite
        self.title = title
        self.categoryName = categoryName
        self.summary = summary
    }

    public init(_ item: ItemSummary) {
        // An item of a shared vault shows its badge first ("[Doe family] alice@example.org").
        let summary = item.shared.map { "[\($0)] " + item.summary } ?? item.summary
        self.init(id: item.id, favorite: item.favorite, title: item.title, categoryName: item.categoryName, summary: summary)
    }
}

public enum ItemRows {
    private static let tab = UInt8(ascii: "\t"), lineFeed = UInt8(ascii: "\n"), backslash = UInt8(ascii: "\\")

    /// The rows as text.
    public static func encode(_ rows: [ItemRow]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(rows.count * 96)
        for row in rows {
            append(row.id, to: &out)
            out.append(tab)
            if row.favorite { out.append(UInt8(ascii: "1")) }
            out.append(tab)
            append(row.title, to: &out)
            out.append(tab)
            append(row.categoryName, to: &out)
            out.append(tab)
            append(row.summary, to: &out)
            out.append(lineFeed)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The rows of `text`; nil when a line does not have its five fields (a damaged or foreign answer).
    public static func decode(_ text: String) -> [ItemRow]? {
        var rows = [ItemRow]()
        var text = text
        return text.withUTF8 { bytes -> [ItemRow]? in
            var fields = [String]()
            fields.reserveCapacity(5)
            var start = 0, index = 0
            var escaped = false
            while index < bytes.count {
                let byte = bytes[index]
                if byte == backslash {
                    escaped = true
                    index += 2
                    continue
                }
                if byte == tab || byte == lineFeed {
                    fields.append(field(bytes, start, index, escaped))
                    escaped = false
                    start = index + 1
                    if byte == lineFeed {
                        guard fields.count == 5 else { return nil }
                        rows.append(ItemRow(id: fields[0], favorite: fields[1] == "1", title: fields[2], categoryName: fields[3], summary: fields[4]))
                        fields.removeAll(keepingCapacity: true)
                    }
                }
                index += 1
            }
            guard start == bytes.count, fields.isEmpty else { return nil }
            return rows
        }
    }

    private static func append(_ text: String, to out: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case backslash: out += [backslash, backslash]
            case tab: out += [backslash, UInt8(ascii: "t")]
            case lineFeed: out += [backslash, UInt8(ascii: "n")]
            default: out.append(byte)
            }
        }
    }

    private static func field(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ escaped: Bool) -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<min(end, bytes.count)])
        guard escaped else { return String(decoding: slice, as: UTF8.self) }
        var out = [UInt8]()
        out.reserveCapacity(slice.count)
        var index = 0
        while index < slice.count {
            if slice[index] == backslash, index + 1 < slice.count {
                switch slice[index + 1] {
                case UInt8(ascii: "t"): out.append(tab)
                case UInt8(ascii: "n"): out.append(lineFeed)
                default: out.append(slice[index + 1])
                }
                index += 2
            } else {
                out.append(slice[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// The widths of the item table's padded columns (ID, TITLE, CATEGORY; DETAILS, the last, is not padded),
/// measured as the table shows its cells (`ItemRows.cell`). The agent measures every item of a listing once
/// and sends the widths with each page of rows (`ItemListReply.widths`), so `passbox list` prints each page
/// as it comes instead of holding the whole table for a padding pass.
public struct ItemTableWidths: Sendable, Equatable {
    public private(set) var columns: [Int]

    /// The headers' widths.
    public init() { columns = ItemRows.headers.prefix(3).map { $0.count } }

    /// Widths another process sent: three, each at most `ItemRows.cellLimit`, else nil.
    public init?(sent: [Int]?) {
        guard let sent, sent.count == 3, sent.allSatisfy({ (0...ItemRows.cellLimit).contains($0) }) else { return nil }
        columns = sent
    }

    /// Widens the columns to hold one item's cells.
    public mutating func include(id: String, title: String, favorite: Bool, categoryName: String) {
        let cells = [String(id.prefix(8)), ItemRows.titleCell(title, favorite: favorite), categoryName]
        for (i, text) in cells.enumerated() { columns[i] = max(columns[i], ItemRows.cell(text, last: false).width) }
    }

    public mutating func include(_ row: ItemRow) {
        include(id: row.id, title: row.title, favorite: row.favorite, categoryName: row.categoryName)
    }
}

extension ItemRows {
    /// The widest a cell of the padded columns shows; a longer one is cut and ends in "…".
    public static let cellLimit = 120
    public static let headers = ["ID", "TITLE", "CATEGORY", "DETAILS"]

    /// The title column's text: a favourite's starts with a star.
    public static func titleCell(_ title: String, favorite: Bool) -> String { favorite ? "★ " + title : title }

    /// A cell as the table shows it and its width in characters: printable ASCII (most cells) is measured by
    /// its bytes; anything else is made visible (`VisibleText.visibleLine`) and counted in characters. A cell
    /// of a padded column (not `last`) longer than `cellLimit` is cut.
    public static func cell(_ text: String, last: Bool) -> (shown: String, width: Int) {
        var shown = text, width = 0
        if text.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) {
            width = text.utf8.count
        } else {
            shown = VisibleText.visibleLine(text)
            width = shown.count
        }
        if !last, width > cellLimit {
            shown = String(shown.prefix(cellLimit - 1)) + "…"
            width = cellLimit
        }
        return (shown, width)
    }
}
