import Foundation
import PassboxCore
import PassboxCrypto

/// Passbox items as a KeePass database (docs/FORMATS.md "KeePass files"): a group per Passbox vault, each
/// item an entry with Title, UserName, Password, URL (further websites as KeePassXC's `KP2A_URL…`), Notes,
/// its one-time password as KeePassXC's `otp`, every other field under its label (concealed ones
/// protected), tags, times and history; the category in the entry's custom data, so importing the file
/// back gives the same kinds of items.
public enum KeePassExport {
    public struct Result: Sendable {
        public var database: KeePassDatabase
        public var entries: Int
        /// Reason code → how many items were left out ("sealed", "trashed").
        public var leftOut: [String: Int]
    }

    /// The most attachment bytes one export carries (a KeePass file holds them all, and is read whole).
    public static let attachmentBudget = 192 << 20

    /// `items` are the vault's visible items (never its hidden ones); `vaults` name the groups. `file` gives
    /// an attachment's bytes (nil: not on this device); attachments go into the file's pool until
    /// `attachmentBudget`, and are counted as left out past it or when missing.
    public static func database(items: [Item], vaults: [VaultInfo], name: String) -> Result {
        database(items: items, vaults: vaults, name: name, file: { _ in nil })
    }

    public static func database(
        items: [Item], vaults: [VaultInfo], name: String, attachmentBudget: Int = attachmentBudget, file: (Attachment) throws -> [UInt8]?
    ) rethrows -> Result {
        var leftOut: [String: Int] = [:]
        var binaries: [[UInt8]] = []
        var budget = attachmentBudget
        var groups: [String: KeePassGroup] = [:]
        let firstVault = vaults.first?.id ?? ""
        var count = 0
        // One file in the pool per blob (per item): a version in history that keeps the item's file refers to the same one.
        func add(_ attachments: [Attachment], to target: inout KeePassEntry, pooled: inout [String: Int], counted: Bool) throws {
            for a in attachments {
                if let reference = pooled[a.id] {
                    target.attachments.append(.init(name: a.name, reference: reference))
                    continue
                }
                guard a.size <= budget, let bytes = try file(a) else {
                    if counted { leftOut[a.size > budget ? "attachmentTooLarge" : "attachmentMissing", default: 0] += 1 }
                    continue
                }
                budget -= bytes.count
                pooled[a.id] = binaries.count
                target.attachments.append(.init(name: a.name, reference: binaries.count))
                binaries.append(bytes)
            }
        }
        var made: [(vaultID: String, entry: KeePassEntry, item: Item, pooled: [String: Int])] = []
        for item in items {
            if item.isTrashed {
                leftOut["trashed", default: 0] += 1
                continue
            }
            if item.sealed != nil {
                // Its content is sealed under its own password, which the export cannot open.
                leftOut["sealed", default: 0] += 1
                continue
            }
            var entry = entry(for: item)
            // KeePassXC keeps one passkey per entry: the item's first goes.
            if item.passkeys.count > 1 { leftOut["passkey", default: 0] += item.passkeys.count - 1 }
            var pooled: [String: Int] = [:]
            try add(item.attachments, to: &entry, pooled: &pooled, counted: true)
            made.append((item.vaultID ?? firstVault, entry, item, pooled))
            count += 1
        }
        // Then the versions in history, with the room the items' own files left: an earlier version's files
        // never crowd out a later item's current ones (left out silently: the items' own are counted).
        for (vaultID, var entry, item, var pooled) in made {
            for version in item.history {
                var old = self.entry(for: version.item)
                old.uuid = entry.uuid
                try add(version.item.attachments, to: &old, pooled: &pooled, counted: false)
                entry.history.append(old)
            }
            let vaultName = vaults.first { $0.id == vaultID }?.name ?? name
            groups[vaultID, default: KeePassGroup(name: vaultName)].entries.append(entry)
        }
        // The groups in the order of the vaults.
        let ordered = vaults.map(\.id).compactMap { groups[$0] } + groups.filter { id, _ in !vaults.contains { $0.id == id } }.map(\.value)
        let root: KeePassGroup
        if ordered.count == 1 {
            root = ordered[0]
        } else {
            root = KeePassGroup(name: name, groups: ordered)
        }
        return Result(database: KeePassDatabase(name: name, root: root, binaries: binaries), entries: count, leftOut: leftOut)
    }

    static func entry(for item: Item) -> KeePassEntry {
        var e = KeePassEntry(uuid: uuid(item.id), tags: item.tags, created: item.created, modified: item.lastChanged ?? item.created)
        var used: Set<String> = KeePassEntry.standardKeys
        func add(_ key: String, _ value: String, protected: Bool) {
            var name = key.isEmpty ? "Field" : key
            var n = 2
            while used.contains(name) || name == "otp" || name.hasPrefix("KP2A_URL") {
                name = "\(key) (\(n))"
                n += 1
            }
            used.insert(name)
            e.strings.append(.init(key: name, value: value, isProtected: protected))
        }
        e.strings.append(.init(key: "Title", value: item.title, isProtected: false))
        e.strings.append(.init(key: "UserName", value: item.value(of: "username") ?? "", isProtected: false))
        e.strings.append(.init(key: "Password", value: item.value(of: "password") ?? "", isProtected: true))
        e.strings.append(.init(key: "URL", value: item.websites.first ?? "", isProtected: false))
        e.strings.append(.init(key: "Notes", value: item.notes, isProtected: false))
        for (n, site) in item.websites.dropFirst().enumerated() {
            e.strings.append(.init(key: n == 0 ? "KP2A_URL" : "KP2A_URL_\(n)", value: site, isProtected: false))
        }
        if let passkey = item.passkeys.first {
            e.strings += KeePassPasskey.strings(passkey)
            used.formUnion(KeePassPasskey.keys)
        }
        var wroteOTP = false
        for field in item.fields where !field.value.isEmpty {
            if field.key == "username" || field.key == "password" { continue }
            if field.kind == .otp, !wroteOTP, let link = otpLink(field.value, item: item) {
                e.strings.append(.init(key: "otp", value: link, isProtected: true))
                wroteOTP = true
                continue
            }
            add(field.label, field.value, protected: field.kind.isConcealed)
        }
        if case .map(let kept)? = item.unknown[KeePassImport.customDataKey] {
            for (key, value) in kept { if case .string(let text) = value { e.customData[key] = text } }
        }
        e.customData[KeePassImport.categoryKey] = item.category.rawValue
        return e
    }

    /// KeePassXC reads `otp` as an otpauth link: a bare setup key becomes one.
    static func otpLink(_ value: String, item: Item) -> String? {
        guard var p = try? OTPInput.parse(value, issuer: item.title) else { return nil }
        if value.lowercased().hasPrefix("otpauth:") { return value }
        if p.account.isEmpty { p.account = item.username ?? "" }
        return p.uri
    }

    /// The entry's UUID: the first 16 bytes of the SHA-256 of the item's id, so exporting twice gives the
    /// same entries (and history versions the same UUID as their entry).
    static func uuid(_ id: String) -> UUID {
        let b = Hash.sha256(Array("passbox/kdbx-entry/".utf8) + Array(id.utf8))
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
}
