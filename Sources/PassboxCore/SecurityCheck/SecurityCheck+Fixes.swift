import Foundation

/// What recording a breached-password check changed.
public struct BreachMarkSummary: Sendable, Equatable {
    /// Logins whose password was marked.
    public let checkedLogins: Int
    /// Logins whose password was found in breaches.
    public let breachedLogins: Int
    /// Distinct passwords found in breaches.
    public let breachedPasswords: Int

    public init(checkedLogins: Int, breachedLogins: Int, breachedPasswords: Int) {
        self.checkedLogins = checkedLogins
        self.breachedLogins = breachedLogins
        self.breachedPasswords = breachedPasswords
    }
}

extension SecurityCheck {
    /// The distinct passwords of the active logins: what the breached-password check looks up.
    public static func passwordsToCheck(in vault: Vault) -> [String] {
        var seen = Set<String>()
        return vault.items.compactMap { item in
            guard item.category == .login, !item.isTrashed, let p = item.password, seen.insert(p).inserted else { return nil }
            return p
        }
    }

    /// Records a breached-password check: every active login with a password gets a mark with the count found
    /// for it (`occurrences`, by password; 0 when absent) and the password's fingerprint, and the vault
    /// remembers when the check ran. Marks are not content changes, so no history version is written.
    @discardableResult
    public static func applyBreachMarks(_ occurrences: [String: Int], to vault: inout Vault, now: Date) -> BreachMarkSummary {
        let checkedAt = now.storedPrecision
        var checked = 0, breached = 0
        var breachedPasswords = Set<String>()
        for i in vault.items.indices where vault.items[i].category == .login && !vault.items[i].isTrashed {
            guard let p = vault.items[i].password else { continue }
            let count = occurrences[p] ?? 0
            // (An item of a shared vault this account may only view keeps its mark here; it is never pushed.)
            if !(vault.sync?.isViewOnly(vault.items[i].vaultID ?? "") ?? false) { vault.items[i].markSyncPending() }
            vault.items[i].passwordBreach = PasswordBreachMark(checkedAt: checkedAt, occurrences: count, fingerprint: fingerprint(p))
            checked += 1
            if count > 0 {
                breached += 1
                breachedPasswords.insert(p)
            }
        }
        vault.lastBreachCheck = checkedAt
        return BreachMarkSummary(checkedLogins: checked, breachedLogins: breached, breachedPasswords: breachedPasswords.count)
    }

    /// The websites with every http:// address (any case) switched to https://, the rest of each address kept.
    public static func httpsWebsites(_ websites: [String]) -> [String] {
        websites.map { isPlainHTTP($0) ? "https://" + $0.dropFirst(7) : $0 }
    }

    /// Switches the http:// addresses of the given items (all active items when `itemIDs` is nil) to https://,
    /// each as a saved change with its previous version in history. Returns the ids of the items changed, in
    /// vault order; items without an http:// address are left alone. An unknown or trashed id throws before anything changes.
    @discardableResult
    public static func fixHTTPS(itemIDs: [String]? = nil, in vault: inout Vault, now: Date) throws -> [String] {
        let wanted = itemIDs.map(Set.init)
        for id in itemIDs ?? [] {
            let item = try vault.item(id: id)
            guard !item.isTrashed else { throw VaultError.itemInTrash(item.title) }
        }
        var changed = [String]()
        for item in vault.items where !item.isTrashed && (wanted?.contains(item.id) ?? true) && item.websites.contains(where: isPlainHTTP) {
            try vault.update(id: item.id, now: now) { $0.websites = httpsWebsites($0.websites) }
            changed.append(item.id)
        }
        return changed
    }
}
