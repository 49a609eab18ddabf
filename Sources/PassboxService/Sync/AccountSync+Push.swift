import Foundation
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxManifest
import PassboxProtocol
import PassboxSync

/// Vaults made here, and pushing what waits.
extension AccountSync {
    // MARK: Vaults

    /// Gives every item a vault: the vault it is in on the server, else the first vault, made ("Personal")
    /// when the account has none yet.
    func assignVaults() throws {
        let vault = session.vault
        // A handful of vaults: comparing with each is quicker than hashing every item's vault id. After the first
        // pass of a session only an item changed here can be without a vault (a pulled item names its vault).
        let known = vault.vaults.map(\.id)
        let everyItem = !session.syncState.vaultsAssigned
        let homeless = vault.items.filter { item in (everyItem || item.syncPending) && (item.vaultID.map { id in !known.contains(id) } ?? true) }
        session.syncState.vaultsAssigned = true
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
        var resent = 0
        // Each batch is sealed in a step, sent outside one, and acknowledged in the next.
        while let (batch, body) = try step({ () throws -> (Batch, [UInt8])? in
            guard let batch = try nextBatch() else { return nil }
            let body = Array(try ProtocolCoding.wireEncode(batch.request))
            if realm == nil {
                session.syncInFlight = body
                session.syncState.inFlightBatch = batch
            }
            return (batch, body)
        }) {
            let reply: SyncPushReply
            do {
                reply = try client.push(body)
            } catch let error as ProtocolError where error.code == .syncConflict {
                try step { clearInFlight() }
                return (pushed, true)
            } catch let error as ProtocolError where error.code == .blobsMissing {
                // Nothing of the push was applied. The server lacks blobs this device has (another device had
                // them removed, or the server lost them): they go up again, then the push is made anew. A server
                // that keeps saying so after two rounds gets its answer passed on.
                try step { clearInFlight() }
                resent += 1
                guard resent <= 2 else { throw error }
                try uploadAgain((error.facts["ids"] ?? "").split(separator: ",").map(String.init), declared: batch.request.blobs ?? [])
                continue
            }
            try step { try acknowledge(batch, revision: reply.revision) }
            resent = 0
            // (A shared vault's name envelope goes with every push, naming the member list: not a change of its own.)
            pushed += batch.items.count + (realm == nil ? batch.metas.count : 0)
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
        // Blobs the items refer to and this device has: the server checks it has them whole.
        var declared = Set<String>()
        let blobs = session.blobs
        var full: Bool { items.count >= SyncService_pushItemLimit - 1 || bytes >= Self.batchBytes }
        // A shared vault this account may only view is never written (the server would refuse it).
        let viewOnly = Set(st.viewOnly ?? [])
        // A deletion that is the second half of a move between realms waits until the item is written where it
        // went (acknowledged there): until then the server keeps it where it was.
        let unplaced = st.removals.isEmpty ? [] : Set(vault.items.filter { $0.syncBase == nil }.map(\.id))
        var removedHere = Set<String>()
        for item in vault.items where item.syncPending {
            if full { break }
            guard let target = item.vaultID, let v = st.vaults[target], !viewOnly.contains(target) else { continue }
            // A move whose other half cannot be written here (the vault it left is closed or view-only now) waits:
            // written alone it would leave the item live in two vaults.
            if realm != nil, let old = item.syncBase?.vaultID, old != target, st.vaults[old] == nil || viewOnly.contains(old) { continue }
            if realm != nil, item.syncBase == nil, let removal = st.removals[item.id], removal.vaultID != target, st.vaults[removal.vaultID] == nil || viewOnly.contains(removal.vaultID) {
                continue
            }
            // An entry this device cannot open is newer than what it has: never written over.
            if undecryptable.contains(target + "/" + item.id) { continue }
            // Blobs are the account's own: a shared vault's push declares none.
            let referenced = realm != nil ? [] : item.referencedBlobs.map(\.id).filter { blobs.length($0) != nil }
            // An item with more blobs than one push may declare goes without (its blobs are up, or it waits for room).
            if !declared.isEmpty, declared.count + referenced.count > BlobTransfer.declaredLimit { break }
            if referenced.count <= BlobTransfer.declaredLimit { declared.formUnion(referenced) }
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
            } else if let removal = st.removals[item.id], removal.vaultID != target, st.vaults[removal.vaultID] != nil, !viewOnly.contains(removal.vaultID) {
                // Moved away and back into this realm, to another vault: deleted where it was in the same push.
                writes[removal.vaultID, default: []].append(SyncItemWrite(itemID: item.id, envelope: nil))
                items.append((removal.vaultID, item.id, nil))
                trees[removal.vaultID, default: ManifestTree()].setDeleted(item.id)
                removedHere.insert(item.id)
            }
        }
        for (id, removal) in st.removals.sorted(by: { $0.key < $1.key }) {
            if full { break }
            guard st.vaults[removal.vaultID] != nil, !viewOnly.contains(removal.vaultID), !unplaced.contains(id), !removedHere.contains(id),
                !undecryptable.contains(removal.vaultID + "/" + id)
            else {
                continue
            }
            writes[removal.vaultID, default: []].append(SyncItemWrite(itemID: id, envelope: nil))
            items.append((removal.vaultID, id, nil))
            trees[removal.vaultID, default: ManifestTree()].setDeleted(id)
        }
        var metas: [String: [UInt8]] = [:]
        for info in vault.vaults {
            guard let v = st.vaults[info.id], v.metaPending || v.manifestVersion == 0, !viewOnly.contains(info.id) else { continue }
            metas[info.id] = try ItemSeal.sealMeta(info, keyVersion: v.keyVersion, key: SecretBytes(copying: v.key))
            writes[info.id] = writes[info.id] ?? []
        }
        // A vault deleted here: its name envelope, sealed at the deletion, says so (`VaultInfo.deleted`).
        let live = Set(vault.vaults.map(\.id))
        for (id, v) in st.vaults where realm == nil && v.metaPending && !live.contains(id) {
            // With the first batch of its items' moves (its manifest names this envelope).
            guard let sealed = v.meta else { continue }
            metas[id] = Array(sealed)
            writes[id] = writes[id] ?? []
        }
        guard !writes.isEmpty else { return nil }
        if let realm {
            // Each shared vault written names the member list this device relies on (caught where it differs).
            for id in writes.keys {
                guard let v = st.vaults[id], var info = vault.vaults.first(where: { $0.id == id }) else { continue }
                (info.listVersion, info.listHash) = (realm.head.version, realm.head.hash)
                metas[id] = try ItemSeal.sealMeta(info, keyVersion: v.keyVersion, key: SecretBytes(copying: v.key))
            }
        }
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
                    key: v.manifestVersion == 0 && realm == nil ? v.wrappedKey : nil, meta: metas[vaultID].map { Data($0) }, items: list))
        }
        let opID = SecureRandom.bytes(count: 16).map { String(format: "%02x", $0) }.joined()
        let request = SyncPushRequest(opID: opID, vaults: vaultWrites, blobs: declared.isEmpty ? nil : declared.sorted(), orgID: realm?.orgID)
        return Batch(request: request, sealed: sealed, items: items, trees: trees, manifests: manifests, metas: metas)
    }

    /// Records an accepted push: the items' server versions, the vaults' new manifests.
    func acknowledge(_ batch: Batch, revision: Int64) throws {
        let written = Set(batch.items.filter { $0.envelope != nil }.map(\.itemID))
        try save(written) { vault in
            var st = state(in: vault)
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
                // Here, still there, and written again where a deletion waited (moved away and back): the deletion
                // is void. (One moved out again meanwhile keeps it.)
                if st.removals[vault.items[i].id]?.vaultID == vaultID, vault.items[i].vaultID == vaultID { st.removals[vault.items[i].id] = nil }
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
                if realm != nil { st.vaults[vaultID]?.manifestEpoch = m.keyVersion }
                st.vaults[vaultID]?.manifestVersion = m.version
                st.vaults[vaultID]?.manifestHash = Data(m.hash)
                if let meta = batch.metas[vaultID] { st.vaults[vaultID]?.meta = Data(meta) }
                st.vaults[vaultID]?.metaPending = false
            }
            st.ownRevisions = (st.ownRevisions ?? []) + [revision]
            put(st, in: &vault)
        }
        clearInFlight()
        var trees = keptTrees ?? [:]
        for (id, tree) in batch.trees { trees[id] = tree }
        keptTrees = trees
    }
}
