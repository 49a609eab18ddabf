import Foundation
import PassboxCore
import PassboxProtocol

/// Turning items into wire values: summaries never carry a secret; details mask concealed values unless
/// the request asked to reveal them.
public enum ItemViews {
    /// Titles and summaries in lists are cut here so one huge title cannot make every list reply huge.
    static let displayLimit = 200

    static func cut(_ text: String) -> String {
        guard text.count > displayLimit else { return text }
        return String(text.prefix(displayLimit)) + "…"
    }

    public static func summary(_ item: Item, match: String? = nil) -> ItemSummary {
        ItemSummary(
            id: item.id, title: cut(item.title), category: item.category.rawValue, categoryName: item.category.displayName, summary: cut(item.summary),
            websites: item.websites.map(cut), tags: item.tags.map(cut), favorite: item.isFavorite, created: item.created, lastChanged: item.lastChanged,
            lastUsed: item.lastUsed, trashedAt: item.trashedAt, match: match, locked: item.sealed == nil ? nil : true)
    }

    public static func detail(_ item: Item, reveal: Bool, now: Date) -> ItemDetail {
        var full = summary(item)
        full.title = item.title
        let fields = item.fields.filter { !$0.value.isEmpty }.map { field -> FieldView in
            let masked = field.kind.isConcealed && !reveal
            var view = FieldView(
                id: field.id, key: field.key, label: field.label, kind: field.kind.rawValue, custom: field.isCustom, concealed: field.kind.isConcealed,
                masked: masked, value: masked ? "" : field.value)
            if field.kind == .otp, let p = try? OTPInput.parse(field.value) {
                view.code = CodeViews.peek(p, item: item, now: now)
            }
            return view
        }
        var detail = ItemDetail(summary: full, fields: fields, notes: item.notes, lastFilled: item.lastFilled, historyCount: item.history.count)
        detail.websites = item.websites
        detail.tags = item.tags
        return detail
    }
}

enum CodeViews {
    /// A TOTP code now, or an HOTP counter without a code (showing one must advance the counter).
    static func peek(_ p: OTPParameters, item: Item, now: Date) -> CodeReply {
        if p.kind == .hotp {
            return CodeReply(kind: "hotp", code: nil, secondsLeft: nil, period: nil, counter: Int(clamping: p.counter), itemID: item.id, title: item.title)
        }
        let current = try? p.currentCode(at: now)
        return CodeReply(kind: "totp", code: current?.code, secondsLeft: current?.secondsLeft, period: Int(clamping: p.period), counter: nil, itemID: item.id, title: item.title)
    }
}
