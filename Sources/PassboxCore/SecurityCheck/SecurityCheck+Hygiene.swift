import Foundation

extension SecurityCheck {
    /// Per-login checks that need nothing but the login: a password unchanged for a year, no website (with a
    /// host), no username, an http:// address, and a password with its one-time code in the same item.
    static func findHygieneProblems(_ logins: CheckedLogins, now: Date, into findings: inout FindingList) {
        for (i, login) in logins.items.enumerated() {
            let sites = logins.sites[i]
            let password = login.password
            if password != nil, let changed = login.passwordChangedAt, now.timeIntervalSince(changed) > Double(oldPasswordDays) * 86_400 {
                findings.add(.old, login, ["changed": dayString(changed)])
            }
            if sites.isEmpty { findings.add(.noWebsite, login) }
            if login.username == nil { findings.add(.noUsername, login) }
            if let plain = sites.first(where: { isPlainHTTP($0.url) }) {
                findings.add(.unsecuredWebsite, login, ["website": plain.url])
            }
            if password != nil && hasOneTimeCode(login) { findings.add(.bothFactors, login) }
        }
    }

    /// Whether an address uses http:// (any case).
    static func isPlainHTTP(_ url: String) -> Bool { url.lowercased().hasPrefix("http://") }

    /// Whether the item holds a one-time-password secret.
    static func hasOneTimeCode(_ item: Item) -> Bool { item.fields.contains { $0.kind == .otp && !$0.value.isEmpty } }
}
