import Foundation

/// The decrypted contents of one vault: its items and settings. Pure logic, no I/O; every operation takes
/// the current time so tests can pin it.
public struct Vault: Sendable, Equatable {
    public var items: [Item]
    /// A secret cyclic order of the slot file's sixteen slots, kept inside the payload so duress vaults
    /// (a later format addition) know where the next vault goes without touching others.
    public var slotOrder: [Int]
    /// When the vault was made.
    public var created: Date?
    /// When the opt-in breached-password check last ran.
    public var lastBreachCheck: Date?
    /// Keys written by a newer Passbox, kept unchanged.
    public var unknown: [String: PackedValue]
    /// The vaults items are kept in (VLT-1); empty in a file made before vaults existed.
    public var vaults: [VaultInfo] = []
    /// Items with a search passphrase: out of `items`, so no list, search, count or check sees them; a
    /// search whose whole query is an item's passphrase shows it (security.md §7, G8).
    public var hiddenItems: [Item] = []
    /// The keys phrase digests are made under (G7); empty in a vault made before phrases existed.
    public var keyrings = PhraseKeyrings()
    /// The vault's backup password (as its derived key), auto-backup and last backup (G59); nil until a
    /// backup password is set. Kept out of backups themselves (`Vault.forBackup`).
    public var backup: BackupSettings?
    /// An account's sync state (account vaults only).
    public var sync: SyncState? {
        get { syncBox.first }
        set { syncBox = newValue.map { [$0] } ?? [] }
    }
    /// Kept out of line (an array of at most one): the state is large, and a vault is copied and lent often.
    private var syncBox: [SyncState] = []

    /// History keeps at least this many versions…
    public static let historyMinimumCount = 50
    /// …and every version replaced within this many days.
    public static let historyMinimumDays = 365
    /// Trashed items older than this are purged at the next unlock.
    public static let trashRetentionDays = 30

    public init(items: [Item] = [], slotOrder: [Int] = [], created: Date? = nil) {
        self.items = items
        self.slotOrder = slotOrder
        self.created = created?.storedPrecision
        unknown = [:]
    }

    /// Items not in the trash.
    public var activeItems: [Item] { items.filter { !$0.isTrashed } }
    /// Items in the trash, most recently trashed first.
    public var trashedItems: [Item] {
        items.filter(\.isTrashed).sorted { ($0.trashedAt ?? .distantPast) > ($1.trashedAt ?? .distantPast) }
    }

    func index(of id: String) throws -> Int {
        guard let i = items.firstIndex(where: { $0.id == id }) else { throw VaultError.itemNotFound(id) }
        return i
    }

    public func item(id: String) throws -> Item { items[try index(of: id)] }

    /// Refuses a change to an item of a shared vault this account may only view (SHR-5).
    public func requireWritable(vaultID: String?) throws {
        guard let vaultID, let sync, sync.isViewOnly(vaultID) else { return }
        throw VaultError.viewOnly(vaults.first { $0.id == vaultID }?.name ?? vaultID)
    }

    func writableIndex(of id: String) throws -> Int {
        let i = try index(of: id)
        try requireWritable(vaultID: items[i].vaultID)
        return i
    }

    /// Adds a new item after validating it; returns the saved item.
    @discardableResult
    public mutating func add(_ item: Item, now: Date) throws -> Item {
        let now = now.storedPrecision
        try requireWritable(vaultID: item.vaultID)
        var saved = try item.validated()
        // Ids are 128 random bits (`Identifier.generateItemID`), so no duplicate check: the linear one a debug
        // build ran made every bulk add quadratic (12 of a 10,000-item test's 12.5 seconds).
        saved.created = saved.created ?? now
        saved.lastChanged = now
        saved.trashedAt = nil
        saved.syncBase = nil
        saved.syncPending = true
        items.append(saved)
        return saved
    }

