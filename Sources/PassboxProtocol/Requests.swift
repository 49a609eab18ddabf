import Foundation

/// The vault password, or another secret typed by the user, as it travels to the agent.
public struct UnlockRequest: Codable, Sendable {
    /// Travels in the frame's secret part, not in its JSON (see `SecretText`).
    public var password: SecretText
    public init(password: SecretText) { self.password = password }
}

public struct QuickUnlockRequest: Codable, Sendable {
    public var loginPassword: SecretText
    public init(loginPassword: SecretText) { self.loginPassword = loginPassword }
}

public struct LockRequest: Codable, Sendable {
    /// Also drop the quick-unlock key.
    public var forget: Bool
    public init(forget: Bool = false) { self.forget = forget }
}

public struct ChangePasswordRequest: Codable, Sendable {
    public var current: SecretText
    public var new: SecretText
    public init(current: SecretText, new: SecretText) {
        self.current = current
        self.new = new
    }
}

public struct ListRequest: Codable, Sendable {
    public var category: String?
    public var tag: String?
    public var favoritesOnly: Bool
    /// newest, oldest, az, za, recent
    public var sort: String?
    /// Paging: the first item to return and how many (the agent caps a page at `ListRequest.maximumPage`).
    public var offset: Int
    public var limit: Int?
    /// Only the items of this vault (its name or id), when given.
    public var vault: String?
    /// Answer the page as `ItemListReply.rows` (text rows, `ItemRows`) instead of `items`: what a table shows,
    /// at a fraction of the decoding. An agent that does not know it answers `items`.
    public var rows: Bool?
    /// Only the items that hold a one-time-password setup (LST-5; generation 16).
    public var withCode: Bool?
    /// Only the items that hold a passkey (LST-5's Passkeys filter; generation 18).
    public var withPasskey: Bool?
    public static let maximumPage = 1_000

    public init(
        category: String? = nil, tag: String? = nil, favoritesOnly: Bool = false, sort: String? = nil, offset: Int = 0, limit: Int? = nil, vault: String? = nil, rows: Bool? = nil,
        withCode: Bool? = nil
    ) {
        self.rows = rows
        self.withCode = withCode
        self.vault = vault
        self.category = category
        self.tag = tag
        self.favoritesOnly = favoritesOnly
        self.sort = sort
        self.offset = offset
        self.limit = limit
    }
}

/// An item named as the user names it: an id, an id prefix or a title.
public struct ItemRequest: Codable, Sendable {
    public var item: String
    public init(item: String) { self.item = item }
}

public struct ShowRequest: Codable, Sendable {
    public var item: String
    public var reveal: Bool
    public init(item: String, reveal: Bool = false) {
        self.item = item
        self.reveal = reveal
    }
}

/// One value of an item: a field by key or label, or title, notes, website, url.
public struct FieldRequest: Codable, Sendable {
    public var item: String
    public var field: String
    public init(item: String, field: String) {
        self.item = item
        self.field = field
    }
}

public struct SearchRequest: Codable, Sendable {
    public var query: String
    /// all, name, username, website, notes
    public var scope: String?
    public var limit: Int
    public init(query: String, scope: String? = nil, limit: Int = 50) {
        self.query = query
        self.scope = scope
        self.limit = limit
    }
}

public struct AddRequest: Codable, Sendable {
    public var category: String
    public var changes: ItemChanges
    /// The vault the item goes to (its name or id); the first vault when absent.
    public var vault: String?
    /// The item's own password: its content is sealed before it is saved (recovery phrases and private keys
    /// are saved only so).
    public var itemPassword: SecretText?
    public init(category: String, changes: ItemChanges, vault: String? = nil, itemPassword: SecretText? = nil) {
        self.category = category
        self.changes = changes
        self.vault = vault
        self.itemPassword = itemPassword
    }
}

public struct EditRequest: Codable, Sendable {
    public var item: String
    public var changes: ItemChanges
    public init(item: String, changes: ItemChanges) {
        self.item = item
        self.changes = changes
    }
}

public struct RestoreVersionRequest: Codable, Sendable {
    public var item: String
    public var version: String
    public init(item: String, version: String) {
        self.item = item
        self.version = version
    }
}

