import Foundation
import PassboxCore
import PassboxCrypto
import PassboxProtocol

/// Items with a password of their own (security.md §7; G41, G42, G68, G102–G104): sealing, opening for
/// one look, and taking the password off. The item password never reaches the disk, and the derivation
/// (256 MiB) is checked against the memory there is first.
extension VaultSession {
    func protect(_ r: ProtectItemRequest) throws -> SavedReply {
        let item = try resolve(r.item)
        // An attachment's key would stay readable beside the sealed fields: such items are not sealed.
        guard item.attachments.isEmpty else { throw ProtocolError(.attachmentOnLockedItem, ["title": item.title]) }
        try ItemSeal.checkMemory()
        var sealed = item
        try Self.lockedBytes(r.password) { try ItemSeal.seal(&sealed, password: $0) }
        try update(reindexing: { [item.id] }) { try $0.replaceContent(id: item.id, with: sealed, now: now()) }
        return SavedReply(id: item.id, title: item.title, categoryName: item.category.displayName)
    }

    func unprotect(_ r: ProtectItemRequest) throws -> SavedReply {
        let item = try resolve(r.item)
        guard item.sealed != nil else { throw VaultError.notProtected(item.title) }
        guard !ItemSeal.alwaysProtected.contains(item.category) else { throw VaultError.alwaysProtected(item.category.displayName) }
        try ItemSeal.checkMemory(for: item.sealed!.kdf)
        let opened = try Self.lockedBytes(r.password) { try ItemSeal.open(item, password: $0) }
        try update(reindexing: { [item.id] }) { try $0.replaceContent(id: item.id, with: opened, now: now()) }
        return SavedReply(id: item.id, title: item.title, categoryName: item.category.displayName)
    }

    /// The item's content, revealed, for this one answer: nothing is saved and nothing is kept.
    func openProtected(_ r: ProtectItemRequest) throws -> ItemDetail {
        let item = try resolve(r.item)
        guard let seal = item.sealed else { throw VaultError.notProtected(item.title) }
        try ItemSeal.checkMemory(for: seal.kdf)
        let opened = try Self.lockedBytes(r.password) { try ItemSeal.open(item, password: $0) }
        var detail = ItemViews.detail(opened, reveal: true, now: now())
        detail.summary.locked = true
        return detail
    }

    /// A typed item password as the NFC UTF-8 bytes it is derived from, in locked memory for the call.
    static func lockedBytes<T>(_ password: SecretText, _ body: (SecretBytes) throws -> T) throws -> T {
        try body(password.withUnsafeBytes { SecretBytes(copying: $0) })
    }

    /// What a new recovery phrase's or private key's check says (before any sealing).
    static func keyCheck(_ item: Item) -> KeyCheck? {
        switch item.category {
        case .recoveryPhrase: item.value(of: "phrase").map(RecoveryPhraseCheck.check)
        case .privateKey: item.value(of: "private-key").map(PrivateKeyCheck.check)
        default: nil
        }
    }

    /// A recovery phrase is never handed out for a script or the clipboard (G41), and a sealed item's values
    /// are not there to hand out: only its title and websites.
    static func refuseHandingOut(_ item: Item, field: String) throws {
        guard !["title", "website", "url"].contains(field.lowercased()) else { return }
        if item.category == .recoveryPhrase { throw ProtocolError(.neverCopied, ["title": item.title]) }
        if item.sealed != nil { throw VaultError.itemProtected(item.title) }
    }

    /// Edits of a sealed item may change what stays readable (title, websites, tags, favourite), never the
    /// sealed content.
    static func refuseContentChange(_ changes: ItemChanges, of item: Item) throws {
        guard item.sealed != nil else { return }
        if changes.username != nil || !changes.fieldsFromCommandLine.isEmpty || !changes.secretFields.isEmpty || !changes.removeFields.isEmpty
            || changes.notes.map({ !$0.isEmpty }) ?? false || changes.generatePassword != nil || !(changes.customOrder ?? []).isEmpty
        {
            throw VaultError.itemProtected(item.title)
        }
    }
}