    /// Saves a change to an item: the previous version goes into history. A change that alters nothing
    /// writes no version.
    @discardableResult
    public mutating func update(id: String, now: Date, _ change: (inout Item) throws -> Void) throws -> Item {
        let now = now.storedPrecision
        let i = try writableIndex(of: id)
        let before = items[i]
        guard !before.isTrashed else { throw VaultError.itemInTrash(before.title) }
        var edited = before
        try change(&edited)
        edited = try edited.validated()
        edited.id = before.id
        edited.history = before.history
        (edited.vaultID, edited.syncBase, edited.syncPending) = (before.vaultID, before.syncBase, before.syncPending)
        if edited.snapshot == before.snapshot { return before }
        edited.history.append(ItemVersion(replacedAt: now, item: before.snapshot))
        edited.lastChanged = now
        if !before.syncPending, edited.syncBase != nil { edited.syncBase!.ancestor = before.synced }
        edited.syncPending = true
        edited.history = Vault.prunedHistory(edited.history, now: now)
        items[i] = edited
        return edited
    }

    /// Puts `item` in place of the item `id` without keeping a version: sealing an item under its own
    /// password (whose earlier versions held the content in the clear) and taking the password off.
    public mutating func replaceContent(id: String, with item: Item, now: Date) throws {
        let i = try writableIndex(of: id)
        guard !items[i].isTrashed else { throw VaultError.itemInTrash(items[i].title) }
        var replaced = item
        replaced.lastChanged = now.storedPrecision
        replaced.markSyncPending()
        items[i] = replaced
    }

    /// Records use of an item (a copy or reveal) without creating a version.
    public mutating func markUsed(id: String, now: Date) throws {
        let now = now.storedPrecision
        items[try index(of: id)].lastUsed = now
    }

    /// Brings back an earlier version; the replaced one is kept in history.
    @discardableResult
    public mutating func restoreVersion(itemID: String, versionID: String, now: Date) throws -> Item {
        let current = try item(id: itemID)
        guard let version = current.history.first(where: { $0.id == versionID }) else {
            throw VaultError.versionNotFound(versionID)
        }
        return try update(id: itemID, now: now) { item in
            let keep = (item.created, item.lastUsed, item.lastFilled, item.dismissals)
            item = version.item
            (item.created, item.lastUsed, item.lastFilled, item.dismissals) = keep
        }
    }

    /// Moves an item to the trash.
    public mutating func trash(id: String, now: Date) throws {
        let now = now.storedPrecision
        let i = try writableIndex(of: id)
        guard !items[i].isTrashed else { throw VaultError.itemInTrash(items[i].title) }
        items[i].markSyncPending()
        items[i].trashedAt = now
    }

    /// Takes an item out of the trash.
    public mutating func restoreFromTrash(id: String) throws {
        let i = try writableIndex(of: id)
        guard items[i].isTrashed else { throw VaultError.itemNotInTrash(items[i].title) }
        items[i].markSyncPending()
        items[i].trashedAt = nil
    }

    /// Deletes a trashed item for good.
    public mutating func deleteForever(id: String) throws {
        let i = try writableIndex(of: id)
        guard items[i].isTrashed else { throw VaultError.itemNotInTrash(items[i].title) }
        noteRemoval(items[i])
        items.remove(at: i)
    }

    /// Deletes every trashed item; returns how many.
    @discardableResult
    public mutating func emptyTrash() -> Int {
        let before = items.count
        // Items of a shared vault this account may only view stay (their trash is the other members').
        let state = sync
        let gone = { (item: Item) in item.isTrashed && !(state?.isViewOnly(item.vaultID ?? "") ?? false) }
        for item in items where gone(item) { noteRemoval(item) }
        items.removeAll(where: gone)
        // Trashed hidden items go too; they are not counted (no count tells of a hidden item).
        hiddenItems.removeAll(where: \.isTrashed)
        return before - items.count
    }

    /// Deletes items trashed more than 30 days before `now`; returns how many.
    @discardableResult
    public mutating func purgeTrash(now: Date) -> Int {
        let cutoff = now.addingTimeInterval(-Double(Vault.trashRetentionDays) * 86_400)
        let before = items.count
        for item in items where (item.trashedAt.map { $0 < cutoff }) ?? false { noteRemoval(item) }
        items.removeAll { ($0.trashedAt.map { $0 < cutoff }) ?? false }
        hiddenItems.removeAll { ($0.trashedAt.map { $0 < cutoff }) ?? false }
        return before - items.count
    }

