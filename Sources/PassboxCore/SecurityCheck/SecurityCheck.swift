import Foundation

/// Computes the Security Check over a vault's logins (trashed items excluded).
///
/// `run` is a pipeline of named steps, each in its own file:
/// 1. collect the logins and resolve their websites once (`SecurityCheck+Logins`);
/// 2. start the strength estimates on both cores (`SecurityCheck+Strength`), collected in step 9;
/// 3. reused and similar passwords (`SecurityCheck+Reuse`);
/// 4. account hygiene: old passwords, missing websites and usernames, http addresses, both factors in one
///    item (`SecurityCheck+Hygiene`);
/// 5. breached passwords and breached websites (`SecurityCheck+Breaches`);
/// 6. missing two-factor codes and sites that take a passkey where the login has none (`SecurityCheck+TwoFactor`);
/// 7. duplicate accounts (`SecurityCheck+Duplicates`);
/// 8. look-alike domains (`SecurityCheck+Lookalikes`);
/// 9. weak passwords (`SecurityCheck+Strength`);
/// 10. expired and expiring cards and documents (`SecurityCheck+Expiry`);
/// 11. the score, tiles and what to fix first (`SecurityCheck+Score`).
public enum SecurityCheck {
    public static let expiryWarningDays = 30
    public static let oldPasswordDays = 365

    public static func run(_ input: SecurityCheckInput) -> SecurityReport {
        let logins = CheckedLogins(input.vault, domains: input.domains)
        let strength = PendingStrength(passwords: logins.passwords, memo: input.strengthMemo)
        var findings = FindingList()
        findReusedAndSimilar(logins, into: &findings)
        findHygieneProblems(logins, now: input.now, into: &findings)
        if input.breachCheckEnabled { findBreachedPasswords(logins, into: &findings) }
        findBreachedWebsites(logins, catalog: input.breaches, domains: input.domains, into: &findings)
        findMissingTwoFactor(logins, directory: input.twoFactor, domains: input.domains, into: &findings)
        findPasskeysAvailable(logins, directory: input.passkeySites, domains: input.domains, into: &findings)
        findDuplicateAccounts(logins, into: &findings)
        findLookalikes(logins, input: input, into: &findings)
        findWeakPasswords(logins, scores: strength.wait(), into: &findings)
        findExpiries(input.vault.items, now: input.now, into: &findings)
        return score(findings.sorted(), logins: logins, lastBreachCheck: input.vault.lastBreachCheck)
    }

    /// "YYYY-MM-DD" in UTC (gmtime_r and hand formatting: a DateFormatter per call cost more than the whole
    /// check, and String(format:) per finding was a tenth of it).
    static func dayString(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let year = Int(parts.tm_year) + 1900, month = Int(parts.tm_mon) + 1, day = Int(parts.tm_mday)
        guard (0...9999).contains(year) else { return String(format: "%04d-%02d-%02d", year, month, day) }
        let digits: [UInt8] = [
            UInt8(48 + year / 1000), UInt8(48 + year / 100 % 10), UInt8(48 + year / 10 % 10), UInt8(48 + year % 10), 45,
            UInt8(48 + month / 10), UInt8(48 + month % 10), 45, UInt8(48 + day / 10), UInt8(48 + day % 10),
        ]
        return String(decoding: digits, as: UTF8.self)
    }
}

/// Findings as the steps add them, each with the login it is on (its index in `CheckedLogins`, or −1 for
/// another item); sorted once at the end.
struct FindingList {
    private var findings: [Finding] = []
    private var owners: [Int32] = []

    /// A finding on the login at `login` in `logins`.
    mutating func add(_ kind: FindingKind, login: Int, of logins: SecurityCheck.CheckedLogins, _ details: [String: String] = [:], group: Int? = nil) {
        add(kind, logins.items[login], details, group: group, owner: Int32(login))
    }

    /// A finding on an item that is not a login.
    mutating func add(_ kind: FindingKind, _ item: Item, _ details: [String: String] = [:], group: Int? = nil, owner: Int32 = -1) {
        findings.append(Finding(kind: kind, itemID: item.id, details: details, isDismissed: item.dismissals.contains(kind.rawValue), group: group))
        owners.append(owner)
    }

    /// In list order: by kind, then item id; findings of one kind on one item keep the order they were added in.
    func sorted() -> (findings: [Finding], owners: [Int32]) {
        // Item ids are ASCII in practice: their first eight bytes, big-endian, order them like the strings do
        // and almost always differ, so few comparisons reach the strings.
        let prefixes = findings.map { f -> UInt64? in
            var key: UInt64 = 0
            var n = 0
            for byte in f.itemID.utf8 {
                guard byte < 0x80 else { return nil }
                if n < 8 { key = key << 8 | UInt64(byte) }
                n += 1
            }
            return n >= 8 ? key : nil
        }
        let order = findings.indices.sorted { a, b in
            let x = findings[a], y = findings[b]
            if x.kind.order != y.kind.order { return x.kind.order < y.kind.order }
            if let p = prefixes[a], let q = prefixes[b], p != q { return p < q }
            if x.itemID != y.itemID { return x.itemID < y.itemID }
            return a < b
        }
        return (order.map { findings[$0] }, order.map { owners[$0] })
    }
}
