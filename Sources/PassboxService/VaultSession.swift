import Foundation
import PassboxCore
import PassboxCrypto
import PassboxManifest
import PassboxProtocol
import PassboxStore
import PassboxSync

/// The unlocked vault with typed operations. Every change goes through `update`, the one transaction that
/// validates (in the item model), keeps history (in the item model), saves, and refreshes what the session
/// keeps beside the vault (the search index). Used by one caller at a time: the agent's queue, or the CLI.
public final class VaultSession: @unchecked Sendable {
    // @unchecked: used from one thread at a time (the agent's serial queue, or the CLI's main thread).
    let opened: OpenVault
    let dataDirectory: String
    let now: () -> Date
    /// The lookups and the search index (rebuilt when needed after each change).
    var lookups = SessionLookups()
    /// Strength scores kept between Security Checks while unlocked (see `StrengthMemo`).
    public let strengthMemo = StrengthMemo()
    /// What syncs carry from one run to the next.
    var syncState = SessionSyncState()
    /// A random mark drawn anew at every save tried (every client's, and what sync brings), so that a client can
    /// tell that the vault may have changed since it last looked. 52 bits, so
    /// that a JavaScript number holds it exactly; random, so that it counts nothing.
    public private(set) var changeMark = UInt64.random(in: 1..<(1 << 52))
    /// The push sent whose answer has not come, sent again unchanged at the next sync.
    public internal(set) var syncInFlight: [UInt8]? {
        get { syncState.inFlight }
        set { syncState.inFlight = newValue }
    }
    /// A hidden item the request names by its exact id (`resolve`): the next change finds it among the
    /// items, and it is hidden again when the change is saved.
    var exposing = Set<String>()
    /// Saves that may wait until the answer is on its way (a browser fill's "last filled"): the agent runs them
    /// on its queue right after the request (`takeDeferred`), so the click does not wait for a save.
    public internal(set) var deferred = [() -> Void]()

    /// The deferred saves, handed over once.
    public func takeDeferred() -> [() -> Void] {
        defer { deferred = [] }
        return deferred
    }
    /// Set while only backup settings are saved: they make no auto-backup of their own.
    var recordingBackupSettings = false
    /// The attachments' bookkeeping.
    var blobState = SessionBlobState()
    /// Fetches an attachment's blob this device lacks (an account's vault: from the server); nil for a local vault.
    public var blobFetcher: ((Attachment) throws -> Void)?

    /// Opens a session on an unlocked vault; items trashed more than 30 days ago are purged now.
    public init(opened: OpenVault, dataDirectory: String, now: @escaping () -> Date = Date.init) throws {
        self.opened = opened
        self.dataDirectory = dataDirectory
        self.now = now
        // An account's device may refer to blobs it never fetched: their removal still goes to the server.
        blobState.mayHaveBlobs = !opened.blobs.allIDs().isEmpty || (opened.vault.sync != nil && opened.vault.items.contains { !$0.referencedBlobs.isEmpty })
        let cutoff = now().addingTimeInterval(-Double(Vault.trashRetentionDays) * 86_400)
        if opened.vault.items.contains(where: { ($0.trashedAt.map { $0 < cutoff }) ?? false }) {
            try update { _ = $0.purgeTrash(now: now()) }
        }
    }

    /// The vault as last saved.
    public var vault: Vault { opened.vault }

    /// Builds the search index now rather than at the first search.
    public func prepareSearchIndex() {
        if lookups.searchIndex == nil { lookups.searchIndex = SearchIndex(vault: vault) }
    }

    /// The one way a change reaches the disk: `change` edits a copy; when it returns, the copy is saved
    /// and becomes the session's vault. A throw leaves both the file and the session as they were. The kept
    /// search index is brought up to date for the items `reindexing` names from the result, or rebuilt at the
    /// next search when it names none (nil). The same ids tell the save which items changed, so it
    /// re-compresses only their groups: an operation must name every item it changes, or nil. An empty list
    /// is taken as unknown too (every group re-compressed), so naming none can never lose a change.
    @discardableResult
    public func update<T>(reindexing: (T) -> [String]? = { _ in nil }, _ change: (inout Vault) throws -> T) throws -> T {
        var changed: [String]?
        let result = try commit(change) { result in
            changed = reindexing(result)
            return changed.flatMap { $0.isEmpty ? nil : Set($0) }
        }
        refreshAfterChange(changed)
        autoBackupAfterChange()
        return result
    }

    /// A change that names exactly the items it changes (an empty set: none, only vault-level state such as the
    /// sync state), as sync makes them: only their groups are compressed again.
    func updateNaming<T>(_ changed: Set<String>, _ change: (inout Vault) throws -> T) throws -> T {
        // Sync saves its own bookkeeping this way many times a run: an auto-backup only when what a backup
        // holds changed (vault creation, pulled items), compared only while auto-backup is on.
        let before = vault.backup?.folder == nil || recordingBackupSettings ? nil : BackupFile.portable(vault)
        let result = try commit(change) { _ in changed }
        refreshAfterChange(Array(changed))
        if let before, BackupFile.portable(vault) != before { autoBackupAfterChange() }
        return result
    }

