import Foundation

/// One secret in a vault: a login, a card, a note, a key… The whole item, including its title, websites and
/// history, is encrypted together; nothing about it is stored in plain text.
public struct Item: Sendable, Equatable {
    /// Client-generated id (26 characters of Crockford base32).
    public var id: String
    public var category: Category
    public var title: String
    /// Typed fields of the category first, then custom fields, in the order the user chose.
    public var fields: [Field]
    /// Any number of websites, normalised with a scheme.
    public var websites: [String]
    public var notes: String
    public var tags: [String]
    public var isFavorite: Bool
    /// When the item was made; absent when unknown (imports), never guessed.
    public var created: Date?
    public var lastChanged: Date?
    /// Last time a value was copied or revealed for use.
    public var lastUsed: Date?
    /// Last time the item filled a form on this device.
    public var lastFilled: Date?
    /// Set while the item is in the trash.
    public var trashedAt: Date?
    /// Earlier versions, oldest first.
    public var history: [ItemVersion]
    /// Security Check findings the user dismissed (kinds), stored with the item.
    public var dismissals: [String]
    /// The result of the last breached-password check of this item's password, if one ran.
    public var passwordBreach: PasswordBreachMark?
    /// Keys written by a newer Passbox, kept unchanged on save.
    public var unknown: [String: PackedValue]
    /// The vault the item is in (`Vault.vaults`); nil in a file made before vaults existed: the first vault.
    public var vaultID: String?
    /// The item as the account's server last held it (account vaults only).
    public var syncBase: SyncBase?
    /// Whether this device changed the item since the server last held it (to be pushed).
    public var syncPending = false
    /// Searching for this phrase deletes the item silently (local vault; security.md §7).
    public var killphrase: PhraseDigest?
    /// The item is hidden except while the whole search is this phrase.
    public var searchPassphrase: PhraseDigest?
    /// The fields and notes, sealed under the item's own password (nil: not protected).
    public var sealed: SealedContent?
    /// Files kept with the item (their keys; the encrypted files are blobs beside the vault).
    public var attachments: [Attachment] = []
    /// WebAuthn credentials kept with a login (issue 35).
    public var passkeys: [Passkey] = []

    public init(
        id: String = Identifier.generateItemID(), category: Category, title: String = "", fields: [Field]? = nil,
        websites: [String] = [], notes: String = "", tags: [String] = [], isFavorite: Bool = false
    ) {
        self.id = id
        self.category = category
        self.title = title
        self.fields =
            fields
            ?? category.fieldTemplates.map { Field(key: $0.key, label: $0.label, kind: $0.kind, value: "") }
        self.websites = websites
        self.notes = notes
        self.tags = tags
        self.isFavorite = isFavorite
        history = []
        dismissals = []
        unknown = [:]
    }

    /// Whether the item is in the trash.
    public var isTrashed: Bool { trashedAt != nil }

    /// The field with that id, else the first with the given template key ("password"), else with that label
    /// (case-insensitive). The web UI names fields by id, so a custom field called "Notes" is never the notes.
    public func field(named name: String) -> Field? {
        fieldIndex(named: name).map { fields[$0] }
    }

    /// Index of the field with that id, key or label.
    public func fieldIndex(named name: String) -> Int? {
        fields.firstIndex { $0.id == name } ?? fields.firstIndex { $0.key == name } ?? fields.firstIndex { $0.label.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// The value of a field by key or label, or nil when absent or empty.
    public func value(of name: String) -> String? {
        guard let v = field(named: name)?.value, !v.isEmpty else { return nil }
        return v
    }

    /// Sets a typed field's value (adding the field from the template if missing) or a custom field's.
    public mutating func setValue(_ value: String, for name: String) {
        if let i = fieldIndex(named: name) {
            fields[i].value = value
        } else if let template = category.fieldTemplates.first(where: { $0.key == name }) {
            fields.append(Field(key: template.key, label: template.label, kind: template.kind, value: value))
        } else {
            fields.append(Field(label: name, kind: .text, value: value))
        }
    }

    /// The current password (the `password` field), if any.
    public var password: String? { value(of: "password") }
    /// The username (the `username` field), if any.
    public var username: String? { value(of: "username") }

    /// The content of the item without its history, for a history snapshot.
    var snapshot: Item {
        var copy = self
        copy.history = []
        copy.vaultID = nil
        copy.syncBase = nil
        copy.syncPending = false
        return copy
    }

    /// The item as it is synced: without what belongs to this device only (when it was last used or filled
    /// here, where it is on the server, whether it waits to be pushed).
    public var synced: Item {
        var copy = self
        for i in copy.passkeys.indices { copy.passkeys[i].lastUsed = nil }
        copy.lastUsed = nil
        copy.lastFilled = nil
        copy.vaultID = nil
        copy.syncBase = nil
        copy.syncPending = false
        return copy
    }

    /// A one-line summary safe to show in lists: never a secret, never a note's text.
    public var summary: String {
        if sealed != nil { return "Locked with its own password" }
        switch category {
        case .creditCard:
            if let number = value(of: "number") {
                let digits = number.filter(\.isNumber)
                return digits.count >= 4 ? "•••• \(digits.suffix(4))" : "Credit card"
            }
            return "Credit card"
        case .secureNote:
            let lines = notes.isEmpty ? 0 : notes.split(separator: "\n", omittingEmptySubsequences: false).count
            return "Secure note · \(lines) line\(lines == 1 ? "" : "s")"
        default:
            if let user = username { return user }
            if let site = websites.first { return site }
            if let first = fields.first(where: { !$0.kind.isConcealed && !$0.value.isEmpty }) { return first.value }
            return category.displayName
        }
    }
}

/// An earlier version of an item, kept in its history.
public struct ItemVersion: Sendable, Equatable {
    /// Id of this version, for `history restore`.
    public var id: String
    /// When this version was replaced by a newer one.
    public var replacedAt: Date
    /// The item as it was (without history).
    public var item: Item

    public init(id: String = Identifier.generateShort(), replacedAt: Date, item: Item) {
        self.id = id
        self.replacedAt = replacedAt
        self.item = item
    }
}

/// A password the item used to have.
public struct PreviousPassword: Sendable, Equatable {
    public var value: String
    /// When it stopped being the item's password.
    public var replacedAt: Date
}

/// What the opt-in breached-password check found for an item's password.
public struct PasswordBreachMark: Sendable, Equatable {
    public var checkedAt: Date
    /// How often the password appears in Pwned Passwords (0: not found).
    public var occurrences: Int
    /// Which password was checked: the first 8 bytes of its SHA-256, hex (inside the encrypted item), so a
    /// changed password is never reported as breached.
    public var fingerprint: String

    public init(checkedAt: Date, occurrences: Int, fingerprint: String) {
        self.checkedAt = checkedAt
        self.occurrences = occurrences
        self.fingerprint = fingerprint
    }
}

extension Item {
    /// When the current password was set: the last time a save changed it, else the item's creation; nil when
    /// unknown (an imported item without dates).
    public var passwordChangedAt: Date? {
        guard let current = password else { return nil }
        for version in history.reversed() where version.item.password != current { return version.replacedAt }
        return created
    }

    /// Earlier passwords, newest first, each listed once.
    public var previousPasswords: [PreviousPassword] {
        var seen = Set<String>()
        if let current = password { seen.insert(current) }
        var out = [PreviousPassword]()
        for version in history.reversed() {
            guard let old = version.item.password, !seen.contains(old) else { continue }
            seen.insert(old)
            out.append(PreviousPassword(value: old, replacedAt: version.replacedAt))
        }
        return out
    }
}
