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
        for (i, fact) in logins.facts.enumerated() {
            for d in fact.domains {
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
        var skeletons = [String: String](minimumCapacity: known.count)
        var byDeletion = DeletionIndex()
        for (k, d) in known.enumerated() {
            let skeleton = analyzer.skeleton(analyzer.unicodeHost(d))
            skeletons[d] = skeleton
            bySkeleton[skeleton, default: []].append(d)
            let (name, suffix) = splitName(d)
            guard name.count >= 5, !name.contains("xn--") else { continue }
            for key in deletionKeys(name: name, suffix: suffix) { byDeletion.insert(key, Int32(k)) }
        }
        for (domain, members) in saved.sorted(by: { $0.key < $1.key }) {
            let unicode = analyzer.unicodeHost(domain)
            var twin = bySkeleton[skeletons[domain] ?? analyzer.skeleton(unicode), default: []].first { $0 != domain }
            var reason = "same"
            if twin == nil {
                let (name, suffix) = splitName(domain)
                if name.count >= 5 {
                    twin = deletionKeys(name: name, suffix: suffix).lazy.flatMap { byDeletion.entries(for: $0) }.map { known[Int($0)] }.first { other in
                        let (otherName, otherSuffix) = splitName(other)
                        return other != domain && otherSuffix == suffix && EditDistance.bounded(otherName, name, limit: 1) != nil
                    }
                    reason = "edit"
                }
            }
            guard let twin else { continue }
            let details = ["domain": unicode, "other": analyzer.unicodeHost(twin), "reason": reason]
            for i in members { findings.add(.lookalike, login: i, of: logins, details) }
        }
    }

    /// A registrable domain's first label and the rest ("example", ".co.uk").
    static func splitName(_ domain: String) -> (name: String, suffix: String) {
        guard let dot = domain.firstIndex(of: ".") else { return (domain, "") }
        return (String(domain[..<dot]), String(domain[dot...]))
    }

    /// Hashes (FNV-1a over UTF-8) of the name with the suffix, then of the name with each character deleted in
    /// turn, with the suffix: two names one edit apart share at least one key. ASCII names (almost all) are
    /// hashed without building the strings.
    static func deletionKeys(name: String, suffix: String) -> [UInt64] {
        let offset: UInt64 = 0xcbf2_9ce4_8422_2325, prime: UInt64 = 0x100_0000_01b3
        func fnv<S: Sequence>(_ bytes: S, _ start: UInt64 = offset) -> UInt64 where S.Element == UInt8 {
            bytes.reduce(start) { ($0 ^ UInt64($1)) &* prime }
        }
        let bytes = Array(name.utf8)
        guard bytes.allSatisfy({ $0 < 0x80 }) else {
            let chars = Array(name)
            var keys = [fnv((name + suffix).utf8)]
            for k in chars.indices {
                var c = chars
                c.remove(at: k)
                keys.append(fnv((String(c) + suffix).utf8))
            }
            return keys
        }
        var keys = [fnv(suffix.utf8, fnv(bytes))]
        keys.reserveCapacity(bytes.count + 1)
        for k in bytes.indices {
            keys.append(fnv(suffix.utf8, fnv(bytes[(k + 1)...], fnv(bytes[..<k]))))
        }
        return keys
    }

    /// Known domains by deletion key, each key's domains in the order they were added, in flat arrays.
    struct DeletionIndex {
        private var ends = [UInt64: (first: Int32, last: Int32)]()
        private var owner = [Int32](), next = [Int32]()

        mutating func insert(_ key: UInt64, _ domain: Int32) {
            let entry = Int32(owner.count)
            owner.append(domain)
            next.append(-1)
            if let (first, last) = ends[key] {
                next[Int(last)] = entry
                ends[key] = (first, entry)
            } else {
                ends[key] = (entry, entry)
            }
        }

        func entries(for key: UInt64) -> [Int32] {
            var out = [Int32]()
            var entry = ends[key]?.first ?? -1
            while entry >= 0 {
                out.append(owner[Int(entry)])
                entry = next[Int(entry)]
            }
            return out
        }
    }
}
