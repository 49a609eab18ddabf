import Foundation

extension SecurityCheck {
    /// One saved website of a login, resolved once for every step.
    struct Site {
        /// The host in ASCII (punycode), lower-cased.
        let host: String
        /// Its registrable domain; nil for an IP address or a bare public suffix.
        let domain: String?
        /// The website as saved.
        let url: String
    }

    /// The logins under check, each with its websites (those with a host) and their distinct registrable
    /// domains, in index-aligned arrays.
    struct CheckedLogins {
        let items: [Item]
        let sites: [[Site]]
        /// Distinct registrable domains of each login, in the order its websites name them.
        let domains: [[String]]

        init(_ logins: [Item], domains analyzer: any DomainAnalyzing) {
            items = logins
            // Public Suffix List lookups are read-only, so they run on both cores; each iteration writes only
            // its own slot, so the unsynchronised buffer is safe.
            nonisolated(unsafe) let resolved = UnsafeMutableBufferPointer<[Site]>.allocate(capacity: max(logins.count, 1))
            resolved.initialize(repeating: [])
            defer { resolved.deinitialize(); resolved.deallocate() }
            DispatchQueue.concurrentPerform(iterations: logins.count) { i in
                resolved[i] = logins[i].websites.compactMap { url in
                    guard let host = Validation.hostQuickly(url) else { return nil }
                    let ascii = analyzer.asciiHost(host) ?? host
                    return Site(host: ascii, domain: analyzer.registrableDomain(ascii), url: url)
                }
            }
            sites = Array(resolved)
            domains = sites.map { sites in
                var distinct = [String]()
                for site in sites { if let d = site.domain, !distinct.contains(d) { distinct.append(d) } }
                return distinct
            }
        }

        /// Each distinct password once.
        var distinctPasswords: [String] { Array(Set(items.compactMap(\.password))) }
    }
}
