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

    /// A summary; with `vault`, an item of a shared vault carries its badge and whether it is view-only.
    public static func summary(_ item: Item, match: String? = nil, in vault: Vault? = nil) -> ItemSummary {
        var summary = ItemSummary(
            id: item.id, title: cut(item.title), category: item.category.rawValue, categoryName: item.category.displayName, summary: cut(item.summary),
            websites: item.websites.map(cut), tags: item.tags.map(cut), favorite: item.isFavorite, created: item.created, lastChanged: item.lastChanged,
            lastUsed: item.lastUsed, trashedAt: item.trashedAt, match: match, locked: item.sealed == nil ? nil : true)
        (summary.shared, summary.viewOnly) = sharing(item, in: vault)
        if hasCode(item) { summary.hasCode = true }
        if !item.passkeys.isEmpty { summary.passkeys = item.passkeys.count }
        return summary
    }

    /// Whether the item holds a one-time-password setup that can be read (a sealed item's fields are not).
    static func hasCode(_ item: Item) -> Bool { item.sealed == nil && item.fields.contains { $0.kind == .otp && !$0.value.isEmpty } }

    /// The badge of an item in a shared vault — the organisation's name, with the vault's after it — and
    /// whether this account may only view it.
    static func sharing(_ item: Item, in vault: Vault?) -> (String?, Bool?) {
        guard let vault, let id = item.vaultID, let sync = vault.sync, let org = sync.org(of: id), let st = sync.shared?[org] else { return (nil, nil) }
        // The organisation's name, and the vault's when it is another (a family's own vault is named as the family).
        let name = st.orgName ?? org
        let vaultName = vault.vaults.first { $0.id == id }?.name ?? id
        let badge = vaultName == name ? name : name + " · " + vaultName
        return (badge, sync.isViewOnly(id) ? true : nil)
    }

    /// `strength`: rate the password field (the item's `show`; not its history versions nor a benchmark).
    public static func detail(_ item: Item, reveal: Bool, now: Date, in vault: Vault? = nil, strength: Bool = false) -> ItemDetail {
        var full = summary(item, in: vault)
        full.title = item.title
        let fields = item.fields.filter { !$0.value.isEmpty }.map { field -> FieldView in
            let masked = field.kind.isConcealed && !reveal
            var view = FieldView(
                id: field.id, key: field.key, label: field.label, kind: field.kind.rawValue, custom: field.isCustom, concealed: field.kind.isConcealed,
                masked: masked, value: masked ? "" : field.value)
            if field.kind == .otp, let p = try? OTPInput.parse(field.value) {
                view.code = CodeViews.peek(p, item: item, now: now)
            }
            if strength, field.key == "password", field.kind.isConcealed, (try? PasswordStrength.checkAvailability()) != nil {
                view.strength = PasswordStrength.estimate(field.value, userInputs: [item.title] + item.fields.filter { $0.key == "username" }.map(\.value)).score
            }
            return view
        }
        var detail = ItemDetail(summary: full, fields: fields, notes: item.notes, lastFilled: item.lastFilled, historyCount: item.history.count)
        detail.websites = item.websites
        detail.tags = item.tags
        if !item.passkeys.isEmpty {
            detail.passkeys = item.passkeys.map {
                PasskeyView(credential: $0.credentialText, rp: $0.relyingParty, userName: $0.userName, displayName: $0.displayName, created: $0.created, lastUsed: $0.lastUsed, signCount: Int($0.signCount))
            }
        }
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
