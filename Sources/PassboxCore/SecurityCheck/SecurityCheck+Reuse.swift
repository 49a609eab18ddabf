import Foundation

extension SecurityCheck {
    /// Reused passwords (the same password on 2+ logins), then similar ones (see `similarGroups`). Groups are
    /// numbered in one sequence: reused groups by the title of their first login, then similar groups.
    static func findReusedAndSimilar(_ logins: CheckedLogins, into findings: inout FindingList) {
        var byPassword = [String: [Int]]()
        for (i, login) in logins.items.enumerated() {
            if let p = login.password { byPassword[p, default: []].append(i) }
        }
        let reused = byPassword.values.filter { $0.count > 1 }.sorted { a, b in
            let x = logins.items[a[0]].title, y = logins.items[b[0]].title
            return x == y ? a[0] < b[0] : x < y
        }
        var groupNumber = 0
        for group in reused {
            groupNumber += 1
            for i in group { findings.add(.reused, logins.items[i], ["count": String(group.count)], group: groupNumber) }
        }
        for group in similarGroups(Array(byPassword.keys)) {
            groupNumber += 1
            let members = group.flatMap { byPassword[$0] ?? [] }
            for i in members { findings.add(.similar, logins.items[i], ["count": String(members.count)], group: groupNumber) }
        }
    }

    /// Groups of distinct passwords that are similar, each with 2+ members sorted, groups by first member:
    /// the same letters once digits and symbols are removed and case folded (at least 4 letters), or one
    /// edit apart (insert, delete, substitute, swap) for passwords of 6+ characters.
    public static func similarGroups(_ passwords: [String]) -> [[String]] {
        var parent = Array(0..<passwords.count)
        func find(_ x: Int) -> Int {
            var x = x
            while parent[x] != x { parent[x] = parent[parent[x]]; x = parent[x] }
            return x
        }
        func union(_ a: Int, _ b: Int) { parent[find(a)] = find(b) }
        var byLetters = [String: Int]()
        // One edit apart ⇔ the two share a string with one character deleted, or one is the other with one
        // deleted. Deletion variants are keyed by a polynomial hash computed from prefix hashes (no string per
        // variant); candidates are then checked exactly.
        var byDeletion = [UInt64: [Int32]]()
        let base: UInt64 = 1_000_003
        let scalars = passwords.map { Array($0.unicodeScalars).map { UInt64($0.value) } }
        for (i, p) in passwords.enumerated() {
            let letters: String
            if p.utf8.allSatisfy({ $0 < 0x80 }) {
                letters = String(decoding: p.utf8.compactMap { b -> UInt8? in
                    b >= 65 && b <= 90 ? b + 32 : (b >= 97 && b <= 122 ? b : nil)
                }, as: UTF8.self)
            } else {
                letters = String(p.lowercased().filter(\.isLetter))
            }
            if letters.count >= 4 {
                if let j = byLetters[letters] { union(i, j) } else { byLetters[letters] = i }
            }
            let c = scalars[i]
            let n = c.count
            guard n >= 6 else { continue }
            var prefix = [UInt64](repeating: 0, count: n + 1)
            var power = [UInt64](repeating: 1, count: n + 1)
            for k in 0..<n {
                prefix[k + 1] = prefix[k] &* base &+ c[k] &+ 1
                power[k + 1] = power[k] &* base
            }
            func hash(_ from: Int, _ to: Int) -> UInt64 { prefix[to] &- prefix[from] &* power[to - from] }
            // The whole string, tagged by its length, and each deletion (tagged by length − 1).
            byDeletion[hash(0, n) ^ UInt64(n) << 56, default: []].append(Int32(i))
            for k in 0..<n {
                let variant = hash(0, k) &* power[n - k - 1] &+ hash(k + 1, n)
                byDeletion[variant ^ UInt64(n - 1) << 56, default: []].append(Int32(i))
            }
        }
        for (_, members) in byDeletion where members.count > 1 {
            let distinct = Array(Set(members))
            for a in distinct.indices {
                for b in distinct.indices where b > a && find(Int(distinct[a])) != find(Int(distinct[b])) {
                    if EditDistance.bounded(passwords[Int(distinct[a])], passwords[Int(distinct[b])], limit: 1) != nil { union(Int(distinct[a]), Int(distinct[b])) }
                }
            }
        }
        var groups = [Int: [String]]()
        for i in passwords.indices { groups[find(i), default: []].append(passwords[i]) }
        return groups.values.filter { $0.count > 1 }.map { $0.sorted() }.sorted { $0[0] < $1[0] }
    }
}
