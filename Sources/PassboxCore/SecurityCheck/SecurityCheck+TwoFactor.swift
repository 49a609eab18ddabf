import Foundation

extension SecurityCheck {
    /// Logins without a one-time code on a site the 2FA Directory lists (matched by registrable domain); the
    /// first of the login's websites that matches names the site.
    static func findMissingTwoFactor(_ logins: CheckedLogins, directory: TwoFactorDirectory, domains: any DomainAnalyzing, into findings: inout FindingList) {
        let index = siteIndex(directory.sites.map(\.domains), domains: domains)
        guard !index.isEmpty else { return }
        for (i, fact) in logins.facts.enumerated() where !fact.hasOneTimeCode {
            guard let site = fact.domains.lazy.compactMap({ index[$0] }).first.map({ directory.sites[$0] }) else { continue }
            var details = ["site": site.name]
            if let doc = site.documentation { details["documentation"] = doc }
            findings.add(.missingTwoFactor, login: i, of: logins, details)
        }
    }
}

extension SecurityCheck {
    /// Logins without a passkey on a site the Passkeys Directory lists (matched by registrable domain): informational,
    /// as a password the other checks find sound is not a weakness; the site's name, whether it takes a passkey
    /// instead of the password (`use` "signIn") or as a second step ("secondFactor"), and its documentation.
    static func findPasskeysAvailable(_ logins: CheckedLogins, directory: PasskeyDirectory, domains: any DomainAnalyzing, into findings: inout FindingList) {
        let index = siteIndex(directory.sites.map(\.domains), domains: domains)
        guard !index.isEmpty else { return }
        for (i, fact) in logins.facts.enumerated() where !fact.hasPasskey {
            guard let site = fact.domains.lazy.compactMap({ index[$0] }).first.map({ directory.sites[$0] }) else { continue }
            var details = ["site": site.name, "use": site.signIn ? "signIn" : "secondFactor"]
            if let doc = site.documentation { details["documentation"] = doc }
            findings.add(.passkeyAvailable, login: i, of: logins, details)
        }
    }
}

extension SecurityCheck {
    /// A directory's sites by registrable domain: each domain to the first site (its position) that lists it.
    static func siteIndex(_ domainLists: [[String]], domains: any DomainAnalyzing) -> [String: Int] {
        var index = [String: Int]()
        for (i, list) in domainLists.enumerated() {
            for d in list { if let r = domains.registrableDomain(d), index[r] == nil { index[r] = i } }
        }
        return index
    }
}
