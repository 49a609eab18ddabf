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
/// 6. missing two-factor codes (`SecurityCheck+TwoFactor`);
/// 7. duplicate accounts (`SecurityCheck+Duplicates`);
/// 8. look-alike domains (`SecurityCheck+Lookalikes`);
/// 9. weak passwords (`SecurityCheck+Strength`);
/// 10. expired and expiring cards and documents (`SecurityCheck+Expiry`);
/// 11. the score, tiles and what to fix first (`SecurityCheck+Score`).
public enum SecurityCheck {
    public static let expiryWarningDays = 30
    public static let oldPasswordDays = 365

    public static func run(_ input: SecurityCheckInput) -> SecurityReport {
        let items = input.vault.items.filter { !$0.isTrashed }
        let logins = CheckedLogins(items.filter { $0.category == .login }, domains: input.domains)
        let strength = PendingStrength(passwords: logins.distinctPasswords)
        var findings = FindingList()
        findReusedAndSimilar(logins, into: &findings)
        findHygieneProblems(logins, now: input.now, into: &findings)
        if input.breachCheckEnabled { findBreachedPasswords(logins, into: &findings) }
        findBreachedWebsites(logins, catalog: input.breaches, domains: input.domains, into: &findings)
        findMissingTwoFactor(logins, directory: input.twoFactor, domains: input.domains, into: &findings)
        findDuplicateAccounts(logins, into: &findings)
        findLookalikes(logins, input: input, into: &findings)
        findWeakPasswords(logins, scores: strength.wait(), into: &findings)
        findExpiries(items, now: input.now, into: &findings)
        return score(findings.sorted(), logins: logins.items, lastBreachCheck: input.vault.lastBreachCheck)
    }

    /// "YYYY-MM-DD" in UTC (gmtime_r: a DateFormatter per call cost more than the whole check).
    static func dayString(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
    }
}

/// Findings as the steps add them; sorted once at the end.
struct FindingList {
    private var findings: [Finding] = []

    mutating func add(_ kind: FindingKind, _ item: Item, _ details: [String: String] = [:], group: Int? = nil) {
        findings.append(Finding(kind: kind, itemID: item.id, details: details, isDismissed: item.dismissals.contains(kind.rawValue), group: group))
    }

    /// In list order: by kind, then item id; findings of one kind on one item keep the order they were added in.
    func sorted() -> [Finding] {
        findings.indices.sorted { a, b in
            let x = findings[a], y = findings[b]
            if x.kind.order != y.kind.order { return x.kind.order < y.kind.order }
            if x.itemID != y.itemID { return x.itemID < y.itemID }
            return a < b
        }.map { findings[$0] }
    }
}
