import Foundation
import PassboxCore
import PassboxCrypto
import PassboxManifest
import PassboxProtocol
import PassboxStore
import PassboxSync

/// Vaults inside the file or the account (VLT-1–4, 7–8): list, make, rename and restyle, move and copy items.
extension VaultSession {
    /// The vault a user's reference names: its exact name (any case), or its id or an id prefix of 4 or more.
    func resolveVault(_ reference: String) throws -> VaultInfo {
        let vaults = vault.vaults
        if let exact = vaults.first(where: { $0.name == reference }) { return exact }
        let folded = vaults.filter { $0.name.caseInsensitiveCompare(reference) == .orderedSame }
        if folded.count == 1 { return folded[0] }
        let lower = reference.lowercased()
        let byID = vaults.filter { $0.id.lowercased() == lower || (lower.count >= 4 && $0.id.lowercased().hasPrefix(lower)) }
        if byID.count == 1 { return byID[0] }
        throw ProtocolError(.vaultNotFound, ["reference": String(reference.prefix(100))])
    }

    func vaultView(_ info: VaultInfo, at index: Int, counts: [String: Int]) -> VaultView {
        VaultView(
            id: info.id, name: info.name, icon: info.shownIcon(isFirst: index == 0).rawValue, colour: info.shownColour(isFirst: index == 0).rawValue,
            items: counts[info.id] ?? 0, isDefault: index == 0)
    }

    func itemCounts() -> [String: Int] {
        let first = vault.vaults.first?.id ?? ""
        var counts = [String: Int]()
        for item in vault.items where !item.isTrashed { counts[item.vaultID ?? first, default: 0] += 1 }
        return counts
    }

    func vaultList(kind: String, account: String?, other: String?) -> VaultListReply {
        let counts = itemCounts()
        var views = vault.vaults.enumerated().map { vaultView($0.element, at: $0.offset, counts: counts) }
        if views.isEmpty {
            // A file made before vaults existed: its items are in one vault, named when a second is made.
            views = [VaultView(id: "", name: "Personal", icon: VaultIcon.house.rawValue, colour: VaultColour.blue.rawValue, items: counts[""] ?? 0, isDefault: true)]
        }
        return VaultListReply(kind: kind, account: account, vaults: views, other: other)
    }

