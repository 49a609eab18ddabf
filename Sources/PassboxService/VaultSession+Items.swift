import Foundation
import PassboxCore
import PassboxProtocol

extension VaultSession {
    func list(_ r: ListRequest) throws -> ItemListReply {
        var category: Category?
        if let name = r.category {
            guard let c = Category.named(name) else { throw ProtocolError(.unknownCategory, ["name": name]) }
            category = c
        }
        let sort = try r.sort.map { name in
            guard let s = ItemSort(rawValue: name) else { throw ProtocolError(.unknownSort, ["name": name]) }
            return s
        } ?? .az
        // The pages of one listing are asked one after another: the filtered, sorted list is kept until the next
        // change or another listing, so each page does not filter and sort the whole vault again.
        let inVault = try r.vault.map { try resolveVault($0).id }
        let key = "\(category?.rawValue ?? "")\u{0}\(r.tag ?? "")\u{0}\(r.favoritesOnly)\u{0}\(sort.rawValue)\u{0}\(inVault ?? "")\u{0}\(r.withCode == true)\u{0}\(r.withPasskey == true)"
        let all = vault.items
        let positions: [Int]
        if let kept = lookups.keptListing, kept.key == key {
            positions = kept.positions
        } else {
            // Positions, not copies of the items, are listed and kept (valid until the next change clears them).
            var listed = vault.listPositions(category: category, tag: r.tag, favoritesOnly: r.favoritesOnly, sort: sort)
            if let inVault {
                let first = vault.vaults.first?.id
                listed = listed.filter { (all[$0].vaultID ?? first) == inVault }
            }
            if r.withCode == true {
                listed = listed.filter { ItemViews.hasCode(all[$0]) }
            }
            if r.withPasskey == true {
                listed = listed.filter { !all[$0].passkeys.isEmpty }
            }
            lookups.keptListing = (key, listed, nil)
            positions = listed
        }
        var reply = page(count: positions.count, offset: r.offset, limit: r.limit, rows: r.rows == true) { ItemViews.summary(all[positions[$0]], in: vault) }
        if r.rows == true {
            // The table's column widths over the whole listing, measured once and kept with it, sent with every
            // page so the CLI prints each page as it comes.
            let widths = lookups.keptListing?.widths ?? {
                var measured = ItemTableWidths()
                for p in positions {
                    let item = all[p]
                    measured.include(id: item.id, title: ItemViews.cut(item.title), favorite: item.isFavorite, categoryName: item.category.displayName)
                }
                lookups.keptListing?.widths = measured
                return measured
            }()
            reply.widths = widths.columns
        }
        return reply
    }

    /// One page of a listing of `count` items, the k-th made by `summary(k)`: at most `ListRequest.maximumPage`.
    func page(count: Int, offset: Int, limit: Int?, rows: Bool = false, _ summary: (Int) -> ItemSummary) -> ItemListReply {
        let size = min(max(limit ?? ListRequest.maximumPage, 0), ListRequest.maximumPage)
        let start = min(max(offset, 0), count)
        let end = min(start + size, count)
        let vaultIsEmpty = count == 0 && !vault.items.contains { !$0.isTrashed }
        return Self.reply((start..<end).map(summary), total: count, vaultIsEmpty: vaultIsEmpty, rows: rows)
    }

    /// A page as `items`, or as text rows when the request asked for them (`ItemRows`).
    static func reply(_ summaries: [ItemSummary], total: Int, vaultIsEmpty: Bool, rows: Bool) -> ItemListReply {
        guard rows else { return ItemListReply(items: summaries, total: total, vaultIsEmpty: vaultIsEmpty) }
        return ItemListReply(items: [], total: total, vaultIsEmpty: vaultIsEmpty, rows: ItemRows.encode(summaries.map(ItemRow.init)))
    }

    func fieldValue(_ r: FieldRequest) throws -> ValueReply {
        let item = try resolve(r.item)
        try Self.refuseHandingOut(item, field: r.field)
        if ["code", "totp"].contains(r.field.lowercased()) {
            let code = try code(item.id)
            return ValueReply(itemID: item.id, title: item.title, value: code.code ?? "")
        }
        let value: String? =
            switch r.field.lowercased() {
            case "title": item.title
            case "notes": item.notes
            case "website", "url": item.websites.first
            default: item.field(named: r.field)?.value
            }
        guard let value, !value.isEmpty else { throw ProtocolError(.noField, ["title": item.title, "field": r.field, "id": item.id]) }
        return ValueReply(itemID: item.id, title: item.title, value: value)
    }

