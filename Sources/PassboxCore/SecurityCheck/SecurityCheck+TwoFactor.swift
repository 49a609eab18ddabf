import Foundation

extension SecurityCheck {
    /// Logins without a one-time code on a site the 2FA Directory lists (matched by registrable domain); the
    /// first of the login's websites that matches names the site.
    static func findMissingTwoFactor(_ logins: CheckedLogins, directory: TwoFactorDirectory, domains: any DomainAnalyzing, into findings: inout FindingList) {
        var sitesByDomain = [String: TwoFactorDirectory.Site]()
        for site in directory.sites {
            for d in site.domains { if let r = domains.registrableDomain(d) { sitesByDomain[r] = sitesByDomain[r] ?? site } }
        }
        guard !sitesByDomain.isEmpty else { return }
        for (i, fact) in logins.facts.enumerated() where !fact.hasOneTimeCode {
            guard let site = fact.domains.lazy.compactMap({ sitesByDomain[$0] }).first else { continue }
            var details = ["site": site.name]
            if let doc = site.documentation { details["documentation"] = doc }
            findings.add(.missingTwoFactor, login: i, of: logins, details)
        }
    }
}