    static func checkedName(_ name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw ProtocolError(.vaultNameInvalid, ["reason": "it is empty"]) }
        guard trimmed.count <= VaultInfo.nameLimit else { throw ProtocolError(.vaultNameInvalid, ["reason": "it is longer than 100 characters"]) }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ProtocolError(.vaultNameInvalid, ["reason": "it holds a control character"])
        }
        return trimmed
    }

    static func icon(_ name: String?) throws -> VaultIcon? {
        guard let name else { return nil }
        guard let icon = VaultIcon(rawValue: name) else { throw ProtocolError(.invalidSetting, ["name": "icon", "value": String(name.prefix(40))]) }
        return icon
    }

    static func colour(_ name: String?) throws -> VaultColour? {
        guard let name else { return nil }
        guard let colour = VaultColour(rawValue: name) else { throw ProtocolError(.invalidSetting, ["name": "colour", "value": String(name.prefix(40))]) }
        return colour
    }

    func createVault(_ r: VaultCreateRequest) throws -> VaultView {
        let name = try Self.checkedName(r.name)
        let (icon, colour) = (try Self.icon(r.icon), try Self.colour(r.colour))
        guard !vault.vaults.contains(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) else {
            throw ProtocolError(.vaultNameInvalid, ["reason": "another vault has that name"])
        }
        let homeless = Set(vault.items.filter { $0.vaultID == nil }.map(\.id))
        let id: String = try updateNaming(homeless) { vault in
            // The items of a file without vaults go into a first vault, made now, so they stay where they were.
            if vault.vaults.isEmpty {
                try AccountSync.makeVault(&vault, name: "Personal", icon: nil, colour: nil, now: now())
                let first = vault.vaults[0].id
                for i in vault.items.indices where vault.items[i].vaultID == nil {
                    if vault.sync != nil { vault.items[i].markSyncPending() }
                    vault.items[i].vaultID = first
                }
            }
            try AccountSync.makeVault(&vault, name: name, icon: icon, colour: colour, now: now())
            return vault.vaults.last!.id
        }
        let index = vault.vaults.firstIndex { $0.id == id } ?? 0
        return vaultView(vault.vaults[index], at: index, counts: itemCounts())
    }

    /// Refuses to rename or delete a shared vault here: its organisation's managers do that (`passbox org`).
    func requireOwnVault(_ target: VaultInfo) throws {
        if vault.sync?.org(of: target.id) != nil { throw ProtocolError(.vaultShared, ["vault": target.name]) }
    }

    func editVault(_ r: VaultEditRequest) throws -> VaultView {
        let target = try resolveVault(r.vault)
        try requireOwnVault(target)
        let name = try r.name.map(Self.checkedName)
        let (icon, colour) = (try Self.icon(r.icon), try Self.colour(r.colour))
        if let name, vault.vaults.contains(where: { $0.id != target.id && $0.name.caseInsensitiveCompare(name) == .orderedSame }) {
            throw ProtocolError(.vaultNameInvalid, ["reason": "another vault has that name"])
        }
        try updateNaming([]) { vault in
            guard let i = vault.vaults.firstIndex(where: { $0.id == target.id }) else { return }
            if let name { vault.vaults[i].name = name }
            if let icon { vault.vaults[i].icon = icon }
            if let colour { vault.vaults[i].colour = colour }
            if vault.vaults[i] != target { vault.sync?.vaults[target.id]?.metaPending = true }
        }
        let index = vault.vaults.firstIndex { $0.id == target.id } ?? 0
        return vaultView(vault.vaults[index], at: index, counts: itemCounts())
    }

    /// Deletes a vault (LB-2): its items go to the trash of the first vault left (restorable for 30 days), never
    /// deleted outright; the only vault cannot go (`lastVault`). Without `confirm` it only says what it would do.
    /// Hidden items of the vault move to that vault as they are (deleting reveals nothing of them). For an
    /// account, the vault's name envelope says it was deleted, so the account's other devices drop it too.
    func deleteVault(_ r: VaultDeleteRequest) throws -> VaultDeletedReply {
        // A file without vaults lists its one vault as "Personal": the only one.
        if vault.vaults.isEmpty, r.vault.caseInsensitiveCompare("Personal") == .orderedSame { throw ProtocolError(.lastVault, ["name": "Personal"]) }
        let target = try resolveVault(r.vault)
        try requireOwnVault(target)
        // Its items go to one of the account's own vaults, never into a shared one.
        guard let home = vault.vaults.first(where: { $0.id != target.id && vault.sync?.org(of: $0.id) == nil }) else {
            throw ProtocolError(.lastVault, ["name": target.name])
        }
        let first = vault.vaults.first?.id
        let inside = vault.items.filter { ($0.vaultID ?? first) == target.id }
        var reply = VaultDeletedReply(
            id: target.id, name: target.name, items: inside.filter { !$0.isTrashed }.count, trashed: inside.filter(\.isTrashed).count, home: home.name, deleted: false)
        guard r.confirm else { return reply }
        let at = now().storedPrecision
        try update(reindexing: { _ in inside.map(\.id) }) { v in
            let firstNow = v.vaults.first?.id
            for i in v.items.indices where (v.items[i].vaultID ?? firstNow) == target.id {
                if v.sync != nil { v.items[i].markSyncPending() }
                v.items[i].vaultID = home.id
                if v.items[i].trashedAt == nil { v.items[i].trashedAt = at }
            }
            for i in v.hiddenItems.indices where (v.hiddenItems[i].vaultID ?? firstNow) == target.id { v.hiddenItems[i].vaultID = home.id }
            v.vaults.removeAll { $0.id == target.id }
            guard var st = v.sync, var synced = st.vaults[target.id] else { return }
            if synced.manifestVersion == 0, syncInFlight == nil {
                // Never pushed: the server has never heard of it.
                st.vaults[target.id] = nil
            } else {
                var gone = target
                gone.deleted = at
                synced.meta = Data(try ItemSeal.sealMeta(gone, keyVersion: synced.keyVersion, key: SecretBytes(copying: synced.key)))
                synced.metaPending = true
                st.vaults[target.id] = synced
            }
            v.sync = st
        }
        reply.deleted = true
        return reply
    }

    /// Moves items to another vault (keeping their ids, history, dates and favourite: one server operation
    /// when synced), or copies them (new ids, no history). Items already there are left as they are.
    func move(_ r: MoveRequest) throws -> CountReply {
        let target = try resolveVault(r.vault)
        guard !r.items.isEmpty else { throw ProtocolError(.badRequest, ["reason": "no items named"]) }
        var ids: [String] = []
        for reference in r.items {
            let item = try resolve(reference)
            if !ids.contains(item.id) { ids.append(item.id) }
        }
        // Files stay with their account: an item with attachments does not go into a shared vault (yet).
        if vault.sync?.org(of: target.id) != nil, ids.contains(where: { id in vault.items.first { $0.id == id }.map { !$0.attachments.isEmpty } ?? false }) {
            throw ProtocolError(.invalidValue, ["reason": "attachment.shared"])
        }
        let first = vault.vaults.first?.id
        let at = now()
        let changed: [String] = try update(reindexing: { $0 }) { vault in
            var done: [String] = []
            for id in ids {
                guard let i = vault.items.firstIndex(where: { $0.id == id }) else { continue }
                if r.copy {
                    try vault.requireWritable(vaultID: target.id)
                    // A seal is bound to its item's id: a copy (a new id) could never be opened.
                    if vault.items[i].sealed != nil { throw VaultError.itemProtected(vault.items[i].title) }
                    var copy = vault.items[i].synced
                    copy.id = Identifier.generateItemID()
                    copy.history = []
                    copy.created = nil
                    copy.vaultID = target.id
                    try vault.add(copy, now: at)
                    done.append(copy.id)
                } else if try vault.move(id: id, to: target.id, first: first) {
                    done.append(id)
                }
            }
            return done
        }
        var reply = CountReply(count: changed.count)
        reply.seenBy = seenBy(target.id)
        return reply
    }

    /// Who can see the items of a shared vault (VLT-7, SHR-6): each member the member list this device verified
    /// last gives access, with that access. Nil for the account's own vaults.
    func seenBy(_ vaultID: String) -> [String]? {
        guard let org = vault.sync?.org(of: vaultID) else { return nil }
        guard let kept = (try? SharingFile.load(dataDirectory))?.lists.first(where: { $0.orgID == org }),
            let head = try? MemberListVersion(decoding: Array(kept.head))
        else { return [] }
        return head.members(of: vaultID).map { "\($0.0.email) (\($0.1.name))" }.sorted()
    }
}
