import Foundation

// Requests and replies for vaults and sync, as the agent (and later the web UI) serves them.

public struct SyncRequest: Codable, Sendable {
    /// Whether the reply should also hand over (and forget) the merge notices kept since the last time.
    public var takeNotices: Bool
    public init(takeNotices: Bool = true) { self.takeNotices = takeNotices }
}

public struct SyncNoticeView: Codable, Sendable, Equatable {
    /// fieldConflict, deletedEdited, trashedEdited, movedTwice
    public var kind: String
    public var at: Date
    public var itemID: String
    public var title: String
    public var fields: [String]
    public init(kind: String, at: Date, itemID: String, title: String, fields: [String]) {
        self.kind = kind
        self.at = at
        self.itemID = itemID
        self.title = title
        self.fields = fields
    }
}

/// An entry the server holds that this device could not open (ERR-6): listed, never deleted.
public struct UndecryptableView: Codable, Sendable, Equatable {
    public var vault: String
    public var itemID: String
    public var reason: String
    public init(vault: String, itemID: String, reason: String) {
        self.vault = vault
        self.itemID = itemID
        self.reason = reason
    }
}

/// Where an account's sync stands.
public struct SyncStatusView: Codable, Sendable, Equatable {
    /// Changes waiting to be pushed (items changed or deleted here, vaults made or renamed here).
    public var queued: Int
    public var lastSync: Date?
    /// The code of the last failure, until a sync succeeds.
    public var lastFailure: String?
    public var revision: Int64
    public var notices: [SyncNoticeView]
    public var undecryptable: [UndecryptableView]
    /// Whether the agent holds a live connection to the server (nil when no agent runs).
    public var live: Bool?
    public init(queued: Int, lastSync: Date?, lastFailure: String?, revision: Int64, notices: [SyncNoticeView], undecryptable: [UndecryptableView], live: Bool? = nil) {
        self.queued = queued
        self.lastSync = lastSync
        self.lastFailure = lastFailure
        self.revision = revision
        self.notices = notices
        self.undecryptable = undecryptable
        self.live = live
    }
}

public struct SyncReply: Codable, Sendable, Equatable {
    public var pulled: Int
    public var pushed: Int
    public var status: SyncStatusView
    public init(pulled: Int, pushed: Int, status: SyncStatusView) {
        self.pulled = pulled
        self.pushed = pushed
        self.status = status
    }
}

public struct VaultView: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var icon: String
    public var colour: String
    public var items: Int
    /// Where new items go when no vault is named.
    public var isDefault: Bool
    public init(id: String, name: String, icon: String, colour: String, items: Int, isDefault: Bool) {
        self.id = id
        self.name = name
        self.icon = icon
        self.colour = colour
        self.items = items
        self.isDefault = isDefault
    }
}

public struct VaultListReply: Codable, Sendable, Equatable {
    /// "account" or "local": the kind of vault this data directory serves.
    public var kind: String
    /// The account's email, when it is an account's.
    public var account: String?
    public var vaults: [VaultView]
    /// The other kind's vault file, when it exists beside this one (a local vault file beside an account).
    public var other: String?
    public init(kind: String, account: String?, vaults: [VaultView], other: String?) {
        self.kind = kind
        self.account = account
        self.vaults = vaults
        self.other = other
    }
}

public struct VaultCreateRequest: Codable, Sendable {
    public var name: String
    public var icon: String?
    public var colour: String?
    public init(name: String, icon: String? = nil, colour: String? = nil) {
        self.name = name
        self.icon = icon
        self.colour = colour
    }
}

public struct VaultEditRequest: Codable, Sendable {
    /// The vault as the user names it: its name or id (prefix).
    public var vault: String
    public var name: String?
    public var icon: String?
    public var colour: String?
    public init(vault: String, name: String? = nil, icon: String? = nil, colour: String? = nil) {
        self.vault = vault
        self.name = name
        self.icon = icon
        self.colour = colour
    }
}

public struct VaultDeleteRequest: Codable, Sendable {
    /// The vault as the user names it: its name or id (prefix).
    public var vault: String
    public var confirm: Bool
    public init(vault: String, confirm: Bool) {
        self.vault = vault
        self.confirm = confirm
    }
}

/// What deleting a vault does, or did: its items (live ones, and those already in the trash) go to the trash
/// of the vault named `home` (the first vault left), where they can be restored for 30 days.
public struct VaultDeletedReply: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var items: Int
    public var trashed: Int
    public var home: String
    public var deleted: Bool
    public init(id: String, name: String, items: Int, trashed: Int, home: String, deleted: Bool) {
        self.id = id
        self.name = name
        self.items = items
        self.trashed = trashed
        self.home = home
        self.deleted = deleted
    }
}

public struct MoveRequest: Codable, Sendable {
    public var items: [String]
    public var vault: String
    /// Copy (each copy a new item with a new id and no history) instead of moving.
    public var copy: Bool
    public init(items: [String], vault: String, copy: Bool = false) {
        self.items = items
        self.vault = vault
        self.copy = copy
    }
}
