import Foundation
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxManifest
import PassboxProtocol
import PassboxSync

/// Pulling: every page checked against the chains this device verified, the trees after the last page.
extension AccountSync {
    // MARK: Pulling

    /// Pulls every page after this device's revision, checks each against the chains it verified (keys,
    /// signatures, versions, hashes), and only once the last page is in checks each vault's tree against its
    /// newest manifest: a page can hold a manifest whose items were rewritten since and so come in a later
    /// page. Then the whole pull is merged and saved at once.
    ///
    /// The pages are fetched outside any step (no key is read while the network works), each bounded by the
    /// sync's limits and by the revision the first page named as the pull's end; then one step verifies and
    /// applies them. A lock meanwhile drops them.
    func pullAll() throws -> Int {
        let (since, own, held) = try step { (state.revision, state.ownRevisions ?? [], Set(state.vaults.keys)) }
        let skip = own.count <= SyncPullRequest.skipLimit ? own : []
        var cursor = since
        var pages: [(since: Int64, reply: SyncPullReply)] = []
        var target: Int64?
        while true {
            var reply = try fetchPage(since: cursor, skip: skip, until: target)
            // An organisation's vaults this account holds no key for yet (a manager has not granted one) are
            // left aside: they come once a grant does.
            if realm != nil {
                reply.vaults.removeAll { !held.contains($0.vaultID) }
                reply.items.removeAll { !held.contains($0.vaultID) }
                reply.manifests.removeAll { !held.contains($0.vaultID) }
            }
            guard reply.revision >= cursor else { throw Self.refused("", "stepBack") }
            if pages.isEmpty {
                target = reply.latest
            } else if let latest = reply.latest, latest != target {
                throw Self.refused("", "pastTarget")
            }
            if let target {
                // No page goes past where the first one said the pull ends, and the last one ends there.
                guard reply.revision <= target else { throw Self.refused("", "pastTarget") }
                guard reply.more ? reply.revision < target : reply.revision == target else { throw Self.refused("", "malformed") }
            }
            pages.append((cursor, reply))
            // A lock meanwhile ends the pull here.
            try step {}
            if !reply.more { break }
            guard reply.revision > cursor else { throw Self.refused("", "malformed") }
            cursor = reply.revision
        }
        return try step {
            var acc = Accumulated(vaults: state.vaults, trees: trees())
            acc.fromStart = since == 0
            var items: [SyncItemRecord] = []
            var manifests: [SyncManifestRecord] = []
            for (pageSince, reply) in pages {
                try verifyPage(reply, since: pageSince, into: &acc)
                items += reply.items
                manifests += reply.manifests
            }
            let last = pages[pages.count - 1].reply
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
    }

    /// One page, counted against the sync's limits: pages, records, bytes and the time spent waiting (each
    /// request's timeout is what is left of it, at most 60 s).
    func fetchPage(since: Int64, skip: [Int64], until: Int64?) throws -> SyncPullReply {
        let left = limits.seconds - budget.seconds
        guard left > 0 else { throw Self.refused("", "tooSlow") }
        let started = DispatchTime.now()
        defer { budget.seconds += Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9 }
        let page: (reply: SyncPullReply, bytes: Int)
        do {
            page = try client.pullPage(since: since, skip: skip, until: until, timeoutSeconds: max(1, min(60, Int(left.rounded(.up)))))
        } catch let error as ProtocolError where error.code == .serverUnreachable || error.code == .requestTimeout {
            // A server that answers too slowly for what is left of the time: refused, not merely out of reach.
            let spent = budget.seconds + Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            if spent >= limits.seconds { throw Self.refused("", "tooSlow") }
            throw error
        }
        budget.pages += 1
        budget.bytes += page.bytes
        budget.records += page.reply.vaults.count + page.reply.items.count + page.reply.manifests.count
        guard budget.pages <= limits.pages else { throw Self.refused("", "tooManyPages") }
        guard budget.bytes <= limits.bytes else { throw Self.refused("", "tooLarge") }
        guard budget.records <= limits.records else { throw Self.refused("", "tooManyRecords") }
        return page.reply
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
        /// Shared vaults whose newest manifest so far is signed by no one the verified list lets edit them.
        var unvouched = Set<String>()
        /// The pull starts from revision 0 (a new device, or an organisation pulled again when a vault joined).
        var fromStart = false
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
            guard SyncIdentifier.isValid(record.vaultID) else { throw Self.refused("(invalid id)", "malformed") }
            if realm != nil {
                // A shared vault's key is its grant's, not the server's: only its place in the chain is checked.
                guard let known = acc.vaults[record.vaultID], record.manifestVersion >= known.manifestVersion else { throw Self.refused(record.vaultID, "stepBack") }
                continue
            }
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
            guard SyncIdentifier.isValid(record.itemID) else { throw Self.refused(record.vaultID, "malformed") }
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
                // An organisation pulled again from the start: versions older than the one verified here are
                // passed over (the pull must still end at or past it, with the same hash where it is the same).
                if realm != nil, acc.fromStart, m.version < v.manifestVersion { continue }
                if let realm {
                    // Signed by a member the verified list lets edit this vault, or who it let edit at the
                    // manifest's key epoch (as this device saw the list then: a member removed since). Another
                    // signer's version is believed only when a later one in the same pull, by someone who may,
                    // builds on it (its `previous`): checked once the pull is whole. Epochs never go back.
                    guard m.keyVersion >= (v.manifestEpoch ?? 0) else { throw Self.refused(vaultID, "stepBack") }
                    v.manifestEpoch = m.keyVersion
                    if let key = realm.editors[vaultID]?[m.signer], m.isSigned(by: key) {
                        acc.unvouched.remove(vaultID)
                    } else if (st.editors ?? []).contains(where: {
                        // Someone who could edit at the manifest's epoch, up to the rotation that made this vault's
                        // current key (a member removed long before vouches for nothing).
                        $0.vaultID == vaultID && $0.accountID == m.signer && $0.epoch >= m.keyVersion && $0.epoch + 1 >= v.keyVersion && m.isSigned(by: Array($0.key))
                    }) {
                        acc.unvouched.remove(vaultID)
                    } else {
                        acc.unvouched.insert(vaultID)
                    }
                } else {
                    guard m.signer == st.accountID, m.isSigned(by: Array(st.signPublicKey)) else { throw Self.refused(vaultID, "signature") }
                }
                if m.version <= v.manifestVersion {
                    // The one this device already verified, sent again: harmless. Anything else is a step back or a fork.
                    if m.version == v.manifestVersion && m.hash == Array(v.manifestHash) {
                        acc.newest[vaultID] = (m, record.meta)
                        continue
                    }
                    throw Self.refused(vaultID, m.version < v.manifestVersion ? "stepBack" : "fork")
                }
                // A vault this device has never held starts from the first version the server still keeps (it
                // drops history no device needs): signed by the account, which is all a first version proves too.
                // From then on every version must follow the one before.
                // A device that last synced longer ago than servers keep history may find a gap where history was
                // dropped: it starts that vault's chain again from what the pull brings, as a new device would.
                let away = st.lastSync.map { now().timeIntervalSince($0) > ManifestHistory.retention } ?? false
                if v.manifestVersion > 0, away, m.version > v.manifestVersion + 1 {
                    // accepted as a new start (signed by the account, checked above)
                } else if v.manifestVersion > 0 {
                    guard m.version == v.manifestVersion + 1 else { throw Self.refused(vaultID, "gap") }
                    guard m.previous == Array(v.manifestHash) else { throw Self.refused(vaultID, "fork") }
                } else if m.version == 1 {
                    guard m.previous == Manifest.noPrevious else { throw Self.refused(vaultID, "fork") }
                }
                // A shared vault's manifest under a later epoch than the verified list's: its writer relied on a newer list.
                if let realm, m.keyVersion > realm.epoch { throw Self.refused(vaultID, "listBehind") }
                // A shared vault's manifest may be of an earlier epoch (nobody wrote since the keys were renewed).
                let keyKnown = realm == nil ? m.keyVersion == v.keyVersion : m.keyVersion <= v.keyVersion
                guard keyKnown, Hash.sha256(Array(record.meta)) == m.metaHash else { throw Self.refused(vaultID, "misplaced") }
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
        if let vault = acc.unvouched.sorted().first { throw Self.refused(vault, "signature") }
        var vaults = acc.vaults
        var trees = acc.trees
        var infos = [String: VaultInfo]()
        for (vaultID, (m, meta)) in acc.newest {
            guard var v = vaults[vaultID] else { throw Self.refused(vaultID, "unknownVault") }
            guard trees[vaultID, default: ManifestTree()].root(format: m.format) == m.root else { throw Self.refused(vaultID, "rootMismatch") }
            // A shared vault's name may be sealed at an earlier epoch than the manifest (kept as it was since).
            let keys = realm == nil ? [(v.keyVersion, SecretBytes(copying: v.key))] : sharedKeys(vaultID).map { ($0.epoch, $0.key) }
            let opened = keys.lazy.compactMap({ try? ItemSeal.openMeta(Array(meta), vaultID: vaultID, keyVersion: $0.0, key: $0.1) }).first
            // A shared vault's name sealed under an epoch this member was never given (written before they
            // joined): the name stays as the grant gave it; the signed manifest still binds the envelope.
            // (Only for a vault this device sees for the first time: one it held before must open, or a server that
            // withholds old grants could skip the list check below.)
            if opened == nil, let realm, m.keyVersion < realm.epoch, (state.vaults[vaultID]?.manifestVersion ?? 0) == 0,
                !sharedKeys(vaultID).contains(where: { $0.epoch == m.keyVersion })
            {
                vaults[vaultID] = v
                continue
            }
            guard let info = opened else { throw Self.refused(vaultID, "misplaced") }
            // The member list its writer relied on: the same version must be the same list, and a newer one
            // must reach this device too (else the server shows members different lists, or withholds one).
            if let realm, let named = info.listVersion, let hash = info.listHash {
                if named == realm.head.version, !ConstantTime.equal(hash, realm.head.hash) { throw Self.refused(vaultID, "listForked") }
                if named > realm.head.version { throw Self.refused(vaultID, "listBehind") }
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
            do {
                if realm != nil {
                    items[record.vaultID + "/" + record.itemID] = try openShared(Array(envelope), vaultID: record.vaultID, itemID: record.itemID)
                    continue
                }
                let key = SecretBytes(copying: v.key)
                items[record.vaultID + "/" + record.itemID] = try ItemSeal.open(Array(envelope), vaultID: record.vaultID, itemID: record.itemID, keyVersion: v.keyVersion, key: key)
            } catch CryptoError.unsupportedVersion(let version) {
                undecryptable[record.vaultID + "/" + record.itemID] = "envelope version \(version)"
            } catch {
                undecryptable[record.vaultID + "/" + record.itemID] = "\(error)"
            }
        }
        return Verified(vaults: vaults, trees: trees, infos: infos, items: items, undecryptable: undecryptable)
    }

    /// Opens a shared vault's item under the key of the epoch it was sealed in (its associated data names the
    /// epoch, so only that key opens it).
    func openShared(_ envelope: [UInt8], vaultID: String, itemID: String) throws -> Item {
        var failure: Error = CryptoError.authenticationFailed
        for (epoch, key) in sharedKeys(vaultID) {
            do {
                return try ItemSeal.open(envelope, vaultID: vaultID, itemID: itemID, keyVersion: epoch, key: key)
            } catch CryptoError.authenticationFailed {
                continue
            } catch {
                failure = error
            }
        }
        throw failure
    }
}
