import Foundation

/// How long a server keeps the manifest history a device that stopped syncing may need (docs/PROTOCOL.md
/// "Manifest history"): a device away longer may find a gap, and starts those vaults' chains again.
public enum ManifestHistory {
    public static let retention: TimeInterval = 90 * 86_400
}

// The sync routes of `passbox server` (docs/PROTOCOL.md "Sync"). Everything about an item or a vault is an
// envelope the server cannot open; what it sees is ids, sizes, revisions and manifests.

/// `POST /v1/sync/pull`: what changed after revision `since`, a page at a time.
public struct SyncPullRequest: Codable, Sendable {
    public var since: Int64
    /// Items per page (the server caps it at `SyncPullRequest.pageLimit`).
    public var limit: Int?
    /// Revisions after `since` that this device wrote itself and already holds (its acknowledged pushes):
    /// left out of the answer (at most `SyncPullRequest.skipLimit`).
    public var skip: [Int64]?
    /// The revision the pull stops at: the `latest` the first page answered. Later pages then never reach
    /// past it, whatever is pushed meanwhile (a server that ignores it is refused by the device when it does).
    public var until: Int64?
    /// The organisation whose shared vaults to pull (issue 32), instead of the account's own: each
    /// organisation has its own revisions, and the answer holds only the vaults this account has access to.
    public var orgID: String?
    public static let pageLimit = 2_000
    public static let skipLimit = 1_000
    public init(since: Int64, limit: Int? = nil, skip: [Int64]? = nil, until: Int64? = nil, orgID: String? = nil) {
        self.since = since
        self.limit = limit
        self.skip = skip
        self.until = until
        self.orgID = orgID
    }
}

public struct SyncPullReply: Codable, Sendable {
    /// The page covers the revisions after `since` up to and including this one.
    public var revision: Int64
    /// Whether later revisions wait for another page.
    public var more: Bool
    /// Every vault of the account.
    public var vaults: [SyncVaultRecord]
    public var items: [SyncItemRecord]
    /// The manifests written in the page, oldest first per vault.
    public var manifests: [SyncManifestRecord]
    /// The revision this pull ends at: the account's revision when the first page was read (or the request's
    /// `until`). Every page of one pull names the same; the last one has `revision == latest`. (Optional: a
    /// server before issue 28 does not send it, and its pulls are bounded by the device's limits alone.)
    public var latest: Int64?
    public init(revision: Int64, more: Bool, vaults: [SyncVaultRecord], items: [SyncItemRecord], manifests: [SyncManifestRecord], latest: Int64? = nil) {
        self.revision = revision
        self.more = more
        self.vaults = vaults
        self.items = items
        self.manifests = manifests
        self.latest = latest
    }
}

/// A vault of the account (every one, in every page): its key as wrapped for the owner, and its newest
/// manifest version.
public struct SyncVaultRecord: Codable, Sendable, Equatable {
    public var vaultID: String
    public var keyVersion: Int
    /// The vault key, wrapped (for a personal vault: under the owner's wrap key).
    public var key: Data
    public var manifestVersion: Int64
    public init(vaultID: String, keyVersion: Int, key: Data, manifestVersion: Int64) {
        self.vaultID = vaultID
        self.keyVersion = keyVersion
        self.key = key
        self.manifestVersion = manifestVersion
    }
}

public struct SyncItemRecord: Codable, Sendable, Equatable {
    public var vaultID: String
    public var itemID: String
    public var revision: Int64
    /// The item's envelope; nil when it was deleted.
    public var envelope: Data?
    public init(vaultID: String, itemID: String, revision: Int64, envelope: Data?) {
        self.vaultID = vaultID
        self.itemID = itemID
        self.revision = revision
        self.envelope = envelope
    }
}