    /// Moves an item to another vault; false when it is there already. Within the account's own vaults (or
    /// within one organisation's) the next push moves it in one operation; between them it is written anew
    /// where it goes and deleted where it was, each in its own sync. An item of a vault this account may only
    /// view cannot leave it, nor go into one.
    public mutating func move(id: String, to vaultID: String, first: String?) throws -> Bool {
        let i = try writableIndex(of: id)
        try requireWritable(vaultID: vaultID)
        let from = items[i].vaultID ?? first
        guard from != vaultID else { return false }
        if let sync {
            if from.flatMap({ sync.org(of: $0) }) != sync.org(of: vaultID), items[i].syncBase != nil {
                noteRemoval(items[i])
                items[i].syncBase = nil
                items[i].syncPending = true
            } else {
                items[i].markSyncPending()
            }
        }
        items[i].vaultID = vaultID
        return true
    }

    /// Remembers that an item the server holds was deleted here, so the next push deletes it there.
    mutating func noteRemoval(_ item: Item) {
        guard let base = item.syncBase, sync != nil else { return }
        // An item of a shared vault is deleted in its organisation's vaults.
        if let org = sync!.org(of: base.vaultID) {
            sync!.shared![org]!.removals[item.id] = SyncRemoval(vaultID: base.vaultID, hash: base.hash)
            return
        }
        sync!.removals[item.id] = SyncRemoval(vaultID: base.vaultID, hash: base.hash)
    }

    /// Keeps the newest `historyMinimumCount` versions and every version replaced in the last year.
    public static func prunedHistory(_ history: [ItemVersion], now: Date) -> [ItemVersion] {
        let cutoff = now.addingTimeInterval(-Double(historyMinimumDays) * 86_400)
        let keepFrom = max(0, history.count - historyMinimumCount)
        return history.enumerated().filter { $0.offset >= keepFrom || $0.element.replacedAt >= cutoff }.map(\.element)
    }
}

/// Problems with an item reference or operation, each with what to do.
public enum VaultError: Error, Equatable, Sendable {
    case itemNotFound(String)
    case ambiguous(String, candidates: [String])
    case itemInTrash(String)
    case itemNotInTrash(String)
    /// The item is in a shared vault this account may only view (the vault's name).
    case viewOnly(String)
    case versionNotFound(String)
    /// A killphrase or search passphrase that is empty (after trimming) or longer than `Phrases.maximumLength`.
    case invalidPhrase
    /// Only notes, recovery phrases, private keys and SSH keys take a password of their own.
    case cannotProtect(String)
    case alreadyProtected(String)
    case notProtected(String)
    /// Recovery phrases and private keys always keep their own password.
    case alwaysProtected(String)
    /// The item has its own password: its content changes only after `item unprotect`.
    case itemProtected(String)
    case wrongItemPassword
    case itemPasswordTooShort(Int)
    /// A recovery phrase or private key is saved only with a password of its own.
    case itemPasswordNeeded(String)
    case newerItemSeal(Int)
    case notEnoughMemory(neededMiB: Int, availableMiB: Int)
}

extension Vault {
    /// Dismisses a Security Check finding on an item, or shows it again. Not a content change, so no version.
    public mutating func setDismissed(_ kind: String, _ dismissed: Bool, itemID: String) throws {
        let i = try writableIndex(of: itemID)
        items[i].markSyncPending()
        items[i].dismissals.removeAll { $0 == kind }
        if dismissed { items[i].dismissals.append(kind) }
    }

    /// Records that an item filled a form on this device.
    public mutating func markFilled(id: String, now: Date) throws {
        items[try index(of: id)].lastFilled = now.storedPrecision
    }

    /// Records when this device last signed with a passkey (device-local like `lastUsed`: no version). With
    /// `advance`, its signature counter goes up by one, which syncs (no version either: a counter is no edit).
    public mutating func markPasskeyUsed(id: String, credential: [UInt8], now: Date, advance: Bool = false) throws {
        let i = try index(of: id)
        guard let k = items[i].passkeys.firstIndex(where: { $0.credentialID == credential }) else { return }
        if advance {
            if !items[i].syncPending, items[i].syncBase != nil { items[i].syncBase!.ancestor = items[i].synced }
            items[i].passkeys[k].signCount &+= 1
            items[i].syncPending = true
        }
        items[i].passkeys[k].lastUsed = now.storedPrecision
        items[i].lastUsed = now.storedPrecision
    }
}
