import Foundation

/// The live logins by the registrable domain of each saved website (its host when it has none), so a site's
/// candidates are one lookup and a sort of a few items instead of parsing every website of the vault (the
/// browser asks at every page). Kept by the open vault's session and brought up to date for the items a
/// change names; `candidates` answers exactly as `CredentialMatcher.candidates` does.
public struct SiteIndex: Sendable {
    struct Entry: Sendable {
        let itemID: String
        let host: String
        let website: String
        /// The website's place in its item's list (the first exact or same-domain site wins, as the matcher's).
        let order: Int
    }

    private var byKey: [String: [Entry]] = [:]
    private var keysOfItem: [String: [String]] = [:]

    public init(items: [Item], domains: any DomainAnalyzing) {
        for item in items { add(item, domains: domains) }
    }

    public mutating func upsert(_ item: Item, domains: any DomainAnalyzing) {
        remove(id: item.id)
        add(item, domains: domains)
    }

    public mutating func remove(id: String) {
        for key in keysOfItem.removeValue(forKey: id) ?? [] {
            byKey[key]?.removeAll { $0.itemID == id }
            if byKey[key]?.isEmpty == true { byKey[key] = nil }
        }
    }

    private mutating func add(_ item: Item, domains: any DomainAnalyzing) {
        guard item.category == .login, !item.isTrashed else { return }
        var keys = [String]()
        for (order, site) in item.websites.enumerated() {
            guard let host = CredentialMatcher.requestedHost(site, domains: domains) else { continue }
            let key = domains.registrableDomain(host) ?? host
            byKey[key, default: []].append(Entry(itemID: item.id, host: host, website: site, order: order))
            if !keys.contains(key) { keys.append(key) }
        }
        if !keys.isEmpty { keysOfItem[item.id] = keys }
    }

    /// Logins for the site, exact host first, each group in the list's A–Z order; `item` finds an id's item.
    public func candidates(for text: String, domains: any DomainAnalyzing, item: (String) -> Item?) -> [CredentialMatcher.Candidate] {
        guard let host = CredentialMatcher.requestedHost(text, domains: domains) else { return [] }
        let domain = domains.registrableDomain(host)
        // Without a registrable domain (an address, a bare name) only the exact host matches, as in the matcher.
        let entries = byKey[domain ?? host] ?? []
        var best = [String: CredentialMatcher.Candidate]()
        for entry in entries.sorted(by: { $0.order < $1.order }) {
            let exact = entry.host == host
            guard exact || domain != nil else { continue }
            if let current = best[entry.itemID] {
                // An exact host anywhere in the item wins over an earlier same-domain site.
                if current.match == .sameDomain, exact {
                    best[entry.itemID] = CredentialMatcher.Candidate(itemID: entry.itemID, match: .exactHost, website: entry.website)
                }
                continue
            }
            best[entry.itemID] = CredentialMatcher.Candidate(itemID: entry.itemID, match: exact ? .exactHost : .sameDomain, website: entry.website)
        }
        let found = best.values.compactMap { c in item(c.itemID).map { (c, TextFolding.fold($0.title)) } }
        let sorted = found.sorted { a, b in a.1 == b.1 ? a.0.itemID < b.0.itemID : a.1 < b.1 }.map(\.0)
        return sorted.filter { $0.match == .exactHost } + sorted.filter { $0.match == .sameDomain }
    }
}
