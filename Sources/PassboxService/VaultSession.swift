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
    /// The search index, kept between searches and brought up to date after each change.
    var searchIndex: SearchIndex?
    /// Exact titles → item positions, made at the first lookup after a change: naming an item by its title
    /// is then one dictionary lookup instead of a pass over every item.
    var titlePositions: [String: [Int]]?
    /// Item ids → positions, made at the first search after a change (a search's hits name ids).
    var idPositions: [String: Int]?
    /// The last listing (its filter and sort, and the positions of its items in order), for its next pages.
    var keptListing: (key: String, positions: [Int])?
    /// The server's view of each vault as last verified (the manifest trees), made at the first sync.
    var syncTrees: [String: ManifestTree]?
    /// The push sent whose answer has not come (its wire bytes), sent again unchanged at the next sync.
    public internal(set) var syncInFlight: [UInt8]?
    /// What that push carried, to record it when a resend is answered (an `AccountSync.Batch`).
    var syncInFlightBatch: Any?
    /// Whether a sync of this session has given every item a vault (later only changed items are looked at).
    var vaultsAssigned = false
    /// When this session last synced (a sync that changed nothing is not written to the file).
    var lastSyncHere: Date?
    /// A hidden item the request names by its exact id (`resolve`): the next change finds it among the
    /// items, and it is hidden again when the change is saved.
    var exposing = Set<String>()
    /// Set while only backup settings are saved: they make no auto-backup of their own.
    var recordingBackupSettings = false
    /// Whether any blob may belong to this vault (its folder had blobs at the start, an account's item refers to
    /// one, or one was added or pulled since): only then does a save look for blobs it no longer refers to.
    var mayHaveBlobs = false
    /// Uploads in parts not finished yet (the web UI's larger files): upload id → the item and the bytes so
    /// far, in memory only; dropped with the session at lock.
    var uploads: [String: (itemID: String, bytes: [UInt8])] = [:]
    /// Fetches an attachment's blob this device lacks (an account's vault: from the server); nil for a local vault.
    public var blobFetcher: ((Attachment) throws -> Void)?

    /// Opens a session on an unlocked vault; items trashed more than 30 days ago are purged now.
    public init(opened: OpenVault, dataDirectory: String, now: @escaping () -> Date = Date.init) throws {
        self.opened = opened
        self.dataDirectory = dataDirectory
        self.now = now
        // An account's device may refer to blobs it never fetched: their removal still goes to the server.
        mayHaveBlobs = !opened.blobs.allIDs().isEmpty || (opened.vault.sync != nil && opened.vault.items.contains { !$0.referencedBlobs.isEmpty })
        let cutoff = now().addingTimeInterval(-Double(Vault.trashRetentionDays) * 86_400)
        if opened.vault.items.contains(where: { ($0.trashedAt.map { $0 < cutoff }) ?? false }) {
            try update { _ = $0.purgeTrash(now: now()) }
        }
    }

    /// The vault as last saved.
    public var vault: Vault { opened.vault }

    /// Builds the search index now rather than at the first search.
    public func prepareSearchIndex() {
        if searchIndex == nil { searchIndex = SearchIndex(vault: vault) }
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
        let blobsBefore = mayHaveBlobs ? Self.referencedBlobs(opened.vault) : []
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

    /// After a save: the lookups are made again when next needed, and the kept search index is brought up to
    /// date for the items named (rebuilt at the next search when none are: nil).
    private func refreshAfterChange(_ ids: [String]?) {
        titlePositions = nil
        idPositions = nil
        keptListing = nil
        guard searchIndex != nil else { return }
        guard let ids else {
            searchIndex = nil
            return
        }
        let items = opened.vault.items
        // A few ids are found from the end (an added item is last); many through a map of every item.
        var positions = [String: Int]()
        if ids.count > 16 { for i in items.indices { positions[items[i].id] = i } }
        for id in ids {
            let i = ids.count > 16 ? positions[id] : items.lastIndex(where: { $0.id == id })
            if let i { searchIndex!.upsert(items[i]) } else { searchIndex!.remove(id: id) }
        }
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
        if titlePositions == nil {
            var positions = [String: [Int]](minimumCapacity: items.count)
            for i in items.indices { positions[items[i].title, default: []].append(i) }
            titlePositions = positions
        }
        let matches = (titlePositions?[title] ?? []).filter { $0 < items.count && items[$0].isTrashed == inTrash && items[$0].title == title }
        return matches.count == 1 ? items[matches[0]] : nil
    }

    /// Changes the vault password: checked as an unlock attempt, then only this slot is rewritten.
    public func changePassword(current: SecretBytes, new: SecretBytes) throws {
        try opened.changePassword(current: current, new: new)
    }

    /// Answers one request that needs the vault.
    public func perform(_ request: Request) throws -> Reply {
        exposing = []
        defer { exposing = [] }
        switch request {
        case .list(let r): return .items(try list(r))
        case .show(let r):
            let item = try resolve(r.item)
            var detail = ItemViews.detail(item, reveal: r.reveal, now: now())
            if !item.attachments.isEmpty { detail.attachments = item.attachments.map(view) }
            return .item(detail)
        case .field(let r): return .value(try fieldValue(r))
        case .search(let r): return .items(try search(r))
        case .add(let r): return .saved(try add(r))
        case .edit(let r): return .saved(try edit(r))
        case .delete(let r): return .saved(try moveToTrash(r.item))
        case .history(let r): return .history(try history(r))
        case .restoreVersion(let r): return .saved(try restoreVersion(r))
        case .trashList(let r): return .items(trashList(r))
        case .trashRestore(let r): return .saved(try restoreFromTrash(r.item))
        case .trashDelete(let r): return .saved(try deleteForever(r.item))
        case .trashEmpty: return .count(try emptyTrash())
        case .code(let r): return .code(try code(r.item))
        case .setOneTimePassword(let r): return .code(try setOneTimePassword(r))
        case .importOneTimePasswords(let r): return .imported(try importOneTimePasswords(r))
        case .check(let r): return .check(try check(r))
        case .breachPrefixes: return .prefixes(try breachPrefixes())
        case .dismiss(let r): return .saved(try dismiss(r))
        case .fixHTTPS(let r): return .count(try fixHTTPS(r))
        case .fill(let r): return try fill(r)
        case .resolve(let r): return .resolved(try resolve(r))
        case .vaultCreate(let r): return .vault(try createVault(r))
        case .vaultEdit(let r): return .vault(try editVault(r))
        case .vaultDelete(let r): return .vaultDeleted(try deleteVault(r))
        case .move(let r): return .count(try move(r))
        case .itemProtect(let r): return .saved(try protect(r))
        case .itemUnprotect(let r): return .saved(try unprotect(r))
        case .itemOpen(let r): return .item(try openProtected(r))
        case .backupView: return .backup(backupView())
        case .backupMake(let r): return .backupMade(try makeBackup(r))
        case .backupAuto(let r): return .backup(try setAutoBackup(r))
        case .backupRestore(let r): return .restored(try restore(r))
        case .importItems(let r): return .importPreview(try importItems(r))
        case .attach(let r): return .attachments(try attach(r))
        case .attachments(let r): return .attachments(try listAttachments(r))
        case .detach(let r): return .attachments(try detach(r))
        case .saveAttachment(let r): return .attachmentSaved(try saveAttachment(r))
        case .backupPassword, .exportItems,
            .status, .unlock, .quickUnlock, .lock, .changePassword, .generate, .strength, .settings, .changeSetting, .copy, .sync, .vaultList, .createVault, .webOpen, .readQR,
            .accountSignUp, .accountSignIn, .accountView, .accountActivity, .deviceSignOut, .twoFactorEnrol, .twoFactorConfirm, .twoFactorDisable, .kitPDF, .kitConfirm, .accountSignOut,
            .duressSet, .duressChange, .eraseSetting, .deleteAllData:
            throw ProtocolError(.badRequest, ["reason": "\(request.operation.rawValue) is not a vault operation"])
        }
    }
}
