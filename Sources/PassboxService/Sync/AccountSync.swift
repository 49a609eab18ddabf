import Foundation
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxManifest
import PassboxProtocol
import PassboxSync

/// What one sync did.
public struct SyncOutcome: Sendable {
    public var pulled: Int
    public var pushed: Int
    public var notices: [SyncNotice]
    public var revision: Int64
}

/// Where a sync may touch the vault. Inline for the CLI and tests (one thread); the agent's gate runs each step
/// on its queue (`queue.sync`), so between steps — while the network works — the queue serves lock, status
/// and reads.
public struct VaultGate: Sendable {
    let hop: @Sendable (() -> Void) -> Void

    public init(hop: @escaping @Sendable (() -> Void) -> Void) { self.hop = hop }

    public static let inline = VaultGate { $0() }

    func run<T>(_ body: () throws -> T) throws -> T {
        var result: Result<T, Error>?
        hop { result = Result(catching: body) }
        guard let result else { preconditionFailure("a gate that did not run its step") }
        return try result.get()
    }
}

/// What one sync may pull, over all its rounds: past any of them the sync fails as `syncRefused` (tooManyPages,
/// tooManyRecords, tooLarge, tooSlow) and nothing pulled is applied. An honest server's page holds at most
/// 2,000 items or about 2 MiB, so the defaults take an account of 250,000 items whole.
public struct SyncLimits: Sendable {
    public var pages = 1_000
    /// Vault rows, items and manifests, counted as they come.
    public var records = 250_000
    /// The bodies of the pull's answers.
    public var bytes = 256 << 20
    /// Time spent waiting for pull answers.
    public var seconds: TimeInterval = 300
    public init() {}
}

/// What one sync's pulls have used of its `SyncLimits`.
struct PullBudget {
    var pages = 0
    var records = 0
    var bytes = 0
    var seconds: TimeInterval = 0
}

/// An organisation whose shared vaults a sync covers (issue 32): who may sign each vault's manifests, as
/// the member list this device verified says.
struct SyncRealmInfo {
    let orgID: String
    /// Per vault: the members with edit or manage access (account id → Ed25519 public key).
    let editors: [String: [String: [UInt8]]]
    /// The member list this device verified: every push names it in its vaults' name envelopes, and a pulled
    /// manifest's name envelope that names another one at the same version, or a newer one, is refused.
    let head: ListHead
    /// That list's key epoch: a manifest under a later one was written by someone relying on a newer list.
    let epoch: Int
}

/// One sync of an account's vaults with its server (docs/PROTOCOL.md "Sync"): a push whose answer was lost
/// is sent again as it was; then pull (every page verified against the signed manifests before anything is
/// applied), merge, and push what waits here on top of the manifests just verified. A push that loses a
/// race pulls and merges again. A server answer that does not verify is refused as `syncRefused` and
/// nothing on this device changes.
///
/// The vault is touched only inside `step`s (through the gate); the network is used only outside them.
final class AccountSync {
    unowned let service: VaultService
    /// The service's session generation when the sync began.
    let generation: UInt64
    let gate: VaultGate
    let client: SyncClient
    let now: () -> Date
    let limits: SyncLimits
    /// The organisation whose shared vaults this sync covers (nil: the account's own vaults). Its state is
    /// `SyncState.shared[orgID]`, its pulls and pushes name it, and it has no blobs and no push kept in flight.
    let realm: SyncRealmInfo?
    var budget = PullBudget()
    var notices: [SyncNotice] = []
    /// Notices already written into the sync state.
    var kept: [SyncNotice] = []
    /// The session, inside a step only.
    private var current: VaultSession?

    init(
        service: VaultService, generation: UInt64, gate: VaultGate, client: SyncClient, now: @escaping () -> Date, limits: SyncLimits = SyncLimits(),
        realm: SyncRealmInfo? = nil
    ) {
        self.service = service
        self.realm = realm
        self.generation = generation
        self.gate = gate
        self.client = client
        self.now = now
        self.limits = limits
    }

    /// The vault being synced; only inside a step.
    var session: VaultSession {
        guard let current else { preconditionFailure("the vault is touched only inside a sync step") }
        return current
    }

    /// Runs `body` with the vault (on the agent's queue): `locked` when the vault was locked, or locked and
    /// unlocked again, since the sync began. A step inside a step runs where it is.
    func step<T>(_ body: () throws -> T) throws -> T {
        if current != nil { return try body() }
        return try gate.run {
            guard service.generation == generation, let session = service.session else { throw ProtocolError(.locked) }
            current = session
            defer { current = nil }
            return try body()
        }
    }

    static let rounds = 8
    /// A push carries at most this many envelope bytes (the server takes a body of 1 MiB; base64 adds a third).
    static let batchBytes = 512 * 1024

