import Foundation

extension SecurityCheck {
    /// Cards, documents and any item with an `expiry` field (an imported KeePass entry's expiry), not in the
    /// trash, past their expiry or within `expiryWarningDays` of it.
    static func findExpiries(_ items: [Item], now: Date, into findings: inout FindingList) {
        for item in items where !item.isTrashed {
            guard let expiry = expiryDate(item) else { continue }
            if expiry < now {
                findings.add(.expired, item, ["expiry": dayString(expiry)])
            } else if expiry.timeIntervalSince(now) <= Double(expiryWarningDays) * 86_400 {
                findings.add(.expiring, item, ["expiry": dayString(expiry)])
            }
        }
    }

    /// The last moment an item is valid: the end of a card's expiry month, or of a document's expiry day (UTC).
    static func expiryDate(_ item: Item) -> Date? {
        guard let field = item.fields.first(where: { $0.key == "expiry" && !$0.value.isEmpty }) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = field.value.split(separator: "-").compactMap { Int($0) }
        if field.kind == .monthYear, parts.count == 2 {
            guard let start = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: 1)),
                let next = calendar.date(byAdding: .month, value: 1, to: start)
            else { return nil }
            return next.addingTimeInterval(-1)
        }
        guard parts.count == 3, let day = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])) else { return nil }
        return day.addingTimeInterval(86_399)
    }
}
