import Foundation
import PassboxCrypto

extension SecurityCheck {
    /// Logins whose current password the breached-password check found in Pwned Passwords. A mark made for an
    /// earlier password (another fingerprint) does not count.
    static func findBreachedPasswords(_ logins: CheckedLogins, into findings: inout FindingList) {
        for login in logins.items {
            guard let password = login.password, let mark = login.passwordBreach, mark.occurrences > 0, mark.fingerprint == fingerprint(password) else { continue }
            findings.add(.breachedPassword, login, ["occurrences": String(mark.occurrences)])
        }
    }

    /// Logins with a password on a site whose breach was published after the password was set (or when that
    /// date is unknown); the most recently published breach is reported.
    static func findBreachedWebsites(_ logins: CheckedLogins, catalog: BreachCatalog, domains: any DomainAnalyzing, into findings: inout FindingList) {
        var breachesByDomain = [String: [Breach]]()
        for breach in catalog.breaches {
            if let r = domains.registrableDomain(breach.domain) { breachesByDomain[r, default: []].append(breach) }
        }
        guard !breachesByDomain.isEmpty else { return }
        for (i, login) in logins.items.enumerated() where login.password != nil {
            let changed = login.passwordChangedAt
            let relevant = logins.domains[i].flatMap { breachesByDomain[$0] ?? [] }.filter { changed == nil || $0.addedDate > changed! }
            guard let breach = relevant.max(by: { $0.addedDate < $1.addedDate }) else { continue }
            findings.add(.breachedWebsite, login, [
                "breach": breach.title, "published": dayString(breach.addedDate), "breachDate": breach.breachDate.map(dayString) ?? "",
                "dataClasses": breach.dataClasses.joined(separator: ", "), "accounts": String(breach.pwnCount),
                "passwordDate": changed.map(dayString) ?? "unknown",
            ])
        }
    }

    /// The password's fingerprint as stored in a breach mark: first 8 bytes of SHA-256, hex.
    public static func fingerprint(_ password: String) -> String {
        Hash.sha256(Array(password.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
    }
}
