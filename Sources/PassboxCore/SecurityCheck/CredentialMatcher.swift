import Foundation

/// Which logins fit a site: the exact host first, then the same registrable domain (eTLD+1 from the full
/// Public Suffix List), never across registrable domains (`example.co.uk` and `other.co.uk` never match).
public enum CredentialMatcher {
    public struct Candidate: Sendable, Equatable {
        public enum Match: String, Sendable { case exactHost = "exact-host", sameDomain = "same-domain" }
        public let itemID: String
        public let match: Match
        /// The saved website that matched.
        public let website: String
    }

    /// The host of what the user is filling (a URL or a bare host), in ASCII.
    public static func requestedHost(_ text: String, domains: any DomainAnalyzing) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let withScheme = trimmed.contains("://") ? trimmed : "https://" + trimmed
        guard let host = URLComponents(string: withScheme)?.host, !host.isEmpty else { return nil }
        return domains.asciiHost(host)
    }

    /// Logins for the site, exact host first; trashed items are never candidates.
    public static func candidates(for text: String, in vault: Vault, domains: any DomainAnalyzing) -> [Candidate] {
        guard let host = requestedHost(text, domains: domains) else { return [] }
        let domain = domains.registrableDomain(host)
        var exact = [Candidate](), same = [Candidate]()
        for item in vault.list(sort: .az) where item.category == .login {
            var best: Candidate?
            for site in item.websites {
                guard let savedHost = requestedHost(site, domains: domains) else { continue }
                if savedHost == host {
                    best = Candidate(itemID: item.id, match: .exactHost, website: site)
                    break
                }
                if best == nil, let domain, domains.registrableDomain(savedHost) == domain {
                    best = Candidate(itemID: item.id, match: .sameDomain, website: site)
                }
            }
            if let best { best.match == .exactHost ? exact.append(best) : same.append(best) }
        }
        return exact + same
    }

    /// Whether an item is saved for the site (same registrable domain), for the fill warning.
    public static func fits(_ item: Item, _ text: String, domains: any DomainAnalyzing) -> Bool {
        candidates(for: text, in: Vault(items: [item]), domains: domains).isEmpty == false
    }
}
