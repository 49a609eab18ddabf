import Foundation
import PassboxCrypto

extension SecurityCheck {
    /// Logins whose current password the breached-password check found in Pwned Passwords. A mark made for an
    /// earlier password (another fingerprint) does not count.
    static func findBreachedPasswords(_ logins: CheckedLogins, into findings: inout FindingList) {
        for (i, login) in logins.items.enumerated() {
            guard let password = logins.facts[i].password, let mark = login.passwordBreach, mark.occurrences > 0, mark.fingerprint == fingerprint(password) else { continue }
            findings.add(.breachedPassword, login: i, of: logins, ["occurrences": String(mark.occurrences)])
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
        for (i, fact) in logins.facts.enumerated() where fact.password != nil {
            let changed = fact.passwordChangedAt
            var newest: Breach?
            for domain in fact.domains {
                // The first of equally new breaches, in the order of the login's domains and the catalogue.
                for breach in breachesByDomain[domain] ?? [] where changed == nil || breach.addedDate > changed! {
                    if newest == nil || newest!.addedDate < breach.addedDate { newest = breach }
                }
            }
            guard let breach = newest else { continue }
            findings.add(.breachedWebsite, login: i, of: logins, [
                "breach": breach.title, "published": dayString(breach.addedDate), "breachDate": breach.breachDate.map(dayString) ?? "",
                "dataClasses": breach.dataClasses.joined(separator: ", "), "accounts": String(breach.pwnCount),
                "passwordDate": changed.map(dayString) ?? "unknown",
            ])
        }
    }

    /// The password's fingerprint as stored in a breach mark: first 8 bytes of SHA-256, hex.
    public static func fingerprint(_ password: String) -> String {
        let hex = Array("0123456789abcdef".utf8)
        return String(decoding: Hash.sha256(Array(password.utf8)).prefix(8).flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 15)]] }, as: UTF8.self)
    }
}
