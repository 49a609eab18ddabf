import Foundation
import PassboxDomains
import PassboxCore
import PassboxProtocol
import PassboxManifest

// The state an open vault's session keeps beside the vault, one type per feature. The session owns one of
// each and changes them only inside its `update` transaction (or, for caches, when a read fills them).

/// What makes naming and finding items fast: rebuilt when needed after each change.
struct SessionLookups {
    /// The search index, kept between searches and brought up to date after each change.
    var searchIndex: SearchIndex?
    /// Exact titles → item positions, made at the first lookup after a change: naming an item by its title
    /// is then one dictionary lookup instead of a pass over every item.
    var titlePositions: [String: [Int]]?
    /// Item ids → positions, made at the first search after a change (a search's hits name ids).
    var idPositions: [String: Int]?
    /// The last listing (its filter and sort, and the positions of its items in order), for its next pages.
    var keptListing: (key: String, positions: [Int], widths: ItemTableWidths?)?
    /// Logins by site, made at the first fill listing (the browser asks at every page) and brought up to date
    /// for the items a change names, like the search index.
    var siteIndex: SiteIndex?

    /// After a save: the lookups are made again when next needed, and the kept search index is brought up to
    /// date for the items named (rebuilt at the next search when none are: nil).
    mutating func refresh(after ids: [String]?, items: [Item]) {
        titlePositions = nil
        idPositions = nil
        keptListing = nil
        guard searchIndex != nil || siteIndex != nil else { return }
        guard let ids else {
            searchIndex = nil
            siteIndex = nil
            return
        }
        // A few ids are found from the end (an added item is last); many through a map of every item.
        var positions = [String: Int]()
        if ids.count > 16 { for i in items.indices { positions[items[i].id] = i } }
        for id in ids {
            let i = ids.count > 16 ? positions[id] : items.lastIndex(where: { $0.id == id })
            if let i { searchIndex?.upsert(items[i]) } else { searchIndex?.remove(id: id) }
            if let i { siteIndex?.upsert(items[i], domains: DomainRules.shared) } else { siteIndex?.remove(id: id) }
        }
    }
}

/// What a sync of this session carries from one run to the next (an account's vault).
struct SessionSyncState {
    /// The server's view of each vault as last verified (the manifest trees), made at the first sync.
    var trees: [String: ManifestTree]?
    /// The same per organisation, for its shared vaults.
    var sharedTrees: [String: [String: ManifestTree]] = [:]
    /// The push sent whose answer has not come (its wire bytes), sent again unchanged at the next sync.
    var inFlight: [UInt8]?
    /// What that push carried, to record it when a resend is answered (an `AccountSync.Batch`).
    var inFlightBatch: Any?
    /// Whether a sync of this session has given every item a vault (later only changed items are looked at).
    var vaultsAssigned = false
    /// When this session last synced (a sync that changed nothing is not written to the file).
    var lastSyncHere: Date?
}

/// The attachments' bookkeeping: whether blobs may need collecting, and uploads in parts.
struct SessionBlobState {
    /// Whether any blob may belong to this vault (its folder had blobs at the start, an account's item refers to
    /// one, or one was added or pulled since): only then does a save look for blobs it no longer refers to.
    var mayHaveBlobs = false
    /// Uploads in parts not finished yet (the web UI's larger files): upload id → the item and the bytes so
    /// far, in memory only; dropped with the session at lock.
    var uploads: [String: (itemID: String, bytes: [UInt8])] = [:]
}
