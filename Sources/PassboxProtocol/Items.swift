import Foundation

/// An item in a list: never a secret. Long titles and summaries are cut for display (`isTruncated`).
public struct ItemSummary: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    public var category: String
    /// The category's display name ("Login", "Credit Card").
    public var categoryName: String
    public var summary: String
    public var websites: [String]
    public var tags: [String]
    public var favorite: Bool
    public var created: Date?
    public var lastChanged: Date?
    public var lastUsed: Date?
    public var trashedAt: Date?
    /// How a search matched: title-prefix, title-word, title, field, near.
    public var match: String?
    /// The item's content is sealed under a password of its own.
    public var locked: Bool?
    /// The item is in a shared vault: its badge ("Doe family", "Customers · Sales"), and whether this account
    /// may only view it (issue 32, SHR-5).
    public var shared: String?
    public var viewOnly: Bool?
    /// The item holds a one-time-password setup (LST-5's "2FA codes" filter and count; generation 16).
    public var hasCode: Bool?
    /// How many passkeys the item holds (the Passkeys filter and count; generation 18).
    public var passkeys: Int?

    public init(
        id: String, title: String, category: String, categoryName: String, summary: String, websites: [String], tags: [String], favorite: Bool,
        created: Date?, lastChanged: Date?, lastUsed: Date?, trashedAt: Date? = nil, match: String? = nil, locked: Bool? = nil
    ) {
        self.locked = locked
        self.id = id
        self.title = title
        self.category = category
        self.categoryName = categoryName
        self.summary = summary
        self.websites = websites
        self.tags = tags
        self.favorite = favorite
        self.created = created
        self.lastChanged = lastChanged
        self.lastUsed = lastUsed
        self.trashedAt = trashedAt
        self.match = match
    }
}

/// One field of an item. `value` is masked (`masked` true) unless the request asked to reveal.
public struct FieldView: Codable, Sendable, Equatable {
    public var id: String
    public var key: String?
    public var label: String
    public var kind: String
    public var custom: Bool
    public var concealed: Bool
    public var masked: Bool
    public var value: String
    /// For a one-time-password field: the current TOTP code, or the HOTP counter (an HOTP code is only
    /// given by the code operation, which advances the counter).
    public var code: CodeReply?
    /// For the password field: its strength, zxcvbn's score 0–4 (DET-4, STR-3), when the library is there.
    public var strength: Int?

    public init(id: String, key: String?, label: String, kind: String, custom: Bool, concealed: Bool, masked: Bool, value: String, code: CodeReply? = nil) {
        self.id = id
        self.key = key
        self.label = label
        self.kind = kind
        self.custom = custom
        self.concealed = concealed
        self.masked = masked
        self.value = value
        self.code = code
    }
}

/// The whole item, concealed values masked unless revealed.
public struct ItemDetail: Codable, Sendable, Equatable {
    public var summary: ItemSummary
    public var fields: [FieldView]
    public var notes: String
    public var lastFilled: Date?
    public var historyCount: Int
    /// Every website and tag whole (the summary's are cut at 200 characters): what an editor starts from.
    public var websites: [String]?
    public var tags: [String]?
    /// The item's files (never their keys).
    public var attachments: [AttachmentView]?
    /// The passkeys the item holds (never their keys; generation 18).
    public var passkeys: [PasskeyView]?
    /// An item of a shared vault: who can see it, as the member list this device verified last says
    /// ("EMAIL (ACCESS)", SHR-6).
    public var seenBy: [String]?

    public init(summary: ItemSummary, fields: [FieldView], notes: String, lastFilled: Date?, historyCount: Int) {
        self.summary = summary
        self.fields = fields
        self.notes = notes
        self.lastFilled = lastFilled
        self.historyCount = historyCount
    }
}

/// What to change in an item (or set in a new one). Absent members are left as they are. Values come from
/// the user; `fieldsFromCommandLine` marks values typed in argv, which must not be concealed ones.
public struct ItemChanges: Codable, Sendable, Equatable {
    public var title: String?
    public var username: String?
    public var websites: [String]?
    public var tags: [String]?
    public var favorite: Bool?
    /// Plain values from the command line, in order (LABEL=VALUE).
    public var fieldsFromCommandLine: [FieldAssignment]
    /// Secret values read from standard input or a terminal prompt: the password, `--secret-field`s.
    public var secretFields: [FieldAssignment]
    public var removeFields: [String]
    public var notes: String?
    /// Generate a new password with these options.
    public var generatePassword: GeneratorRequest?
    /// The custom fields' labels in the order they should have (the web editor's reorder); custom fields it
    /// does not name keep their places after those it names. Typed fields keep their category's order.
    public var customOrder: [String]?
    /// A new killphrase or search passphrase (read from standard input, never argv); an empty one takes the
    /// item's off. Absent: unchanged. Local vault only.
    public var killphrase: String?
    public var searchPassphrase: String?
    /// Passkeys to delete, by credential id (base64url).
    public var removePasskeys: [String]?

