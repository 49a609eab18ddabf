import Foundation
import PassboxCrypto

/// The hash that names an envelope in manifests and removals: SHA-256.
public enum SyncHash {
    public static func of(_ bytes: [UInt8]) -> [UInt8] { Hash.sha256(bytes) }
}

/// What a device keeps to sync an account's vaults (inside the encrypted vault payload, key `"sync"`,
/// docs/FORMATS.md "Sync state"): the keys that sign manifests and wrap vault keys, each vault's key and the
/// last manifest it verified, and what is waiting to be pushed. Device-local: it never travels as such.
public struct SyncState: Sendable, Equatable, Codable {
    public static let currentVersion = 1
    public var v = SyncState.currentVersion
    /// The account this state belongs to.
    public var accountID: String
    /// The Ed25519 seed of the account's keyset (signs manifests) and the key that wraps personal vault keys
    /// (HKDF over the keyset's private halves), kept so quick unlock can sync without the master password.
    public var signSeed: Data
    public var wrapKey: Data
    /// The account's public signing key: every manifest must verify under it.
    public var signPublicKey: Data
    /// The highest server revision pulled.
    public var revision: Int64 = 0
    public var lastSync: Date?
    /// The code of the last sync's failure, until a sync succeeds.
    public var lastFailure: String?
    /// Per vault: its key and the newest manifest this device verified.
    public var vaults: [String: SyncedVault] = [:]
    /// Items deleted here (for good) that the server still has: item id → where and what it holds.
    public var removals: [String: SyncRemoval] = [:]
    /// Items the server holds as deleted, per vault (the manifest tree counts them).
    public var tombstones: [String: [String]] = [:]
    /// Server items this device could not decrypt; listed, never deleted (ERR-6).
    public var undecryptable: [UndecryptableEntry] = []
    /// What the user should hear about merges (kept until `passbox sync` shows them).
    public var notices: [SyncNotice] = []
    /// The revisions of this device's pushes the server acknowledged since `revision`: they are already here,
    /// so pulls leave them out.
    public var ownRevisions: [Int64]?

    // Sharing (issue 32)
    /// The X25519 private key of the account's keyset (it opens the grants of shared vaults), kept so shared
    /// vaults sync without the master password. Nil in a state made before sharing: the next sign-in or unlock
    /// with the master password adds it.
    public var boxKey: Data?
    /// Per organisation this account is in: the sync of its shared vaults, the same bookkeeping as the
    /// account's own (the organisation's revisions, each vault's key and verified manifest, what waits).
    public var shared: [String: SyncState]?
    /// In an organisation's state: its name (the badge its items carry), the keys of its vaults at every epoch
    /// this account was granted, and the vaults this account may only view.
    public var orgName: String?
    public var epochKeys: [SharedVaultKey]?
    public var viewOnly: [String]?
    /// In an organisation's state: vaults this account no longer has access to (or whose organisation removed
    /// it): no longer synced, their items kept here to view only.
    public var closed: [String]?
    /// In an organisation's state: what this device had verified of each closed vault (its manifest version,
    /// hash and key epoch), the floor it holds the server to when the vault is synced again.
    public var floors: [String: SyncedVault]?
    /// In an organisation's state: everyone this device saw the member list let edit a vault, with the key the
    /// list held and the highest key epoch at which it did (a manifest they signed under that epoch or an
    /// earlier one stays believable after they lose access).
    public var editors: [SharedEditor]?
    /// In an organisation's state: vaults whose key epoch rose since their items were pulled, each item to be
    /// sealed again under the new key at the next sync (background re-encryption after a rotation, SHR-16).
    public var rekey: [String]?

    /// The organisation whose shared vault `vaultID` is (nil: one of the account's own vaults).
    public func org(of vaultID: String) -> String? {
        guard let shared else { return nil }
        // (A vault id is in one organisation at most: `installShared` refuses one that is already somewhere, so the
        // first match is the only one; this runs for every item a list shows.)
        return shared.first { $0.value.vaults[vaultID] != nil || ($0.value.closed?.contains(vaultID) ?? false) }?.key
    }

    /// Whether items of `vaultID` cannot be changed here: a shared vault this account may only view, or one it
    /// no longer has access to.
    public func isViewOnly(_ vaultID: String) -> Bool {
        guard let org = org(of: vaultID), let st = shared?[org] else { return false }
        return (st.viewOnly?.contains(vaultID) ?? false) || (st.closed?.contains(vaultID) ?? false)
    }

    /// Every vault id of the account's organisations, synced or closed.
    public var sharedVaultIDs: Set<String> {
        var ids = Set<String>()
        for st in (shared ?? [:]).values { ids.formUnion(st.vaults.keys); ids.formUnion(st.closed ?? []) }
        return ids
    }

    /// An organisation's state: the account's signing keys, no wrap key (shared vault keys come as grants).
    public func organisation(name: String) -> SyncState {
        var st = SyncState(accountID: accountID, signSeed: Array(signSeed), wrapKey: [], signPublicKey: Array(signPublicKey))
        st.orgName = name
        return st
    }

    /// Whether something of this device's waits that a push could not carry (a deletion, or an entry it cannot
    /// open): then the server holds items this device's view does not show, and no blob is removed there.
    public var holdsUnpushedWork: Bool { !removals.isEmpty || !undecryptable.isEmpty }

    /// The highest revision up to which this device has every push (pulled, or its own).
    public var seenRevision: Int64 {
        var seen = revision
        let own = Set(ownRevisions ?? [])
        while own.contains(seen + 1) { seen += 1 }
        return seen
    }

