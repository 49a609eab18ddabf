import Foundation
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxProtocol
import PassboxSync

/// Merging a verified pull into the vault.
extension AccountSync {
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
            var st = state(in: vault)
            st.vaults = verified.vaults
            for (id, pulled) in verified.infos.sorted(by: { $0.key < $1.key }) {
                // A shared vault takes only its name from the envelope (a writer cannot date it before the
                // account's own vaults, or make it where new items go).
                let info = realm == nil ? pulled : VaultInfo(id: id, name: pulled.name)
                // Deleted on another device: gone here too (its items came, or come, in the trash of another vault).
                // (A shared vault goes only when the member list takes it away.)
                if info.deleted != nil {
                    if realm != nil { continue }
                    // Two devices that each deleted one of the last two vaults: the last one left here stays, and
                    // its name goes up again without `deleted`, so the account always keeps a vault.
                    let own = vault.vaults.filter { vault.sync?.org(of: $0.id) == nil }
                    if own.count == 1, own[0].id == id {
                        st.vaults[id]?.metaPending = true
                        continue
                    }
                    if vault.vaults.contains(where: { $0.id == id }) {
                        vault.vaults.removeAll { $0.id == id }
                        count += 1
                    }
                    continue
                }
                if let i = vault.vaults.firstIndex(where: { $0.id == id }) {
                    if vault.vaults[i] != info { count += 1 }
                    vault.vaults[i] = info
                } else {
                    vault.vaults.append(info)
                    count += 1
                }
            }
            // The account's own vaults first (the first is where new items go), then shared ones.
            let shared = vault.sync.map(\.sharedVaultIDs) ?? []
            vault.vaults.sort {
                (shared.contains($0.id) ? 1 : 0, $0.created ?? .distantFuture, $0.id) < (shared.contains($1.id) ? 1 : 0, $1.created ?? .distantFuture, $1.id)
            }
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
                // An organisation's record never takes over an item at home elsewhere (the account's own, another
                // organisation's, or moved out of this one): the server and an editor could otherwise pull it in.
                if realm != nil, let local, let home = local.syncBase?.vaultID ?? local.vaultID, st.vaults[home] == nil, !(st.closed?.contains(home) ?? false) {
                    continue
                }
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
            put(st, in: &vault)
        }
        keptTrees = verified.trees
        // An item in a vault deleted on another device (pulled, or here before the deletion came) gets a vault
        // of those left at the next assignment, which then looks at every item.
        let live = Set(session.vault.vaults.map(\.id))
        if session.vault.items.contains(where: { $0.vaultID.map { !live.contains($0) } ?? false }) { session.syncState.vaultsAssigned = false }
        return count
    }
}
