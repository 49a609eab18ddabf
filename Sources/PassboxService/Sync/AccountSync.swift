import Foundation
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxProtocol
import PassboxSync

/// What one sync did.
public struct SyncOutcome: Sendable {
    public var pulled: Int
    public var pushed: Int
    public var notices: [SyncNotice]
    public var revision: Int64
}

/// One sync of an account's vaults with its server (docs/PROTOCOL.md "Sync"): a push whose answer was lost
/// is sent again as it was; then pull (every page verified against the signed manifests before anything is
/// applied), merge, and push what waits here on top of the manifests just verified. A push that loses a
/// race pulls and merges again. A server answer that does not verify is refused as `syncRefused` and
/// nothing on this device changes.
final class AccountSync {
    let session: VaultSession
    let client: SyncClient
    let now: () -> Date
    var notices: [SyncNotice] = []
    /// Notices already written into the sync state.
    var kept: [SyncNotice] = []

    init(session: VaultSession, client: SyncClient, now: @escaping () -> Date) {
        self.session = session
        self.client = client
        self.now = now
    }

    static let rounds = 8
    /// A push carries at most this many envelope bytes (the server takes a body of 1 MiB; base64 adds a third).
    static let batchBytes = 512 * 1024

    func run() throws -> SyncOutcome {
        guard session.vault.sync != nil else { throw ProtocolError(.syncKeysMissing) }
        if let body = session.syncInFlight { try resend(body) }
        var pulled = 0, pushed = 0
        var allNotices: [SyncNotice] = []
        for _ in 0..<Self.rounds {
            pulled += try pullAll()
            try assignVaults()
            _ = try uploadBlobs()
            let (count, lost) = try pushAll()
            pushed += count
            allNotices += kept + notices
            if !notices.isEmpty { try save([]) { _ in } }
            kept = []
            if !lost {
                removeServerBlobs()
                // A sync that changed nothing writes nothing: its time is kept in memory (status shows it).
                session.lastSyncHere = now().storedPrecision
                return SyncOutcome(pulled: pulled, pushed: pushed, notices: allNotices, revision: state.revision)
            }
        }
        throw ProtocolError(.syncConflict, ["vault": ""])
    }

    /// Every save a sync makes goes through here: it names the items it changes, records the sync's time, clears
    /// an earlier failure and keeps the notices gathered so far, so a sync costs one save per page and per push.
    func save<T>(_ changed: Set<String>, _ change: (inout Vault) throws -> T) throws -> T {
        let at = now().storedPrecision
        var gathered: [SyncNotice] = []
        let result = try session.updateNaming(changed) { vault in
            let r = try change(&vault)
            // The notices so far, with those `change` itself gathered.
            gathered = notices
            vault.sync!.lastSync = at
            vault.sync!.lastFailure = nil
            for n in gathered { vault.sync!.add(n) }
            return r
        }
        kept += gathered
        notices = []
        // A pulled item may refer to blobs: from now on a save looks for those it no longer refers to.
        if !session.mayHaveBlobs, session.vault.items.contains(where: { changed.contains($0.id) && !$0.referencedBlobs.isEmpty }) {
            session.mayHaveBlobs = true
        }
        return result
    }

    // MARK: Keys

    var state: SyncState { session.vault.sync! }

    static func refused(_ vault: String, _ reason: String) -> ProtocolError { ProtocolError(.syncRefused, ["vault": vault, "reason": reason]) }

    // MARK: Trees

    /// The server's view of every vault as this device last verified it.
    func trees() -> [String: ManifestTree] {
        if let kept = session.syncTrees { return kept }
        var trees = [String: ManifestTree]()
        for id in state.vaults.keys { trees[id] = ManifestTree() }
        for item in session.vault.items {
            if let base = item.syncBase { trees[base.vaultID, default: ManifestTree()].set(item.id, .init(hash: base.hash, deleted: false)) }
        }
        for (id, removal) in state.removals { trees[removal.vaultID, default: ManifestTree()].set(id, .init(hash: Array(removal.hash), deleted: false)) }
        for (vault, ids) in state.tombstones { for id in ids { trees[vault, default: ManifestTree()].setDeleted(id) } }
        for entry in state.undecryptable { trees[entry.vaultID, default: ManifestTree()].set(entry.itemID, .init(hash: Array(entry.hash), deleted: false)) }
        session.syncTrees = trees
        return trees
    }

    // MARK: Resending

    /// Sends the push whose answer was lost, unchanged: the server applies it once (its operation id), and
    /// the pull that follows brings its writes back as the server holds them. (Kept in memory: a device that
    /// restarts in between pushes its changes anew, and the server's compare-and-swap refuses a second copy,
    /// which the device then merges as its own write.)
    func resend(_ body: [UInt8]) throws {
        let batch = session.syncInFlightBatch as? Batch
        do {
            let reply = try client.push(body)
            // Applied now or before (replayed): recorded as any accepted push, against what changed here since.
            if let batch, isCurrent(batch) { try acknowledge(batch, revision: reply.revision) }
        } catch let error as ProtocolError where error.code != .serverUnreachable && error.code != .requestTimeout {
            // Refused (made on a manifest that has moved on): what it carried still waits here and is pushed again.
        }
        session.syncInFlight = nil
        session.syncInFlightBatch = nil
    }

    /// Whether a kept batch was made on the manifests this device still holds (nothing was pulled since).
    func isCurrent(_ batch: Batch) -> Bool {
        batch.manifests.allSatisfy { state.vaults[$0.key]?.manifestVersion == $0.value.version - 1 }
    }

}

/// The most writes in one push (the server's `SyncService.pushItemLimit`).
let SyncService_pushItemLimit = 1_000