    func search(_ r: SearchRequest) throws -> ItemListReply {
        let scope = try r.scope.map { name in
            guard let s = SearchScope(rawValue: name) else { throw ProtocolError(.unknownScope, ["name": name]) }
            return s
        } ?? .all
        // A killphrase deletes its item at once, silently, and the answer is a search that matched nothing
        // (G1), even when saving fails. Only this interactive search checks phrases (G2).
        let doomed = vault.killphraseMatches(r.query)
        if !doomed.isEmpty {
            _ = try? update(reindexing: { _ in doomed }) { $0.deleteSilently(ids: Set(doomed)) }
            return ItemListReply(items: [], total: 0, vaultIsEmpty: !vault.items.contains { !$0.isTrashed })
        }
        if lookups.searchIndex == nil { lookups.searchIndex = SearchIndex(vault: vault) }
        let hits = lookups.searchIndex!.search(r.query, scope: scope, limit: max(1, min(r.limit, ListRequest.maximumPage)))
        let tiers = ["title-prefix", "title-word", "title", "field", "near"]
        // Hits name ids: the positions of all ids are kept until the next change (looking each id up alone
        // is a scan per hit; hashing every id per search costs more than the search).
        let items = vault.items
        if lookups.idPositions == nil {
            var positions = [String: Int](minimumCapacity: items.count)
            for i in items.indices { positions[items[i].id] = i }
            lookups.idPositions = positions
        }
        // Hidden items whose passphrase the whole query is come first; nothing else ever shows them (G8).
        var summaries = vault.hiddenMatches(r.query).map { ItemViews.summary($0, match: "passphrase") }
        for hit in hits {
            guard let i = lookups.idPositions?[hit.itemID], i < items.count, items[i].id == hit.itemID else { continue }
            summaries.append(ItemViews.summary(items[i], match: tiers[hit.tier.rawValue], in: vault))
        }
        let vaultIsEmpty = summaries.isEmpty && !items.contains { !$0.isTrashed }
        return ItemListReply(items: summaries, total: summaries.count, vaultIsEmpty: vaultIsEmpty)
    }

    func add(_ r: AddRequest) throws -> SavedReply {
        guard let category = Category.named(r.category) else { throw ProtocolError(.unknownCategory, ["name": r.category]) }
        var item = Item(category: category)
        let weak = try r.changes.apply(to: &item)
        item.vaultID = try r.vault.map { try resolveVault($0).id } ?? vault.vaults.first?.id
        try refusePhrasesOutsideLocalVault(r.changes)
        // A recovery phrase or private key is saved only sealed under its own password (G41, G102); what its
        // check says is told, and it is saved as typed either way (G104).
        let check = Self.keyCheck(item)
        if let password = r.itemPassword {
            try ItemSeal.checkMemory()
            try Self.lockedBytes(password) { try ItemSeal.seal(&item, password: $0) }
        } else if ItemSeal.alwaysProtected.contains(category) {
            throw VaultError.itemPasswordNeeded(category.displayName)
        }
        let saved = try update(reindexing: { [$0.id] }) { vault in
            try Self.applyPhrases(r.changes, to: &item, in: &vault)
            return try vault.add(item, now: now())
        }
        var reply = SavedReply(id: saved.id, title: saved.title, categoryName: saved.category.displayName, weakPassword: weak)
        reply.keyCheck = check?.warningKey
        return reply
    }

    func edit(_ r: EditRequest) throws -> SavedReply {
        let target = try resolve(r.item)
        try Self.refuseContentChange(r.changes, of: target)
        var edited = target
        let weak = try r.changes.apply(to: &edited)
        try refusePhrasesOutsideLocalVault(r.changes)
        let phrases = r.changes.killphrase != nil || r.changes.searchPassphrase != nil
        guard edited != target || phrases else {
            return SavedReply(id: target.id, title: target.title, categoryName: target.category.displayName, changed: false)
        }
        let saved = try update(reindexing: { [$0.id] }) { vault in
            try Self.applyPhrases(r.changes, to: &edited, in: &vault)
            return try vault.update(id: target.id, now: now()) { item in item = edited }
        }
        return SavedReply(id: saved.id, title: saved.title, categoryName: saved.category.displayName, weakPassword: weak)
    }

