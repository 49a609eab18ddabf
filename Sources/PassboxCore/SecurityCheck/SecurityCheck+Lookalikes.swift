import Foundation

extension SecurityCheck {
    /// Saved domains that look like another saved or well-known domain (from the 2FA Directory and the breach
    /// catalogue): equal confusable skeletons (homoglyphs, punycode), reason "same"; or, failing that, one edit
    /// apart in a name of 5+ letters with the same public suffix, reason "edit". Every login saved for such a
    /// domain gets one finding per domain. Of several twins, the first known is named: saved domains in login
    /// order, then the directory's, then the catalogue's.
    static func findLookalikes(_ logins: CheckedLogins, input: SecurityCheckInput, into findings: inout FindingList) {
        let analyzer = input.domains
        var saved = [String: [Int]]()  // registrable domain → logins
        var known = [String]()
        var isKnown = Set<String>()
        for (i, domains) in logins.domains.enumerated() {
            for d in domains {
                saved[d, default: []].append(i)
                if isKnown.insert(d).inserted { known.append(d) }
            }
        }
        for site in input.twoFactor.sites {
            for d in site.domains { if let r = analyzer.registrableDomain(d), isKnown.insert(r).inserted { known.append(r) } }
        }
        for b in input.breaches.breaches {
            if let r = analyzer.registrableDomain(b.domain), isKnown.insert(r).inserted { known.append(r) }
        }
        var bySkeleton = [String: [String]]()
        var byDeletion = [String: [String]]()
        var skeletons = [String: String](minimumCapacity: known.count)
        for d in known {
            let skeleton = analyzer.skeleton(analyzer.unicodeHost(d))
            skeletons[d] = skeleton
            bySkeleton[skeleton, default: []].append(d)
            let (name, suffix) = splitName(d)
            guard name.count >= 5, !name.contains("xn--") else { continue }
            for key in deletionKeys(name: name, suffix: suffix) { byDeletion[key, default: []].append(d) }
        }
        for (domain, members) in saved.sorted(by: { $0.key < $1.key }) {
            let unicode = analyzer.unicodeHost(domain)
            var twin = bySkeleton[skeletons[domain] ?? analyzer.skeleton(unicode), default: []].first { $0 != domain }
            var reason = "same"
            if twin == nil {
                let (name, suffix) = splitName(domain)
                if name.count >= 5 {
                    twin = deletionKeys(name: name, suffix: suffix).lazy.flatMap { byDeletion[$0] ?? [] }.first { other in
                        other != domain && EditDistance.bounded(splitName(other).name, name, limit: 1) != nil
                    }
                    reason = "edit"
                }
            }
            guard let twin else { continue }
            var reported = Set<Int>()
            for i in members where reported.insert(i).inserted {
                findings.add(.lookalike, logins.items[i], ["domain": unicode, "other": analyzer.unicodeHost(twin), "reason": reason])
            }
        }
    }

    /// A registrable domain's first label and the rest ("example", ".co.uk").
    static func splitName(_ domain: String) -> (name: String, suffix: String) {
        guard let dot = domain.firstIndex(of: ".") else { return (domain, "") }
        return (String(domain[..<dot]), String(domain[dot...]))
    }

    /// The name with the suffix, then the name with each character deleted in turn, with the suffix: two names
    /// one edit apart share at least one key.
    static func deletionKeys(name: String, suffix: String) -> [String] {
        let chars = Array(name)
        var keys = [name + suffix]
        for k in chars.indices {
            var c = chars
            c.remove(at: k)
            keys.append(String(c) + suffix)
        }
        return keys
    }
}