    public init(
        title: String? = nil, username: String? = nil, websites: [String]? = nil, tags: [String]? = nil, favorite: Bool? = nil,
        fieldsFromCommandLine: [FieldAssignment] = [], secretFields: [FieldAssignment] = [], removeFields: [String] = [], notes: String? = nil,
        generatePassword: GeneratorRequest? = nil
    ) {
        self.title = title
        self.username = username
        self.websites = websites
        self.tags = tags
        self.favorite = favorite
        self.fieldsFromCommandLine = fieldsFromCommandLine
        self.secretFields = secretFields
        self.removeFields = removeFields
        self.notes = notes
        self.generatePassword = generatePassword
    }
}

public struct FieldAssignment: Codable, Sendable, Equatable {
    public var label: String
    public var value: String

    public init(label: String, value: String) {
        self.label = label
        self.value = value
    }
}

/// An item after a change: its id and title, and what the user should know (a weak password).
public struct SavedReply: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    public var categoryName: String
    /// False when the request changed nothing (nothing was saved).
    public var changed: Bool
    /// The strength of a password typed by the user, when it is below "strong".
    public var weakPassword: StrengthReply?
    /// The warning a recovery phrase's or private key's check gave (a wording key), when it did not check.
    public var keyCheck: String?
    /// Restored or replaced version, for history restore.
    public var version: String?

    public init(id: String, title: String, categoryName: String, changed: Bool = true, weakPassword: StrengthReply? = nil, version: String? = nil) {
        self.id = id
        self.title = title
        self.categoryName = categoryName
        self.changed = changed
        self.weakPassword = weakPassword
        self.version = version
    }
}

public struct ItemListReply: Codable, Sendable, Equatable {
    public var items: [ItemSummary]
    /// How many items matched in all (the reply may hold a page of them).
    public var total: Int
    /// Whether the vault has no active items at all (as opposed to none matching).
    public var vaultIsEmpty: Bool
    /// The page as text rows (`ItemRows`) when the request asked for them; `items` is empty then.
    public var rows: String?
    /// With `rows`: the widths of the table's padded columns over the whole listing, not just this page
    /// (`ItemTableWidths`), so a page can be printed as it comes. Absent from an agent that does not measure.
    public var widths: [Int]?

    public init(items: [ItemSummary], total: Int, vaultIsEmpty: Bool, rows: String? = nil, widths: [Int]? = nil) {
        self.items = items
        self.total = total
        self.vaultIsEmpty = vaultIsEmpty
        self.rows = rows
        self.widths = widths
    }

    /// The page's rows, from `rows` or from `items` (an agent that answers `items` only); nil when `rows` is
    /// damaged.
    public func itemRows() -> [ItemRow]? {
        guard let rows else { return items.map(ItemRow.init) }
        return ItemRows.decode(rows)
    }
}

/// One change between two versions of an item. `old`/`new` are absent for concealed values unless revealed.
public struct ChangeView: Codable, Sendable, Equatable {
    /// title, field, websites, notes, tags, favorite
    public var what: String
    public var label: String?
    public var old: String?
    public var new: String?

    public init(what: String, label: String? = nil, old: String? = nil, new: String? = nil) {
        self.what = what
        self.label = label
        self.old = old
        self.new = new
    }
}

public struct VersionView: Codable, Sendable, Equatable {
    public var id: String
    public var replacedAt: Date
    /// What this version changed into the next newer one.
    public var changes: [ChangeView]
    public var item: ItemDetail

    public init(id: String, replacedAt: Date, changes: [ChangeView], item: ItemDetail) {
        self.id = id
        self.replacedAt = replacedAt
        self.changes = changes
        self.item = item
    }
}

public struct PreviousPasswordView: Codable, Sendable, Equatable {
    public var value: String
    public var masked: Bool
    public var replacedAt: Date

    public init(value: String, masked: Bool, replacedAt: Date) {
        self.value = value
        self.masked = masked
        self.replacedAt = replacedAt
    }
}

public struct HistoryReply: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    /// Newest first.
    public var versions: [VersionView]
    public var previousPasswords: [PreviousPasswordView]

    public init(id: String, title: String, versions: [VersionView], previousPasswords: [PreviousPasswordView]) {
        self.id = id
        self.title = title
        self.versions = versions
        self.previousPasswords = previousPasswords
    }
}