public struct SyncManifestRecord: Codable, Sendable, Equatable {
    public var vaultID: String
    public var version: Int64
    /// The encoded, signed manifest (docs/FORMATS.md "Manifest").
    public var manifest: Data
    /// The vault's name and look as of this version, sealed under the vault key (its hash is in the manifest).
    public var meta: Data
    public init(vaultID: String, version: Int64, manifest: Data, meta: Data) {
        self.vaultID = vaultID
        self.version = version
        self.manifest = manifest
        self.meta = meta
    }
}

/// `POST /v1/sync/push`: writes to one or more vaults, applied together or not at all. Each vault's write
/// names the manifest version it was made on (compare-and-swap); `opID` makes a retried push apply once.
public struct SyncPushRequest: Codable, Sendable, Equatable {
    public var opID: String
    public var vaults: [SyncVaultWrite]
    /// Blob ids the pushed items refer to and the device holds: the server refuses the push as `blobsMissing`
    /// when it lacks one whole (removed since, or lost), and the device sends those again first.
    public var blobs: [String]?
    /// The organisation whose shared vaults the push writes (issue 32): then every vault must be one this
    /// account may edit, the manifests are signed by the account, and no blob is declared.
    public var orgID: String?
    public init(opID: String, vaults: [SyncVaultWrite], blobs: [String]? = nil, orgID: String? = nil) {
        self.opID = opID
        self.vaults = vaults
        self.blobs = blobs
        self.orgID = orgID
    }
}

public struct SyncVaultWrite: Codable, Sendable, Equatable {
    public var vaultID: String
    /// The manifest version the write is made on (0: the vault is new).
    public var baseVersion: Int64
    /// The new manifest: version `baseVersion + 1`, signed.
    public var manifest: Data
    public var keyVersion: Int
    /// The wrapped vault key, for a new vault.
    public var key: Data?
    /// The vault's name and look, when new or changed.
    public var meta: Data?
    public var items: [SyncItemWrite]
    public init(vaultID: String, baseVersion: Int64, manifest: Data, keyVersion: Int, key: Data?, meta: Data?, items: [SyncItemWrite]) {
        self.vaultID = vaultID
        self.baseVersion = baseVersion
        self.manifest = manifest
        self.keyVersion = keyVersion
        self.key = key
        self.meta = meta
        self.items = items
    }
}

public struct SyncItemWrite: Codable, Sendable, Equatable {
    public var itemID: String
    /// The new envelope; nil deletes the item.
    public var envelope: Data?
    public init(itemID: String, envelope: Data?) {
        self.itemID = itemID
        self.envelope = envelope
    }
}

public struct SyncPushReply: Codable, Sendable {
    /// The revision the push made (or made earlier, for a retry).
    public var revision: Int64
    /// The push was applied before (an answer that was lost); nothing was applied twice.
    public var replayed: Bool
    public init(revision: Int64, replayed: Bool) {
        self.revision = revision
        self.replayed = replayed
    }
}

/// `POST /v1/sync/wait`: answered as soon as the account's revision is past `since`, or after
/// `SyncWaitRequest.seconds` with the revision unchanged (a long poll).
public struct SyncWaitRequest: Codable, Sendable {
    public var since: Int64
    public static let seconds = 20
    public init(since: Int64) { self.since = since }
}

public struct SyncWaitReply: Codable, Sendable {
    public var revision: Int64
    /// A shared vault of an organisation the account is in changed (issue 32): the account's own revision may
    /// be unchanged, and the device syncs.
    public var shared: Bool?
    public init(revision: Int64, shared: Bool? = nil) {
        self.revision = revision
        self.shared = shared
    }
}

/// The ids sync names (vaults, items, operations): 1 to 64 ASCII letters, digits, `-` or `_`. The server
/// refuses others in a push, and a device refuses them in a pull, so an id never carries a byte that could
/// blur the manifest tree's leaf encoding (a NUL, a length) whatever a hostile server sends.
public enum SyncIdentifier {
    public static func isValid(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D || $0 == 0x5F }
    }
}