/// A one-time-password setup (an otpauth link or a setup key) for an item; read from a QR image by the client.
public struct SetOneTimePasswordRequest: Codable, Sendable {
    public var item: String
    public var setups: [String]
    public init(item: String, setups: [String]) {
        self.item = item
        self.setups = setups
    }
}

/// Accounts to import from otpauth or otpauth-migration links (the client decodes QR images).
public struct ImportRequest: Codable, Sendable {
    public var setups: [String]
    /// Numbers from 1 (the order of `ImportReply.accounts`); nil with `all` false lists only.
    public var select: [Int]?
    public var all: Bool
    public var toLogins: Bool
    public init(setups: [String], select: [Int]? = nil, all: Bool = false, toLogins: Bool = false) {
        self.setups = setups
        self.select = select
        self.all = all
        self.toLogins = toLogins
    }
}

public struct StrengthRequest: Codable, Sendable {
    /// A secret: the password being rated may be the one about to become the vault's (since version 5).
    public var password: SecretText
    public var userInputs: [String]
    public init(password: SecretText, userInputs: [String] = []) {
        self.password = password
        self.userInputs = userInputs
    }
}

public struct CheckRequest: Codable, Sendable {
    /// Record the opt-in breached-password check first, from `ranges`.
    public var runBreachCheck: Bool
    /// The range service's answers, prefix → body, fetched by the client for the prefixes `breach-prefixes`
    /// gave (the agent never goes on the network).
    public var ranges: [String: String]?
    /// Asked in the background (the web list's risk shields): the new-breach alerts stay until the person opens
    /// Security Check (protocol 17). Otherwise asking is seeing them.
    public var background: Bool?
    public init(runBreachCheck: Bool = false, ranges: [String: String]? = nil, background: Bool? = nil) {
        self.runBreachCheck = runBreachCheck
        self.ranges = ranges
        self.background = background
    }
}

public struct DismissRequest: Codable, Sendable {
    public var item: String
    public var kind: String
    public var dismissed: Bool
    public init(item: String, kind: String, dismissed: Bool) {
        self.item = item
        self.kind = kind
        self.dismissed = dismissed
    }
}

public struct FixHTTPSRequest: Codable, Sendable {
    /// nil: every item.
    public var item: String?
    public init(item: String?) { self.item = item }
}

public struct FillRequest: Codable, Sendable {
    public var address: String
    /// The login to fill; nil lists the candidates.
    public var pick: String?
    public var field: String?
    /// The user confirmed filling a login saved for another site.
    public var confirmOtherSite: Bool
    public init(address: String, pick: String? = nil, field: String? = nil, confirmOtherSite: Bool = false) {
        self.address = address
        self.pick = pick
        self.field = field
        self.confirmOtherSite = confirmOtherSite
    }
}

/// settings: auto-lock (minutes), quick-unlock (on/off), reminder (14/30/never), breach-check (on/off), range-url.
public struct SettingRequest: Codable, Sendable {
    public var name: String
    public var value: String
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// Where the user's clipboard is: the requesting command's display, which may differ from the agent's.
public struct ClipboardDisplay: Codable, Sendable, Equatable {
    public var display: String?
    public var waylandDisplay: String?
    public var xauthority: String?
    public var runtimeDirectory: String?
    public init(display: String? = nil, waylandDisplay: String? = nil, xauthority: String? = nil, runtimeDirectory: String? = nil) {
        self.display = display
        self.waylandDisplay = waylandDisplay
        self.xauthority = xauthority
        self.runtimeDirectory = runtimeDirectory
    }
}

/// Copy a value to the clipboard; it is cleared after `clearAfter` seconds if the clipboard still holds it,
/// and when the agent locks.
public struct CopyRequest: Codable, Sendable {
    /// A passbox://VAULT/ITEM/FIELD reference.
    public var reference: String
    public var clearAfter: Int
    public var display: ClipboardDisplay
    public init(reference: String, clearAfter: Int, display: ClipboardDisplay) {
        self.reference = reference
        self.clearAfter = clearAfter
        self.display = display
    }
}

public struct ResolveRequest: Codable, Sendable {
    /// passbox://VAULT/ITEM/FIELD references.
    public var references: [String]
    /// Record the use on the items (copy does).
    public var markUsed: Bool
    public init(references: [String], markUsed: Bool = false) {
        self.references = references
        self.markUsed = markUsed
    }
}