    /// Runs `change` on the vault (in place when it can be lent, else on a copy) and saves it, telling the save
    /// which items changed (`naming`, from the result; nil: unknown). A throw leaves the file and the session
    /// as they were.
    private func commit<T>(_ change: (inout Vault) throws -> T, naming: (T) -> Set<String>?) throws -> T {
        defer { changeMark = UInt64.random(in: 1..<(1 << 52)) }
        let blobsBefore = blobState.mayHaveBlobs ? Self.referencedBlobs(opened.vault) : []
        guard !blobsBefore.isEmpty else { return try commitChange(change, naming: naming) }
        var gone = Set<String>()
        let result = try commitChange({ v in
            let r = try change(&v)
            gone = blobsBefore.subtracting(Self.referencedBlobs(v))
            // Auto-backups made until now still refer to them: their copies beside the backups wait for the retention.
            if !gone.isEmpty, v.backup?.folder != nil {
                let at = now().storedPrecision
                for id in gone { v.backup!.retiredBlobs[id] = at }
            }
            return r
        }, naming: naming)
        removeBlobs(gone)
        return result
    }

    private func commitChange<T>(_ change: (inout Vault) throws -> T, naming: (T) -> Set<String>?) throws -> T {

        if var working = opened.takeVaultForChange() {
            // The vault is changed in place (no copy of every item); a failure puts back the saved one.
            do {
                for id in exposing { working.exposeHiddenItem(id: id) }
                let result = try change(&working)
                working.settleHiddenItems()
                try opened.save(working, changedItemIDs: naming(result))
                return result
            } catch {
                opened.restoreAfterFailedChange()
                throw error
            }
        }
        var copy = opened.vault
        for id in exposing { copy.exposeHiddenItem(id: id) }
        let result = try change(&copy)
        copy.settleHiddenItems()
        try opened.save(copy, changedItemIDs: naming(result))
        return result
    }

    /// After a save: the lookups are refreshed for the items named.
    private func refreshAfterChange(_ ids: [String]?) {
        lookups.refresh(after: ids, items: opened.vault.items)
    }

    /// Whether an earlier failed change could not be undone in memory (the file is intact): the session must
    /// be dropped and the vault unlocked again.
    public var isUnusable: Bool { opened.isUnusable }

    /// The item a user's reference names (id, id prefix or title). A reference that names no item on its side
    /// of the trash but exactly one on the other side is answered `itemInTrash` / `itemNotInTrash`, so the user
    /// learns where the item is rather than that it does not exist.
    func resolve(_ reference: String, inTrash: Bool = false) throws -> Item {
        // A reference that cannot be an id or id prefix (it has a space, a capital or a symbol) and is exactly
        // one item's title on this side of the trash names that item, as `Vault.resolve` would decide.
        if !Self.couldBeAnID(reference), let item = exactTitle(reference, inTrash: inTrash) { return item }
        do {
            return try opened.vault.resolve(reference, inTrash: inTrash)
        } catch VaultError.itemNotFound(let name) {
            // A hidden item answers only to its id or a prefix of at least 8 characters (40 random bits: not
            // to be found by trying prefixes), which only a search for its passphrase shows.
            let wanted = reference.lowercased()
            let candidates = wanted.count >= 8 ? opened.vault.hiddenItems.filter { $0.id.hasPrefix(wanted) && $0.isTrashed == inTrash } : []
            if candidates.count == 1, let hidden = candidates.first {
                exposing.insert(hidden.id)
                return hidden
            }
            guard let other = try? opened.vault.resolve(reference, inTrash: !inTrash) else { throw VaultError.itemNotFound(name) }
            throw ProtocolError(inTrash ? .itemNotInTrash : .itemInTrash, ["title": other.title, "id": other.id])
        }
    }