    public init(accountID: String, signSeed: [UInt8], wrapKey: [UInt8], signPublicKey: [UInt8]) {
        self.accountID = accountID
        self.signSeed = Data(signSeed)
        self.wrapKey = Data(wrapKey)
        self.signPublicKey = Data(signPublicKey)
    }

    /// The most notices kept (the oldest go first).
    public static let noticeLimit = 200

    public mutating func add(_ notice: SyncNotice) {
        notices.append(notice)
        if notices.count > Self.noticeLimit { notices.removeFirst(notices.count - Self.noticeLimit) }
    }
}

/// A member the verified list let edit a shared vault, up to a key epoch.
public struct SharedEditor: Sendable, Equatable, Codable {
    public var vaultID: String
    public var accountID: String
    public var key: Data
    public var epoch: Int
    public init(vaultID: String, accountID: String, key: [UInt8], epoch: Int) {
        self.vaultID = vaultID
        self.accountID = accountID
        self.key = Data(key)
        self.epoch = epoch
    }
}

/// A shared vault's key at one epoch, as its grant gave it (opened and checked at a sync).
public struct SharedVaultKey: Sendable, Equatable, Codable {
    public var vaultID: String
    public var epoch: Int
    public var key: Data
    public init(vaultID: String, epoch: Int, key: [UInt8]) {
        self.vaultID = vaultID
        self.epoch = epoch
        self.key = Data(key)
    }
}

/// A vault as this device last verified it on the server.
public struct SyncedVault: Sendable, Equatable, Codable {
    public var keyVersion: Int
    /// The vault key (32 bytes), and its wrapped form as the server holds it.
    public var key: Data
    public var wrappedKey: Data
    /// The newest manifest verified: its version and hash (0 and empty before the first push).
    public var manifestVersion: Int64
    public var manifestHash: Data
    /// The vault's name and look as the server holds them (an envelope), and whether they changed here.
    public var meta: Data?
    public var metaPending: Bool
    /// A shared vault's newest verified manifest's key epoch: later versions never name an earlier one.
    public var manifestEpoch: Int?

    public init(keyVersion: Int, key: [UInt8], wrappedKey: [UInt8], manifestVersion: Int64 = 0, manifestHash: [UInt8] = [], meta: [UInt8]? = nil, metaPending: Bool) {
        self.keyVersion = keyVersion
        self.key = Data(key)
        self.wrappedKey = Data(wrappedKey)
        self.manifestVersion = manifestVersion
        self.manifestHash = Data(manifestHash)
        self.meta = meta.map { Data($0) }
        self.metaPending = metaPending
    }
}

/// An item as the server last held it, kept with the item: a leaf of its vault's manifest tree (the hash of
/// the server's envelope) and, while the item is changed here, the common ancestor of a merge (the item as it
/// was synced; an item not changed here is its own ancestor).
public struct SyncBase: Sendable, Equatable {
    public var vaultID: String
    public var revision: Int64
    /// SHA-256 of the server's envelope of the item.
    public var hash: [UInt8]
    /// The item as synced, kept from its first change here until the next sync (`Item.synced` form).
    public var ancestor: Item? {
        get { kept.first }
        set { kept = newValue.map { [$0] } ?? [] }
    }
    /// An array, so an item can hold an item (a struct cannot contain itself).
    private var kept: [Item] = []

    public init(vaultID: String, revision: Int64, hash: [UInt8], ancestor: Item? = nil) {
        self.vaultID = vaultID
        self.revision = revision
        self.hash = hash
        self.ancestor = ancestor
    }
}

extension Item {
    /// Marks the item changed here (to be pushed), keeping what it was as synced for a later merge: call it
    /// before changing the item.
    public mutating func markSyncPending() {
        if !syncPending, syncBase != nil, syncBase?.ancestor == nil { syncBase!.ancestor = synced }
        syncPending = true
    }

    /// The version both this device and the server last agreed on: the kept ancestor, or the item itself
    /// when it was not changed here.
    public var syncAncestor: Item? { syncPending ? syncBase?.ancestor : synced }
}

public struct SyncRemoval: Sendable, Equatable, Codable {
    public var vaultID: String
    /// SHA-256 of the envelope the server holds.
    public var hash: Data
    public init(vaultID: String, hash: [UInt8]) {
        self.vaultID = vaultID
        self.hash = Data(hash)
    }
}

public struct UndecryptableEntry: Sendable, Equatable, Codable {
    public var vaultID: String
    public var itemID: String
    public var revision: Int64
    public var hash: Data
    /// What failed, in technical words ("authentication failed", "envelope version 2").
    public var reason: String
    public init(vaultID: String, itemID: String, revision: Int64, hash: [UInt8], reason: String) {
        self.vaultID = vaultID
        self.itemID = itemID
        self.revision = revision
        self.hash = Data(hash)
        self.reason = reason
    }
}

/// Something a merge decided that the user should know.
public struct SyncNotice: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        /// The same field changed on two devices: one value is current, the other is in the item's history.
        case fieldConflict
        /// Deleted on one device, edited on another: the edit is kept.
        case deletedEdited
        /// Trashed on one device, edited on another: the item is taken out of the trash.
        case trashedEdited
        /// Moved to two vaults at once: the other device's move is kept.
        case movedTwice
    }
    public var kind: Kind
    public var at: Date
    public var itemID: String
    public var title: String
    /// The fields concerned (labels), for fieldConflict.
    public var fields: [String]

    public init(kind: Kind, at: Date, itemID: String, title: String, fields: [String] = []) {
        self.kind = kind
        self.at = at
        self.itemID = itemID
        self.title = title
        self.fields = fields
    }
}
