import Foundation

/// A KeePass database as read from (or written to) a KDBX file's XML: groups of entries, each entry with its
/// strings (protected ones opened), attachments, times, tags and history.
public struct KeePassDatabase: Equatable, Sendable {
    public var name: String
    public var root: KeePassGroup
    /// The group that is the recycle bin, if the file has one.
    public var recycleBin: UUID?
    /// The file's attachments (binary pool), by index.
    public var binaries: [[UInt8]]
    /// The file's format version ("4.0", "3.1").
    public var version: String

    public init(name: String, root: KeePassGroup, recycleBin: UUID? = nil, binaries: [[UInt8]] = [], version: String = "4.0") {
        self.name = name
        self.root = root
        self.recycleBin = recycleBin
        self.binaries = binaries
        self.version = version
    }
}

public struct KeePassGroup: Equatable, Sendable {
    public var uuid: UUID
    public var name: String
    public var notes: String
    public var entries: [KeePassEntry]
    public var groups: [KeePassGroup]

    public init(uuid: UUID = UUID(), name: String, notes: String = "", entries: [KeePassEntry] = [], groups: [KeePassGroup] = []) {
        self.uuid = uuid
        self.name = name
        self.notes = notes
        self.entries = entries
        self.groups = groups
    }
}

public struct KeePassEntry: Equatable, Sendable {
    public struct StringField: Equatable, Sendable {
        public var key: String
        public var value: String
        public var isProtected: Bool
        public init(key: String, value: String, isProtected: Bool) {
            self.key = key
            self.value = value
            self.isProtected = isProtected
        }
    }

    /// An attachment: its name and its index in the database's binary pool.
    public struct Attachment: Equatable, Sendable {
        public var name: String
        public var reference: Int
    }

    public var uuid: UUID
    public var strings: [StringField]
    public var attachments: [Attachment]
    public var tags: [String]
    public var created: Date?
    public var modified: Date?
    /// When the entry expires (only when KeePass's "expires" is on).
    public var expires: Date?
    /// Earlier versions, oldest first (as KeePass keeps them).
    public var history: [KeePassEntry]
    /// Plugins' and apps' own data on the entry (`CustomData`), kept as read.
    public var customData: [String: String]

    public init(
        uuid: UUID = UUID(), strings: [StringField] = [], attachments: [Attachment] = [], tags: [String] = [], created: Date? = nil, modified: Date? = nil,
        expires: Date? = nil, history: [KeePassEntry] = [], customData: [String: String] = [:]
    ) {
        self.uuid = uuid
        self.strings = strings
        self.attachments = attachments
        self.tags = tags
        self.created = created
        self.modified = modified
        self.expires = expires
        self.history = history
        self.customData = customData
    }

    /// The value of a string field ("Title", "UserName", "Password", "URL", "Notes"), or "".
    public subscript(key: String) -> String {
        strings.first { $0.key == key }?.value ?? ""
    }

    /// The standard fields every entry has.
    public static let standardKeys: Set<String> = ["Title", "UserName", "Password", "URL", "Notes"]
}