    static func couldBeAnID(_ reference: String) -> Bool {
        reference.lowercased().utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7a) }
    }

    func exactTitle(_ title: String, inTrash: Bool) -> Item? {
        let items = opened.vault.items
        if lookups.titlePositions == nil {
            var positions = [String: [Int]](minimumCapacity: items.count)
            for i in items.indices { positions[items[i].title, default: []].append(i) }
            lookups.titlePositions = positions
        }
        let matches = (lookups.titlePositions?[title] ?? []).filter { $0 < items.count && items[$0].isTrashed == inTrash && items[$0].title == title }
        return matches.count == 1 ? items[matches[0]] : nil
    }

    /// Changes the vault password: checked as an unlock attempt, then only this slot is rewritten.
    public func changePassword(current: SecretBytes, new: SecretBytes) throws {
        try opened.changePassword(current: current, new: new)
    }

    /// Answers one request that needs the vault (the service answers through `operations` the same way).
    public func perform(_ request: Request) throws -> Reply {
        exposing = []
        defer { exposing = [] }
        guard let reply = try Self.operations.answer(self, request) else {
            throw ProtocolError(.badRequest, ["reason": "\(request.operation.rawValue) is not a vault operation"])
        }
        return reply
    }

    func show(_ r: ShowRequest) throws -> ItemDetail {
        let item = try resolve(r.item)
        var detail = ItemViews.detail(item, reveal: r.reveal, now: now(), in: vault, strength: true)
        if !item.attachments.isEmpty { detail.attachments = item.attachments.map(view) }
        if let vaultID = item.vaultID { detail.seenBy = seenBy(vaultID) }
        return detail
    }

    /// The open vault's operations, one handler each.
    static let operations: OperationTable<VaultSession> = {
        var t = OperationTable<VaultSession>()
        t.on(Operations.list) { s, r in try s.list(r) }
        t.on(Operations.show) { s, r in try s.show(r) }
        t.on(Operations.field) { s, r in try s.fieldValue(r) }
        t.on(Operations.search) { s, r in try s.search(r) }
        t.on(Operations.add) { s, r in try s.add(r) }
        t.on(Operations.edit) { s, r in try s.edit(r) }
        t.on(Operations.delete) { s, r in try s.moveToTrash(r.item) }
        t.on(Operations.history) { s, r in try s.history(r) }
        t.on(Operations.restoreVersion) { s, r in try s.restoreVersion(r) }
        t.on(Operations.trashList) { s, r in s.trashList(r) }
        t.on(Operations.trashRestore) { s, r in try s.restoreFromTrash(r.item) }
        t.on(Operations.trashDelete) { s, r in try s.deleteForever(r.item) }
        t.on(Operations.trashEmpty) { s, _ in try s.emptyTrash() }
        t.on(Operations.code) { s, r in try s.code(r.item) }
        t.on(Operations.setOneTimePassword) { s, r in try s.setOneTimePassword(r) }
        t.on(Operations.importOneTimePasswords) { s, r in try s.importOneTimePasswords(r) }
        t.on(Operations.check) { s, r in try s.check(r) }
        t.on(Operations.breachPrefixes) { s, _ in try s.breachPrefixes() }
        t.on(Operations.breachRanges) { s, r in try VaultSession.breachRanges(r, dataDirectory: s.dataDirectory, keeping: s.breachHashes()) }
        t.on(Operations.dismiss) { s, r in try s.dismiss(r) }
        t.on(Operations.fixHTTPS) { s, r in try s.fixHTTPS(r) }
        t.on(Operations.fill) { s, r in try s.fill(r) }
        t.on(Operations.resolve) { s, r in try s.resolve(r) }
        t.on(Operations.vaultCreate) { s, r in try s.createVault(r) }
        t.on(Operations.vaultEdit) { s, r in try s.editVault(r) }
        t.on(Operations.vaultDelete) { s, r in try s.deleteVault(r) }
        t.on(Operations.move) { s, r in try s.move(r) }
        t.on(Operations.itemProtect) { s, r in try s.protect(r) }
        t.on(Operations.itemUnprotect) { s, r in try s.unprotect(r) }
        t.on(Operations.itemOpen) { s, r in try s.openProtected(r) }
        t.on(Operations.backupView) { s, _ in s.backupView() }
        t.on(Operations.backupMake) { s, r in try s.makeBackup(r) }
        t.on(Operations.backupAuto) { s, r in try s.setAutoBackup(r) }
        t.on(Operations.backupRestore) { s, r in try s.restore(r) }
        t.on(Operations.importItems) { s, r in try s.importItems(r) }
        t.on(Operations.attach) { s, r in try s.attach(r) }
        t.on(Operations.attachments) { s, r in try s.listAttachments(r) }
        t.on(Operations.detach) { s, r in try s.detach(r) }
        t.on(Operations.saveAttachment) { s, r in try s.saveAttachment(r) }
        t.on(Operations.browserCandidates) { s, r in try s.browserCandidates(r) }
        t.on(Operations.browserFill) { s, r in try s.browserFill(r) }
        t.on(Operations.browserSearch) { s, r in try s.browserSearch(r) }
        t.on(Operations.browserOffer) { s, r in try s.browserOffer(r) }
        t.on(Operations.browserSave) { s, r in try s.browserSave(r) }
        t.on(Operations.browserPasskeys) { s, r in try s.browserPasskeys(r) }
        t.on(Operations.browserPasskeySign) { s, r in try s.browserPasskeySign(r) }
        t.on(Operations.browserPasskeyCreate) { s, r in try s.browserPasskeyCreate(r) }
        return t
    }()
}
