import Foundation
import PassboxCore

/// Text and JSON rendering shared by the commands.
enum Format {
    static let mask = "••••••••"

    private static let dateFormatter: DateFormatter = {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy-MM-dd HH:mm"
        return f
    }()

    static func date(_ date: Date?) -> String { date.map { dateFormatter.string(from: $0) } ?? "" }

    static func iso(_ date: Date?) -> Any {
        guard let date else { return NSNull() }
        return ISO8601DateFormatter().string(from: date)
    }

    /// Pretty JSON with sorted keys and unescaped slashes.
    static func json(_ value: Any) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data("null".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// A table with left-aligned columns.
    static func table(_ rows: [[String]]) -> String {
        guard let first = rows.first else { return "" }
        var widths = [Int](repeating: 0, count: first.count)
        for row in rows { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) } }
        return rows.map { row in
            row.enumerated().map { i, cell in i == row.count - 1 ? cell : cell + String(repeating: " ", count: max(0, widths[i] - cell.count)) }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// The list view of an item: no secrets.
    static func listEntry(_ item: Item) -> [String: Any] {
        [
            "id": item.id, "title": item.title, "category": item.category.rawValue, "summary": item.summary,
            "websites": item.websites, "tags": item.tags, "favorite": item.isFavorite,
            "created": iso(item.created), "lastChanged": iso(item.lastChanged), "lastUsed": iso(item.lastUsed),
        ]
    }

    /// The full view of an item; concealed values are masked unless `reveal`.
    static func detail(_ item: Item, reveal: Bool) -> [String: Any] {
        var out = listEntry(item)
        out["notes"] = item.notes
        out["lastFilled"] = iso(item.lastFilled)
        out["trashedAt"] = iso(item.trashedAt)
        out["fields"] = item.fields.filter { !$0.value.isEmpty }.map { field -> [String: Any] in
            [
                "id": field.id, "key": field.key ?? NSNull(), "label": field.label, "kind": field.kind.rawValue,
                "custom": field.isCustom, "value": field.kind.isConcealed && !reveal ? mask : field.value,
            ]
        }
        out["historyCount"] = item.history.count
        return out
    }
}
