import Foundation

extension SecurityCheck {
    /// Reused passwords (the same password on 2+ logins), then similar ones (see `similarGroups`). Groups are
    /// numbered in one sequence: reused groups by the title of their first login, then similar groups.
    static func findReusedAndSimilar(_ logins: CheckedLogins, into findings: inout FindingList) {
        let reused = logins.loginsByPassword.filter { $0.count > 1 }.sorted { a, b in
            let x = logins.items[a[0]].title, y = logins.items[b[0]].title
            return x == y ? a[0] < b[0] : x < y
        }
        var groupNumber = 0
        for group in reused {
            groupNumber += 1
            for i in group { findings.add(.reused, login: i, of: logins, ["count": String(group.count)], group: groupNumber) }
        }
        for group in similarPasswordGroups(logins.passwords) {
            groupNumber += 1
            let members = group.flatMap { logins.loginsByPassword[$0] }
            for i in members { findings.add(.similar, login: i, of: logins, ["count": String(members.count)], group: groupNumber) }
        }
    }

    /// Groups of distinct passwords that are similar, each with 2+ members sorted, groups by first member:
    /// the same letters once digits and symbols are removed and case folded (at least 4 letters), or one
    /// edit apart (insert, delete, substitute, swap) for passwords of 6+ characters.
    public static func similarGroups(_ passwords: [String]) -> [[String]] {
        similarPasswordGroups(passwords).map { $0.map { passwords[$0] } }
    }

    /// `similarGroups` as indices into `passwords`.
    static func similarPasswordGroups(_ passwords: [String]) -> [[Int]] {
        var parent = Array(0..<passwords.count)
        func find(_ x: Int) -> Int {
            var x = x
            while parent[x] != x { parent[x] = parent[parent[x]]; x = parent[x] }
            return x
        }
        func union(_ a: Int, _ b: Int) { parent[find(a)] = find(b) }
        var byLetters = [String: Int](minimumCapacity: passwords.count)
        // One edit apart ⇔ the two share a string with one character deleted, or one is the other with one
        // deleted. Deletion variants are keyed by a polynomial hash computed from prefix hashes (no string per
        // variant); candidates are then checked exactly. The variants of all passwords sit in one table as
        // linked lists (`head` → entry, `next` → entry), and `shared` lists the keys that 2+ entries have.
        var head = [UInt64: Int32](minimumCapacity: passwords.count * 16)
        var owner = [Int32](), next = [Int32](), shared = [UInt64]()
        owner.reserveCapacity(passwords.count * 16)
        next.reserveCapacity(passwords.count * 16)
        func add(_ key: UInt64, _ i: Int) {
            let entry = Int32(owner.count)
            owner.append(Int32(i))
            if let previous = head.updateValue(entry, forKey: key) {
                next.append(previous)
                if next[Int(previous)] < 0 { shared.append(key) }
            } else {
                next.append(-1)
            }
        }
        let base: UInt64 = 1_000_003
        var prefix = [UInt64](), power: [UInt64] = [1]
        for (i, p) in passwords.enumerated() {
            let letters: String
            if p.utf8.allSatisfy({ $0 < 0x80 }) {
                letters = String(decoding: p.utf8.compactMap { b -> UInt8? in
                    b >= 65 && b <= 90 ? b + 32 : (b >= 97 && b <= 122 ? b : nil)
                }, as: UTF8.self)
            } else {
                letters = String(p.lowercased().filter(\.isLetter))
            }
            if letters.utf8.count >= 4 && letters.count >= 4 {
                if let j = byLetters[letters] { union(i, j) } else { byLetters[letters] = i }
            }
            prefix.removeAll(keepingCapacity: true)
            prefix.append(0)
            for scalar in p.unicodeScalars { prefix.append(prefix[prefix.count - 1] &* base &+ UInt64(scalar.value) &+ 1) }
            let n = prefix.count - 1
            guard n >= 6 else { continue }
            while power.count <= n { power.append(power[power.count - 1] &* base) }
            func hash(_ from: Int, _ to: Int) -> UInt64 { prefix[to] &- prefix[from] &* power[to - from] }
            // The whole string, tagged by its length, and each deletion (tagged by length − 1).
            add(hash(0, n) ^ UInt64(n) << 56, i)
            for k in 0..<n { add((hash(0, k) &* power[n - k - 1] &+ hash(k + 1, n)) ^ UInt64(n - 1) << 56, i) }
        }
        for key in shared {
            var members = [Int]()
            var entry = head[key] ?? -1
            while entry >= 0 {
                let i = Int(owner[Int(entry)])
                if !members.contains(i) { members.append(i) }
                entry = next[Int(entry)]
            }
            for a in members.indices {
                for b in members.indices where b > a && find(members[a]) != find(members[b]) {
                    if EditDistance.bounded(passwords[members[a]], passwords[members[b]], limit: 1) != nil { union(members[a], members[b]) }
                }
            }
        }
        var size = [Int](repeating: 0, count: passwords.count)
        for i in passwords.indices { size[find(i)] += 1 }
        var groups = [Int: [Int]]()
        for i in passwords.indices where size[find(i)] > 1 { groups[find(i), default: []].append(i) }
        return groups.values.map { $0.sorted { passwords[$0] < passwords[$1] } }.sorted { passwords[$0[0]] < passwords[$1[0]] }
    }
}
