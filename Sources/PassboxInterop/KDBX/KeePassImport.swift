import Foundation
import PassboxCore
import PassboxCrypto

/// KeePass entries as Passbox items (docs/FORMATS.md "KeePass files"): Title, UserName, Password, URL and
/// Notes to their places, further URLs (KeePassXC's `KP2A_URL…`) as websites, one-time-password settings
/// (KeePassXC's `otp`, KeePass's `TimeOtp-…` and the older `TOTP Seed`) as the item's one-time password, other
/// fields as custom fields (protected ones concealed), groups as tags or vaults, history as history, the
/// recycle bin as the trash. What Passbox cannot hold is counted in the plan.
public enum KeePassImport {
    /// The entry field that names the Passbox category an export came from (a round trip keeps it).
    public static let categoryKey = "Passbox.Category"
    /// Where an entry's other custom data (KeePassXC's and plugins' own) is kept on the item, unread, so an
    /// export writes it back.
    public static let customDataKey = "x-kdbx-custom-data"

    public static func plan(_ database: KeePassDatabase, groupsAsVaults: Bool, now: Date) -> ImportPlan {
        var plan = ImportPlan()
        func walk(_ group: KeePassGroup, path: [String], inTrash: Bool, topName: String?) {
            let trash = inTrash || (database.recycleBin != nil && group.uuid == database.recycleBin)
            for entry in group.entries {
                guard var item = item(from: entry, plan: &plan) else { continue }
                if !trash, !groupsAsVaults, !path.isEmpty { item.tags.append(path.joined(separator: "/")) }
                if groupsAsVaults, path.count > 1 { item.tags.append(path.dropFirst().joined(separator: "/")) }
                // Trashed now, so it stays its 30 days in the trash (an older date would purge it at the next unlock).
                if trash { item.trashedAt = now.storedPrecision }
                let (versions, sources) = history(of: entry, current: item, plan: &plan, now: now)
                item.history = versions
                // The entry's attachments come as files, and its versions' too (one file of the pool is one blob).
                func files(_ of: KeePassEntry) -> [ImportPlan.File] {
                    of.attachments.compactMap { a in
                        database.binaries.indices.contains(a.reference) ? ImportPlan.File(name: a.name, bytes: database.binaries[a.reference], reference: a.reference) : nil
                    }
                }
                var versionFiles: [Int: [ImportPlan.File]] = [:]
                for (i, source) in sources.enumerated() where !source.attachments.isEmpty { versionFiles[i] = files(source) }
                plan.entries.append(.init(item: item, vaultName: groupsAsVaults && !trash ? topName : nil, files: files(entry), versionFiles: versionFiles))
            }
            for child in group.groups {
                let isTrash = database.recycleBin != nil && child.uuid == database.recycleBin
                walk(child, path: isTrash ? path : path + [child.name], inTrash: trash || isTrash, topName: topName ?? child.name)
            }
        }
        walk(database.root, path: [], inTrash: false, topName: nil)
        return plan
    }

    /// The entry's history as versions, and the entry each version came from (for its attachments).
    static func history(of entry: KeePassEntry, current: Item, plan: inout ImportPlan, now: Date) -> ([ItemVersion], [KeePassEntry]) {
        var versions: [ItemVersion] = []
        var sources: [KeePassEntry] = []
        for (i, old) in entry.history.enumerated() {
            var discarded = ImportPlan()
            guard var snapshot = item(from: old, plan: &discarded) else { continue }
            snapshot.id = current.id
            // A version was replaced when the next one was made.
            let replaced = (i + 1 < entry.history.count ? entry.history[i + 1].modified : entry.modified) ?? old.modified ?? now
            versions.append(ItemVersion(replacedAt: replaced.storedPrecision, item: snapshot))
            sources.append(old)
        }
        return (versions, sources)
    }

