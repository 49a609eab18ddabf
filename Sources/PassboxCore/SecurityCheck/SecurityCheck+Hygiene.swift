import Foundation

extension SecurityCheck {
    /// Per-login checks that need nothing but the login: a password unchanged for a year, no website (with a
    /// host), no username, an http:// address, and a password with its one-time code in the same item.
    static func findHygieneProblems(_ logins: CheckedLogins, now: Date, into findings: inout FindingList) {
        for (i, fact) in logins.facts.enumerated() {
            if let changed = fact.passwordChangedAt, now.timeIntervalSince(changed) > Double(oldPasswordDays) * 86_400 {
                findings.add(.old, login: i, of: logins, ["changed": dayString(changed)])
            }
            if fact.sites.isEmpty { findings.add(.noWebsite, login: i, of: logins) }
            if fact.username == nil { findings.add(.noUsername, login: i, of: logins) }
            if let plain = fact.sites.first(where: { isPlainHTTP($0.url) }) {
                findings.add(.unsecuredWebsite, login: i, of: logins, ["website": plain.url])
            }
            if fact.password != nil && fact.hasOneTimeCode { findings.add(.bothFactors, login: i, of: logins) }
        }
    }

    /// Whether an address starts with http:// (any case).
    static func isPlainHTTP(_ url: String) -> Bool {
        var scheme = "http://".utf8.makeIterator()
        for byte in url.utf8 {
            guard let expected = scheme.next() else { return true }
            if byte != expected && !(byte >= 65 && byte <= 90 && byte + 32 == expected) { return false }
        }
        return scheme.next() == nil
    }
}