    func run() throws -> SyncOutcome {
        let inflight = try step { () throws -> ([UInt8], Batch?)? in
            guard session.vault.sync != nil else { throw ProtocolError(.syncKeysMissing) }
            guard realm == nil else { return nil }
            return session.syncInFlight.map { ($0, session.syncState.inFlightBatch as? Batch) }
        }
        if let (body, batch) = inflight { try resend(body, batch: batch) }
        var pulled = 0, pushed = 0
        var allNotices: [SyncNotice] = []
        for _ in 0..<Self.rounds {
            pulled += try pullAll()
            if realm != nil { try step { try rekey() } }
            if realm == nil {
                try step { try assignVaults() }
                _ = try uploadBlobs()
            }
            let (count, lost) = try pushAll()
            pushed += count
            try step {
                allNotices += kept + notices
                if !notices.isEmpty { try save([]) { _ in } }
                kept = []
            }
            if !lost {
                if realm == nil { removeServerBlobs() }
                return try step {
                    // A sync that changed nothing writes nothing: its time is kept in memory (status shows it).
                    session.syncState.lastSyncHere = now().storedPrecision
                    return SyncOutcome(pulled: pulled, pushed: pushed, notices: allNotices, revision: state.revision)
                }
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
            if let realm { vault.sync!.shared![realm.orgID]!.lastSync = at }
            for n in gathered { vault.sync!.add(n) }
            return r
        }
        kept += gathered
        notices = []
        // A pulled item may refer to blobs: from now on a save looks for those it no longer refers to.
        if !session.blobState.mayHaveBlobs, session.vault.items.contains(where: { changed.contains($0.id) && !$0.referencedBlobs.isEmpty }) {
            session.blobState.mayHaveBlobs = true
        }
        return result
    }

    // MARK: Keys

    var state: SyncState { state(in: session.vault) }

    /// This sync's state in `vault`: the account's, or its organisation's.
    func state(in vault: Vault) -> SyncState { realm.map { vault.sync!.shared![$0.orgID]! } ?? vault.sync! }

    func put(_ st: SyncState, in vault: inout Vault) {
        if let realm { vault.sync!.shared![realm.orgID] = st } else { vault.sync = st }
    }

    /// Whether `vaultID` is one of this sync's vaults (an account's sync leaves shared vaults to theirs).
    func owns(_ vaultID: String) -> Bool { realm == nil ? session.vault.sync?.org(of: vaultID) == nil : state.vaults[vaultID] != nil }

    /// The manifest trees kept in memory for this sync's vaults.
    var keptTrees: [String: ManifestTree]? {
        get { realm.map { session.syncState.sharedTrees[$0.orgID] } ?? session.syncState.trees }
        set {
            if let realm { session.syncState.sharedTrees[realm.orgID] = newValue } else { session.syncState.trees = newValue }
        }
    }

    /// The push kept for a resend is forgotten (an organisation's sync keeps none).
    func clearInFlight() {
        guard realm == nil else { return }
        session.syncInFlight = nil
        session.syncState.inFlightBatch = nil
    }

    /// The keys a shared vault's items may be sealed under: one per epoch this account was granted, newest first.
    func sharedKeys(_ vaultID: String) -> [(epoch: Int, key: SecretBytes)] {
        (state.epochKeys ?? []).filter { $0.vaultID == vaultID }.sorted { $0.epoch > $1.epoch }.map { ($0.epoch, SecretBytes(copying: $0.key)) }
    }

    static func refused(_ vault: String, _ reason: String) -> ProtocolError { ProtocolError(.syncRefused, ["vault": vault, "reason": reason]) }

    /// After a rotation (`SyncState.rekey`), once the pull brought every item of the vault: each one this
    /// device holds is marked to be pushed, so the push seals it under the vault's new key. Another editor's
    /// device doing the same meanwhile costs a lost race and a merge that finds nothing to change.
    func rekey() throws {
        let due = Set(state.rekey ?? [])
        guard !due.isEmpty else { return }
        let ids = Set(session.vault.items.filter { item in !item.syncPending && item.syncBase.map { due.contains($0.vaultID) } ?? false }.map(\.id))
        try save(ids) { vault in
            for i in vault.items.indices where ids.contains(vault.items[i].id) { vault.items[i].markSyncPending() }
            var st = state(in: vault)
            st.rekey = nil
            put(st, in: &vault)
        }
    }

    // MARK: Trees

    /// The server's view of every vault as this device last verified it.
    func trees() -> [String: ManifestTree] {
        if let kept = keptTrees { return kept }
        var trees = [String: ManifestTree]()
        for id in state.vaults.keys { trees[id] = ManifestTree() }
        for item in session.vault.items {
            if let base = item.syncBase, owns(base.vaultID) { trees[base.vaultID, default: ManifestTree()].set(item.id, .init(hash: base.hash, deleted: false)) }
        }
        for (id, removal) in state.removals where owns(removal.vaultID) { trees[removal.vaultID, default: ManifestTree()].set(id, .init(hash: Array(removal.hash), deleted: false)) }
        for (vault, ids) in state.tombstones where owns(vault) { for id in ids { trees[vault, default: ManifestTree()].setDeleted(id) } }
        for entry in state.undecryptable where owns(entry.vaultID) { trees[entry.vaultID, default: ManifestTree()].set(entry.itemID, .init(hash: Array(entry.hash), deleted: false)) }
        keptTrees = trees
        return trees
    }

    // MARK: Resending

    /// Sends the push whose answer was lost, unchanged: the server applies it once (its operation id), and
    /// the pull that follows brings its writes back as the server holds them. (Kept in memory: a device that
    /// restarts in between pushes its changes anew, and the server's compare-and-swap refuses a second copy,
    /// which the device then merges as its own write.)
    func resend(_ body: [UInt8], batch: Batch?) throws {
        do {
            let reply = try client.push(body)
            // Applied now or before (replayed): recorded as any accepted push, against what changed here since.
            try step { if let batch, isCurrent(batch) { try acknowledge(batch, revision: reply.revision) } }
        } catch let error as ProtocolError where error.code != .serverUnreachable && error.code != .requestTimeout && error.code != .locked {
            // Refused (made on a manifest that has moved on): what it carried still waits here and is pushed again.
        }
        try step {
            session.syncInFlight = nil
            session.syncState.inFlightBatch = nil
        }
    }

    /// Whether a kept batch was made on the manifests this device still holds (nothing was pulled since).
    func isCurrent(_ batch: Batch) -> Bool {
        batch.manifests.allSatisfy { state.vaults[$0.key]?.manifestVersion == $0.value.version - 1 }
    }

}

/// The most writes in one push (the server's `SyncService.pushItemLimit`).
let SyncService_pushItemLimit = 1_000