    /// One entry as an item, or nil (counted) when it cannot be one.
    static func item(from entry: KeePassEntry, plan: inout ImportPlan) -> Item? {
        var category = Category(rawValue: entry.customData[categoryKey] ?? "")
        if category == .recoveryPhrase || category == .privateKey {
            // Saved only sealed under an item password of their own, which an import cannot ask per item.
            plan.skip(category == .recoveryPhrase ? "recoveryPhrase" : "privateKey")
            return nil
        }
        let otp = oneTimePassword(entry)
        if !category.isKnown {
            let hasLogin = !entry["UserName"].isEmpty || !entry["Password"].isEmpty || !entry["URL"].isEmpty || otp != nil
            category = hasLogin ? .login : .secureNote
        }
        var item = Item(category: category, title: entry["Title"], notes: entry["Notes"], tags: entry.tags)
        let custom = entry.customData.filter { $0.key != categoryKey }
        if !custom.isEmpty { item.unknown[customDataKey] = .map(custom.mapValues { .string($0) }) }
        item.created = entry.created?.storedPrecision
        item.lastChanged = entry.modified?.storedPrecision
        for site in [entry["URL"]] + urlKeys(entry).map({ entry[$0] }) { item.addWebsite(site) }
        place(entry["UserName"], key: "username", label: "UserName", concealed: false, in: &item)
        place(entry["Password"], key: "password", label: "Password", concealed: true, in: &item)
        if let otp { place(otp, key: "otp", label: "otp", concealed: true, in: &item) }
        var consumed = KeePassEntry.standardKeys.union(urlKeys(entry)).union(otpKeys(entry))
        if let passkey = KeePassPasskey.read(entry, created: entry.created?.storedPrecision ?? Date(timeIntervalSince1970: 0)) {
            item.passkeys = [passkey]
            consumed.formUnion(KeePassPasskey.keys)
            if item.websites.isEmpty { item.addWebsite("https://" + passkey.relyingParty) }
        }
        for s in entry.strings where !consumed.contains(s.key) {
            // A field an export wrote from a category's template goes back to it (by label).
            if let template = category.fieldTemplates.first(where: { $0.label == s.key }), item.field(named: template.key)?.value.isEmpty ?? true {
                item.setValue(s.value, for: template.key)
                continue
            }
            let kind: FieldKind = s.isProtected ? (s.value.contains("\n") ? .multilineHidden : .hidden) : (s.value.contains("\n") ? .multiline : .text)
            item.fields.append(Field(label: uniqueLabel(s.key, in: item), kind: kind, value: s.value))
        }
        if let expires = entry.expires {
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.timeZone = TimeZone(identifier: "UTC")
            f.dateFormat = "yyyy-MM-dd"
            let value = f.string(from: expires)
            if category.fieldTemplates.contains(where: { $0.key == "expiry" && $0.kind == .date }) {
                item.setValue(value, for: "expiry")
            } else if !category.fieldTemplates.contains(where: { $0.key == "expiry" }) {
                // Keyed "expiry" so Security Check tells when it is near or past, as for a card or a passport.
                item.fields.append(Field(key: "expiry", label: uniqueLabel("Expires", in: item), kind: .date, value: value))
            }
        }
        if item.isBlank {
            plan.skip("emptyEntry")
            return nil
        }
        return item
    }

    /// Sets a template field (the category has it) or adds a custom one.
    static func place(_ value: String, key: String, label: String, concealed: Bool, in item: inout Item) {
        guard !value.isEmpty else { return }
        if item.category.fieldTemplates.contains(where: { $0.key == key }) {
            item.setValue(value, for: key)
        } else {
            item.fields.append(Field(label: uniqueLabel(label, in: item), kind: concealed ? .hidden : .text, value: value))
        }
    }

    static func uniqueLabel(_ label: String, in item: Item) -> String {
        let base = label.isEmpty ? "Field" : label
        var candidate = base
        var n = 2
        while item.fields.contains(where: { $0.label.caseInsensitiveCompare(candidate) == .orderedSame }) {
            candidate = "\(base) (\(n))"
            n += 1
        }
        return candidate
    }

    /// KeePassXC's further URLs: `KP2A_URL`, `KP2A_URL_1`, … (in that order).
    static func urlKeys(_ entry: KeePassEntry) -> [String] {
        entry.strings.map(\.key).filter { $0 == "KP2A_URL" || $0.hasPrefix("KP2A_URL_") }.sorted { a, b in
            (Int(a.dropFirst("KP2A_URL_".count)) ?? -1) < (Int(b.dropFirst("KP2A_URL_".count)) ?? -1)
        }
    }

    static let keePassOTPKeys: Set<String> = ["TimeOtp-Secret-Base32", "TimeOtp-Secret", "TimeOtp-Secret-Hex", "TimeOtp-Period", "TimeOtp-Length", "TimeOtp-Algorithm"]

    static func otpKeys(_ entry: KeePassEntry) -> Set<String> {
        guard oneTimePassword(entry) != nil else { return [] }
        return keePassOTPKeys.union(["otp", "TOTP Seed", "TOTP Settings"])
    }

    /// The entry's one-time-password setup as an otpauth link or a base32 key, if it has one that reads.
    static func oneTimePassword(_ entry: KeePassEntry) -> String? {
        let otp = entry["otp"].trimmingWhitespace()
        if !otp.isEmpty, (try? OTPInput.parse(otp)) != nil { return otp }
        var secret = entry["TimeOtp-Secret-Base32"].filter { !$0.isWhitespace }
        var period = entry["TimeOtp-Period"], digits = entry["TimeOtp-Length"]
        var algorithm = entry["TimeOtp-Algorithm"].replacingOccurrences(of: "HMAC-", with: "").replacingOccurrences(of: "-", with: "")
        if secret.isEmpty {
            // KeePassXC 2.5's older form: "TOTP Seed" and "TOTP Settings" ("30;6", "30;S" for Steam).
            secret = entry["TOTP Seed"].filter { !$0.isWhitespace }
            let settings = entry["TOTP Settings"].split(separator: ";").map(String.init)
            if settings.count >= 2 {
                period = settings[0]
                digits = settings[1] == "S" ? "" : settings[1]
            }
            algorithm = ""
        }
        guard !secret.isEmpty else { return nil }
        if secret.lowercased().hasPrefix("otpauth:") { return (try? OTPInput.parse(secret)) != nil ? secret : nil }
        guard let key = try? Base32.decode(secret) else { return nil }
        var p = OTPParameters(secret: key, issuer: entry["Title"])
        if let period = UInt64(period), period > 0 { p.period = period }
        if let digits = Int(digits), digits > 0 { p.digits = digits }
        if let algorithm = HMAC.Algorithm(rawValue: algorithm.uppercased()) { p.algorithm = algorithm }
        return (try? p.validate()) != nil ? p.uri : nil
    }
}
