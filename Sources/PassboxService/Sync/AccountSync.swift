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
    private var notices: [SyncNotice] = []
    /// Notices already written into the sync state.
    private var kept: [SyncNotice] = []

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
            let (count, lost) = try pushAll()
            pushed += count
            allNotices += kept + notices
            if !notices.isEmpty { try save([]) { _ in } }
            kept = []
            if !lost {
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
        return result
    }

    // MARK: Keys

    var state: SyncState { session.vault.sync! }

    func vaultKey(_ vaultID: String) -> SecretBytes? { state.vaults[vaultID].map { SecretBytes(copying: $0.key) } }

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

    // MARK: Pulling

    /// Pulls every page after this device's revision, checks each against the chains it verified (keys,
    /// signatures, versions, hashes), and only once the last page is in checks each vault's tree against its
    /// newest manifest: a page can hold a manifest whose items were rewritten since and so come in a later
    /// page. Then the whole pull is merged and saved at once.
    func pullAll() throws -> Int {
        let since = state.revision
        let own = state.ownRevisions ?? []
        let skip = own.count <= SyncPullRequest.skipLimit ? own : []
        var acc = Accumulated(vaults: state.vaults, trees: trees())
        var cursor = since
        var items: [SyncItemRecord] = []
        var manifests: [SyncManifestRecord] = []
        var last: SyncPullReply
        while true {
            let reply = try client.pull(since: cursor, skip: skip)
            guard reply.revision >= cursor else { throw Self.refused("", "stepBack") }
            try verifyPage(reply, since: cursor, into: &acc)
            items += reply.items
            manifests += reply.manifests
            last = reply
            if !reply.more { break }
            guard reply.revision > cursor else { throw Self.refused("", "malformed") }
            cursor = reply.revision
        }
        // Every vault must now be at the version the server lists.
        for record in last.vaults where (acc.vaults[record.vaultID]?.manifestVersion ?? 0) != record.manifestVersion {
            throw Self.refused(record.vaultID, "rootMismatch")
        }
        let whole = SyncPullReply(revision: last.revision, more: false, vaults: last.vaults, items: items, manifests: manifests)
        let verified = try finish(acc, whole)
        // A pull with nothing in it (this device's own pushes left out, or nothing new) changes nothing here: it is
        // not written (the revision it reaches is asked again next time, at no cost), unless the list of own pushes
        // to leave out has grown long.
        let empty = items.isEmpty && manifests.isEmpty && Set(verified.vaults.keys) == Set(state.vaults.keys)
        if empty && own.count < 64 { return 0 }
        return try apply(verified, whole)
    }

    struct Verified {
        var vaults: [String: SyncedVault]
        var trees: [String: ManifestTree]
        var infos: [String: VaultInfo]
        var items: [String: Item]
        var undecryptable: [String: String]
    }

    /// What the pages of one pull have shown so far, checked.
    struct Accumulated {
        var vaults: [String: SyncedVault]
        var trees: [String: ManifestTree]
        /// The newest manifest of each vault in the pull, and its name envelope.
        var newest: [String: (Manifest, Data)] = [:]
        /// Vaults whose items changed in the pull.
        var touched = Set<String>()
        /// Each (vault, item) once: a server row holds an item's newest version only.
        var seen = Set<String>()
    }

    /// Checks one page against what this device verified before and the pages before it, changing nothing on
    /// the device: known vault keys unchanged and new ones opening under the wrap key with their vault bound;
    /// each record once and within the page's revisions; every manifest the account's signature on the next
    /// version of its chain.
    func verifyPage(_ reply: SyncPullReply, since: Int64, into acc: inout Accumulated) throws {
        let st = state
        let wrapKey = SecretBytes(copying: st.wrapKey)
        let listed = Set(reply.vaults.map(\.vaultID))
        for record in reply.vaults {
            if let known = acc.vaults[record.vaultID] {
                guard record.manifestVersion >= known.manifestVersion else { throw Self.refused(record.vaultID, "stepBack") }
                guard record.keyVersion == known.keyVersion, record.key == known.wrappedKey else { throw Self.refused(record.vaultID, "keyChanged") }
            } else {
                guard let key = try? ItemSeal.unwrapVaultKey(Array(record.key), accountID: st.accountID, vaultID: record.vaultID, keyVersion: record.keyVersion, wrapKey: wrapKey)
                else { throw Self.refused(record.vaultID, "misplaced") }
                acc.vaults[record.vaultID] = SyncedVault(keyVersion: record.keyVersion, key: key.revealBytes(), wrappedKey: Array(record.key), metaPending: false)
                acc.trees[record.vaultID] = acc.trees[record.vaultID] ?? ManifestTree()
            }
        }
        for (id, known) in acc.vaults where known.manifestVersion > 0 && !listed.contains(id) { throw Self.refused(id, "dropped") }
        for record in reply.items {
            guard acc.vaults[record.vaultID] != nil else { throw Self.refused(record.vaultID, "unknownVault") }
            guard record.revision > since, record.revision <= reply.revision, acc.seen.insert(record.vaultID + "/" + record.itemID).inserted else {
                throw Self.refused(record.vaultID, "malformed")
            }
            if let envelope = record.envelope {
                acc.trees[record.vaultID, default: ManifestTree()].set(record.itemID, envelope: Array(envelope))
            } else {
                acc.trees[record.vaultID, default: ManifestTree()].setDeleted(record.itemID)
            }
            acc.touched.insert(record.vaultID)
        }
        for (vaultID, list) in Dictionary(grouping: reply.manifests, by: \.vaultID) {
            guard var v = acc.vaults[vaultID] else { throw Self.refused(vaultID, "unknownVault") }
            for record in list.sorted(by: { $0.version < $1.version }) {
                guard let m = try? Manifest(decoding: Array(record.manifest)) else { throw Self.refused(vaultID, "malformed") }
                guard m.vaultID == vaultID, m.version == record.version else { throw Self.refused(vaultID, "misplaced") }
                guard m.signer == st.accountID, m.isSigned(by: Array(st.signPublicKey)) else { throw Self.refused(vaultID, "signature") }
                if m.version <= v.manifestVersion {
                    // The one this device already verified, sent again: harmless. Anything else is a step back or a fork.
                    if m.version == v.manifestVersion && m.hash == Array(v.manifestHash) {
                        acc.newest[vaultID] = (m, record.meta)
                        continue
                    }
                    throw Self.refused(vaultID, m.version < v.manifestVersion ? "stepBack" : "fork")
                }
                guard m.version == v.manifestVersion + 1 else { throw Self.refused(vaultID, "gap") }
                guard m.previous == (v.manifestVersion == 0 ? Manifest.noPrevious : Array(v.manifestHash)) else { throw Self.refused(vaultID, "fork") }
                guard m.keyVersion == v.keyVersion, Hash.sha256(Array(record.meta)) == m.metaHash else { throw Self.refused(vaultID, "misplaced") }
                v.manifestVersion = m.version
                v.manifestHash = Data(m.hash)
                acc.newest[vaultID] = (m, record.meta)
            }
            acc.vaults[vaultID] = v
        }
    }

    /// After the last page: each vault's tree has its newest manifest's root, every vault whose items changed
    /// has a manifest that accounts for them, and no item is in two vaults; then names and items are opened.
    func finish(_ acc: Accumulated, _ reply: SyncPullReply) throws -> Verified {
        var vaults = acc.vaults
        var trees = acc.trees
        var infos = [String: VaultInfo]()
        for (vaultID, (m, meta)) in acc.newest {
            guard var v = vaults[vaultID] else { throw Self.refused(vaultID, "unknownVault") }
            guard trees[vaultID, default: ManifestTree()].root() == m.root else { throw Self.refused(vaultID, "rootMismatch") }
            guard let info = try? ItemSeal.openMeta(Array(meta), vaultID: vaultID, keyVersion: v.keyVersion, key: SecretBytes(copying: v.key)) else {
                throw Self.refused(vaultID, "misplaced")
            }
            if !v.metaPending {
                v.meta = meta
                infos[vaultID] = info
            }
            vaults[vaultID] = v
        }
        // Items changed with no new manifest to account for them.
        if let vault = acc.touched.subtracting(acc.newest.keys).sorted().first { throw Self.refused(vault, "rootMismatch") }
        // An item is live in one vault at most (a move deletes it where it was, in the same push).
        for record in reply.items where record.envelope != nil {
            for (other, tree) in trees where other != record.vaultID {
                if let leaf = tree.leaf(record.itemID), !leaf.deleted { throw Self.refused(record.vaultID, "misplaced") }
            }
        }
        var items = [String: Item]()
        var undecryptable = [String: String]()
        for record in reply.items {
            guard let envelope = record.envelope, let v = vaults[record.vaultID] else { continue }
            let key = SecretBytes(copying: v.key)
            do {
                items[record.vaultID + "/" + record.itemID] = try ItemSeal.open(Array(envelope), vaultID: record.vaultID, itemID: record.itemID, keyVersion: v.keyVersion, key: key)
            } catch CryptoError.unsupportedVersion(let version) {
                undecryptable[record.vaultID + "/" + record.itemID] = "envelope version \(version)"
            } catch {
                undecryptable[record.vaultID + "/" + record.itemID] = "\(error)"
            }
        }
        return Verified(vaults: vaults, trees: trees, infos: infos, items: items, undecryptable: undecryptable)
    }

    /// Merges a verified page into the vault and saves it, with the page's revision; how many items and vaults
    /// changed here (this device's own writes coming back are not counted).
    func apply(_ verified: Verified, _ reply: SyncPullReply) throws -> Int {
        let at = now()
        var count = 0
        var byID = [String: [SyncItemRecord]]()
        for record in reply.items { byID[record.itemID, default: []].append(record) }
        let clearOwn = !reply.more && !(state.ownRevisions ?? []).isEmpty
        try save(Set(byID.keys)) { vault in
            // A few items are found from the end (where pulled items were appended); many through a dictionary.
            var positions = [String: Int]()
            if byID.count <= 16 {
                for id in byID.keys { if let i = vault.items.lastIndex(where: { $0.id == id }) { positions[id] = i } }
            } else {
                positions.reserveCapacity(vault.items.count)
                for i in vault.items.indices { positions[vault.items[i].id] = i }
            }
            var st = vault.sync!
            st.vaults = verified.vaults
            for (id, info) in verified.infos {
                if let i = vault.vaults.firstIndex(where: { $0.id == id }) {
                    if vault.vaults[i] != info { count += 1 }
                    vault.vaults[i] = info
                } else {
                    vault.vaults.append(info)
                    count += 1
                }
            }
            vault.vaults.sort { (($0.created ?? .distantFuture), $0.id) < (($1.created ?? .distantFuture), $1.id) }
            var removed = Set<String>()
            for (itemID, records) in byID {
                // The item's newest record per vault; a live one is where the item is now.
                let newest = Dictionary(grouping: records, by: \.vaultID).compactMap { $0.value.max { $0.revision < $1.revision } }
                for r in newest where r.envelope == nil {
                    if !(st.tombstones[r.vaultID]?.contains(itemID) ?? false) { st.tombstones[r.vaultID, default: []].append(itemID) }
                    if st.removals[itemID]?.vaultID == r.vaultID { st.removals[itemID] = nil }
                }
                st.undecryptable.removeAll { $0.itemID == itemID && newest.map(\.vaultID).contains($0.vaultID) }
                let live = newest.filter { $0.envelope != nil }.max { $0.revision < $1.revision }
                let local = positions[itemID].map { vault.items[$0] }
                guard let live else {
                    // Deleted on the server, and no vault holds it any more.
                    guard let local, let base = local.syncBase, newest.contains(where: { $0.vaultID == base.vaultID }) else { continue }
                    count += 1
                    if local.syncPending {
                        vault.items[positions[itemID]!].syncBase = nil
                        notices.append(SyncNotice(kind: .deletedEdited, at: at, itemID: itemID, title: local.title))
                    } else {
                        removed.insert(itemID)
                    }
                    continue
                }
                st.tombstones[live.vaultID]?.removeAll { $0 == itemID }
                let envelope = Array(live.envelope!)
                let hash = SyncHash.of(envelope)
                let key = live.vaultID + "/" + itemID
                guard let remote = verified.items[key] else {
                    let reason = verified.undecryptable[key] ?? "not opened"
                    st.undecryptable.append(UndecryptableEntry(vaultID: live.vaultID, itemID: itemID, revision: live.revision, hash: hash, reason: reason))
                    continue
                }
                let base = SyncBase(vaultID: live.vaultID, revision: live.revision, hash: hash)
                if var local {
                    let i = positions[itemID]!
                    if local.syncBase?.hash == hash {
                        // This device's own write, come back: what it was as synced stays the ancestor of what
                        // changed here since.
                        vault.items[i].syncBase = SyncBase(vaultID: base.vaultID, revision: base.revision, hash: hash, ancestor: local.syncPending ? local.syncBase?.ancestor : nil)
                        continue
                    }
                    count += 1
                    if !local.syncPending {
                        var item = remote
                        (item.lastUsed, item.lastFilled) = (local.lastUsed, local.lastFilled)
                        item.vaultID = live.vaultID
                        item.syncBase = base
                        item.syncPending = false
                        vault.items[i] = item
                        continue
                    }
                    let merged = ItemMerge.merge(base: local.syncAncestor, local: local, remote: remote, now: at)
                    if !merged.conflicts.isEmpty {
                        notices.append(SyncNotice(kind: .fieldConflict, at: at, itemID: itemID, title: merged.item.title, fields: merged.conflicts))
                    }
                    if merged.untrashed { notices.append(SyncNotice(kind: .trashedEdited, at: at, itemID: itemID, title: merged.item.title)) }
                    // Where it lives: a move made here stands unless the server moved it too.
                    let baseVault = local.syncBase?.vaultID
                    var target = live.vaultID
                    if let mine = local.vaultID, mine != baseVault {
                        if live.vaultID == baseVault || baseVault == nil {
                            target = mine
                        } else if mine != live.vaultID {
                            notices.append(SyncNotice(kind: .movedTwice, at: at, itemID: itemID, title: merged.item.title))
                        }
                    }
                    local = merged.item
                    local.vaultID = target
                    local.syncPending = target != live.vaultID || merged.item.synced != remote.synced
                    // Still to be pushed: the server's version is the ancestor of the next merge.
                    local.syncBase = SyncBase(vaultID: base.vaultID, revision: base.revision, hash: hash, ancestor: local.syncPending ? remote.synced : nil)
                    vault.items[i] = local
                } else if let removal = st.removals[itemID] {
                    // The version deleted here, come back (this device's own earlier write): the deletion stands.
                    if removal.vaultID == live.vaultID && Array(removal.hash) == hash { continue }
                    count += 1
                    // Deleted here, edited there: the edit is kept.
                    st.removals[itemID] = nil
                    var item = remote
                    item.vaultID = live.vaultID
                    item.syncBase = base
                    vault.items.append(item)
                    positions[itemID] = vault.items.count - 1
                    notices.append(SyncNotice(kind: .deletedEdited, at: at, itemID: itemID, title: item.title))
                } else {
                    count += 1
                    var item = remote
                    item.vaultID = live.vaultID
                    item.syncBase = base
                    item.syncPending = false
                    vault.items.append(item)
                    positions[itemID] = vault.items.count - 1
                }
            }
            if !removed.isEmpty { vault.items.removeAll { removed.contains($0.id) } }
            st.revision = reply.revision
            if clearOwn { st.ownRevisions = nil }
            vault.sync = st
        }
        session.syncTrees = verified.trees
        return count
    }

    // MARK: Vaults

    /// Gives every item a vault: the vault it is in on the server, else the first vault, made ("Personal")
    /// when the account has none yet.
    func assignVaults() throws {
        let vault = session.vault
        // A handful of vaults: comparing with each is quicker than hashing every item's vault id. After the first
        // pass of a session only an item changed here can be without a vault (a pulled item names its vault).
        let known = vault.vaults.map(\.id)
        let everyItem = !session.vaultsAssigned
        let homeless = vault.items.filter { item in (everyItem || item.syncPending) && (item.vaultID.map { id in !known.contains(id) } ?? true) }
        session.vaultsAssigned = true
        guard !homeless.isEmpty || vault.vaults.isEmpty else { return }
        try save(Set(homeless.map(\.id))) { vault in
            if vault.vaults.isEmpty { try Self.makeVault(&vault, name: "Personal", icon: nil, colour: nil, now: now()) }
            let first = vault.vaults[0].id
            let known = vault.vaults.map(\.id)
            for i in vault.items.indices where vault.items[i].vaultID.map({ !known.contains($0) }) ?? true {
                let home = vault.items[i].syncBase.map(\.vaultID).flatMap { known.contains($0) ? $0 : nil } ?? first
                if vault.items[i].syncBase?.vaultID != home { vault.items[i].markSyncPending() }
                vault.items[i].vaultID = home
            }
        }
    }

    /// Adds a vault (to be pushed), with a new random key wrapped for this account when it syncs.
    static func makeVault(_ vault: inout Vault, name: String, icon: VaultIcon?, colour: VaultColour?, now: Date) throws {
        // Vaults are ordered by when they were made (the first is where new items go): one made in the same
        // millisecond as the last is dated a millisecond later, so the order is the same on every device.
        let latest = vault.vaults.compactMap(\.created).max()
        let created = latest.map { max(now.storedPrecision, $0.addingTimeInterval(0.001)) } ?? now
        let info = VaultInfo(name: name, icon: icon, colour: colour, created: created)
        vault.vaults.append(info)
        guard var st = vault.sync else { return }
        let key = SecretBytes.generate(count: 32)
        let wrapped = try ItemSeal.wrapVaultKey(key, accountID: st.accountID, vaultID: info.id, keyVersion: 1, wrapKey: SecretBytes(copying: st.wrapKey))
        st.vaults[info.id] = SyncedVault(keyVersion: 1, key: key.revealBytes(), wrappedKey: wrapped, metaPending: true)
        vault.sync = st
    }

    // MARK: Pushing

    struct Batch {
        var request: SyncPushRequest
        /// What each item written was when sealed (to tell, at a late acknowledgement, what changed since).
        var sealed: [String: Item] = [:]
        var items: [(vaultID: String, itemID: String, envelope: [UInt8]?)]
        var trees: [String: ManifestTree]
        var manifests: [String: Manifest]
        var metas: [String: [UInt8]]
    }

    /// Pushes everything waiting, a batch at a time; how many writes went, and whether one lost a race.
    func pushAll() throws -> (Int, Bool) {
        var pushed = 0
        while let batch = try nextBatch() {
            let body = Array(try ProtocolCoding.wireEncode(batch.request))
            session.syncInFlight = body
            session.syncInFlightBatch = batch
            let reply: SyncPushReply
            do {
                reply = try client.push(body)
            } catch let error as ProtocolError where error.code == .syncConflict {
                session.syncInFlight = nil
                session.syncInFlightBatch = nil
                return (pushed, true)
            }
            try acknowledge(batch, revision: reply.revision)
            pushed += batch.items.count + batch.metas.count
        }
        return (pushed, false)
    }

    /// The next push: vaults new or renamed here, items changed here (a moved item is written in its new
    /// vault and deleted in its old one, in the same push), items deleted here.
    func nextBatch() throws -> Batch? {
        let vault = session.vault
        let st = state
        var trees = trees()
        var writes: [String: [SyncItemWrite]] = [:]
        var items: [(vaultID: String, itemID: String, envelope: [UInt8]?)] = []
        var bytes = 0
        var sealed: [String: Item] = [:]
        let undecryptable = Set(st.undecryptable.map { $0.vaultID + "/" + $0.itemID })
        var full: Bool { items.count >= SyncService_pushItemLimit - 1 || bytes >= Self.batchBytes }
        for item in vault.items where item.syncPending {
            if full { break }
            guard let target = item.vaultID, let v = st.vaults[target] else { continue }
            // An entry this device cannot open is newer than what it has: never written over.
            if undecryptable.contains(target + "/" + item.id) { continue }
            let envelope = try ItemSeal.seal(item, vaultID: target, keyVersion: v.keyVersion, key: SecretBytes(copying: v.key))
            sealed[item.id] = item.synced
            writes[target, default: []].append(SyncItemWrite(itemID: item.id, envelope: Data(envelope)))
            items.append((target, item.id, envelope))
            trees[target, default: ManifestTree()].set(item.id, envelope: envelope)
            bytes += envelope.count
            if let old = item.syncBase?.vaultID, old != target {
                writes[old, default: []].append(SyncItemWrite(itemID: item.id, envelope: nil))
                items.append((old, item.id, nil))
                trees[old, default: ManifestTree()].setDeleted(item.id)
            }
        }
        for (id, removal) in st.removals.sorted(by: { $0.key < $1.key }) {
            if full { break }
            guard st.vaults[removal.vaultID] != nil, !undecryptable.contains(removal.vaultID + "/" + id) else { continue }
            writes[removal.vaultID, default: []].append(SyncItemWrite(itemID: id, envelope: nil))
            items.append((removal.vaultID, id, nil))
            trees[removal.vaultID, default: ManifestTree()].setDeleted(id)
        }
        var metas: [String: [UInt8]] = [:]
        for info in vault.vaults {
            guard let v = st.vaults[info.id], v.metaPending || v.manifestVersion == 0 else { continue }
            metas[info.id] = try ItemSeal.sealMeta(info, keyVersion: v.keyVersion, key: SecretBytes(copying: v.key))
            writes[info.id] = writes[info.id] ?? []
        }
        guard !writes.isEmpty else { return nil }
        let signer = try SigningKey(seed: SecretBytes(copying: st.signSeed))
        var manifests: [String: Manifest] = [:]
        var vaultWrites: [SyncVaultWrite] = []
        for (vaultID, list) in writes.sorted(by: { $0.key < $1.key }) {
            guard let v = st.vaults[vaultID] else { continue }
            let meta = metas[vaultID] ?? v.meta.map { Array($0) } ?? []
            var m = Manifest(
                vaultID: vaultID, version: v.manifestVersion + 1, previous: v.manifestVersion == 0 ? Manifest.noPrevious : Array(v.manifestHash),
                root: trees[vaultID, default: ManifestTree()].root(), metaHash: Hash.sha256(meta), keyVersion: v.keyVersion, signer: st.accountID)
            m.sign(with: signer)
            manifests[vaultID] = m
            vaultWrites.append(
                SyncVaultWrite(
                    vaultID: vaultID, baseVersion: v.manifestVersion, manifest: Data(m.encoded), keyVersion: v.keyVersion,
                    key: v.manifestVersion == 0 ? v.wrappedKey : nil, meta: metas[vaultID].map { Data($0) }, items: list))
        }
        let opID = SecureRandom.bytes(count: 16).map { String(format: "%02x", $0) }.joined()
        return Batch(request: SyncPushRequest(opID: opID, vaults: vaultWrites), sealed: sealed, items: items, trees: trees, manifests: manifests, metas: metas)
    }

    /// Records an accepted push: the items' server versions, the vaults' new manifests.
    func acknowledge(_ batch: Batch, revision: Int64) throws {
        let written = Set(batch.items.filter { $0.envelope != nil }.map(\.itemID))
        try save(written) { vault in
            var st = vault.sync!
            var live = [String: (String, [UInt8])]()
            for w in batch.items {
                if let envelope = w.envelope {
                    live[w.itemID] = (w.vaultID, envelope)
                    st.tombstones[w.vaultID]?.removeAll { $0 == w.itemID }
                } else {
                    if !(st.tombstones[w.vaultID]?.contains(w.itemID) ?? false) { st.tombstones[w.vaultID, default: []].append(w.itemID) }
                    if st.removals[w.itemID]?.vaultID == w.vaultID { st.removals[w.itemID] = nil }
                }
            }
            var present = Set<String>()
            for i in vault.items.indices {
                guard let (vaultID, envelope) = live[vault.items[i].id] else { continue }
                present.insert(vault.items[i].id)
                // Changed again since it was sealed (a late acknowledgement): still pending, on top of what was pushed.
                let pushed = batch.sealed[vault.items[i].id]
                let changedSince = pushed.map { $0 != vault.items[i].synced } ?? false
                vault.items[i].syncBase = SyncBase(vaultID: vaultID, revision: revision, hash: SyncHash.of(envelope), ancestor: changedSince ? pushed : nil)
                vault.items[i].syncPending = changedSince
            }
            // Deleted here since it was sealed: what the server now holds is what to delete there.
            for (id, (vaultID, envelope)) in live where !present.contains(id) && st.removals[id] != nil {
                st.removals[id] = SyncRemoval(vaultID: vaultID, hash: SyncHash.of(envelope))
            }
            for (vaultID, m) in batch.manifests {
                st.vaults[vaultID]?.manifestVersion = m.version
                st.vaults[vaultID]?.manifestHash = Data(m.hash)
                if let meta = batch.metas[vaultID] { st.vaults[vaultID]?.meta = Data(meta) }
                st.vaults[vaultID]?.metaPending = false
            }
            st.ownRevisions = (st.ownRevisions ?? []) + [revision]
            vault.sync = st
        }
        session.syncInFlight = nil
        session.syncInFlightBatch = nil
        var trees = session.syncTrees ?? [:]
        for (id, tree) in batch.trees { trees[id] = tree }
        session.syncTrees = trees
    }
}

/// The most writes in one push (the server's `SyncService.pushItemLimit`).
let SyncService_pushItemLimit = 1_000