    func moveToTrash(_ reference: String) throws -> SavedReply {
        let item = try resolve(reference)
        try update(reindexing: { [item.id] }) { try $0.trash(id: item.id, now: now()) }
        return SavedReply(id: item.id, title: item.title, categoryName: item.category.displayName)
    }

    func history(_ r: ShowRequest) throws -> HistoryReply {
        let item = try resolve(r.item)
        let at = now()
        let versions = HistoryDiff.versionChanges(of: item).map { version, changes in
            var detail = ItemViews.detail(version.item, reveal: r.reveal, now: at)
            // The files the version had (restoring it brings them back).
            if !version.item.attachments.isEmpty { detail.attachments = version.item.attachments.map(view) }
            return VersionView(
                id: version.id, replacedAt: version.replacedAt, changes: changes.map { Self.view($0, reveal: r.reveal) }, item: detail)
        }
        let previous = item.previousPasswords.map { PreviousPasswordView(value: r.reveal ? $0.value : "", masked: !r.reveal, replacedAt: $0.replacedAt) }
        return HistoryReply(id: item.id, title: item.title, versions: versions, previousPasswords: previous)
    }

    /// A change as it travels: concealed values only when revealed.
    static func view(_ change: FieldChange, reveal: Bool) -> ChangeView {
        switch change {
        case .title(let from, let to): ChangeView(what: "title", old: from, new: to)
        case .field(let label, let from, let to, let concealed):
            concealed && !reveal ? ChangeView(what: "field", label: label) : ChangeView(what: "field", label: label, old: from ?? "", new: to ?? "")
        case .websites: ChangeView(what: "websites")
        case .notes: ChangeView(what: "notes")
        case .tags: ChangeView(what: "tags")
        case .favorite(let isFavorite): ChangeView(what: isFavorite ? "favorite" : "unfavorite")
        }
    }

    func restoreVersion(_ r: RestoreVersionRequest) throws -> SavedReply {
        let item = try resolve(r.item)
        let restored = try update(reindexing: { [$0.id] }) { try $0.restoreVersion(itemID: item.id, versionID: r.version, now: now()) }
        return SavedReply(id: restored.id, title: restored.title, categoryName: restored.category.displayName, version: r.version)
    }

    func trashList(_ r: ListRequest) -> ItemListReply {
        let trashed = vault.trashedItems
        return page(count: trashed.count, offset: r.offset, limit: r.limit) { ItemViews.summary(trashed[$0], in: vault) }
    }

    func restoreFromTrash(_ reference: String) throws -> SavedReply {
        let item = try resolve(reference, inTrash: true)
        try update(reindexing: { [item.id] }) { try $0.restoreFromTrash(id: item.id) }
        return SavedReply(id: item.id, title: item.title, categoryName: item.category.displayName)
    }

    func deleteForever(_ reference: String) throws -> SavedReply {
        let item = try resolve(reference, inTrash: true)
        try update(reindexing: { [item.id] }) { try $0.deleteForever(id: item.id) }
        return SavedReply(id: item.id, title: item.title, categoryName: item.category.displayName)
    }

    func emptyTrash() throws -> CountReply {
        guard !vault.trashedItems.isEmpty else { return CountReply(count: 0) }
        let trashed = vault.trashedItems.map(\.id)
        return CountReply(count: try update(reindexing: { _ in trashed }) { $0.emptyTrash() })
    }
}

extension VaultSession {
    /// Phrases live in the local vault only: an account's vault syncs its items to other devices and to the
    /// server's history, where a hidden item or a deleted one would not stay hidden or deleted.
    func refusePhrasesOutsideLocalVault(_ changes: ItemChanges) throws {
        if changes.killphrase != nil || changes.searchPassphrase != nil, opened.isAccountVault { throw ProtocolError(.localVaultOnly) }
    }

    /// Digests the phrases a change sets (an empty one takes it off), with the vault's keys.
    static func applyPhrases(_ changes: ItemChanges, to item: inout Item, in vault: inout Vault) throws {
        if let phrase = changes.killphrase {
            item.killphrase = phrase.isEmpty ? nil : try vault.phraseDigest(phrase, kind: .killphrase)
        }
        if let phrase = changes.searchPassphrase {
            item.searchPassphrase = phrase.isEmpty ? nil : try vault.phraseDigest(phrase, kind: .searchPassphrase)
        }
    }
}
