import Foundation

extension SearchIndex {
    /// Ranked hits for `query`; an empty query gives the most recently used items.
    public func search(_ query: String, scope: SearchScope = .all, limit: Int = 50) -> [SearchHit] {
        let folded = TextFolding.fold(query.trimmingCharacters(in: .whitespacesAndNewlines))
        if folded.isEmpty { return mostRecent(limit: limit) }
        let q = Array(folded.utf8)
        // Per slot: tier × 4 + edits, or 255 for no match.
        var grade = [UInt8](repeating: 255, count: ids.count)
        exactGrades(q, scope: scope, into: &grade)
        // Near matches, word by word: every word of the query must occur in the entry or be within its
        // allowance of one of the entry's words; the edits add up.
        let queryWords = folded.split(whereSeparator: \.isWhitespace).map { Array($0.utf8) }
        if queryWords.contains(where: { EditDistance.allowance(forQueryLength: String(decoding: $0, as: UTF8.self).count) > 0 }) {
            var total = [UInt8](repeating: 0, count: ids.count)
            var alive = isLive
            for word in queryWords {
                // Slots with the word as it is; for a one-word query those are the exact hits already found.
                var exact: [UInt8]
                if queryWords.count == 1 && word == q {
                    exact = grade
                } else {
                    exact = [UInt8](repeating: 255, count: ids.count)
                    exactGrades(word, scope: scope, into: &exact, only: alive)
                }
                var needed = alive
                for i in needed.indices where exact[i] != 255 { needed[i] = false }
                let near = nearMatches(word, scope: scope, needed: needed)
                for i in 0..<ids.count where alive[i] && exact[i] == 255 {
                    if near[i] != 255 { total[i] = total[i] &+ near[i] } else { alive[i] = false }
                }
            }
            for i in 0..<ids.count where alive[i] && grade[i] == 255 {
                grade[i] = UInt8(SearchHit.Tier.nearMatch.rawValue * 4) + min(total[i], 3)
            }
        }
        // Grades are small integers: bucket the slots by grade in title order instead of sorting.
        var buckets = [[Int32]](repeating: [], count: 20)
        for i in titleOrder where grade[Int(i)] != 255 && buckets[Int(grade[Int(i)])].count < limit {
            buckets[Int(grade[Int(i)])].append(i)
        }
        var hits = [SearchHit]()
        for (g, bucket) in buckets.enumerated() {
            for i in bucket {
                guard hits.count < limit else { return hits }
                hits.append(SearchHit(itemID: ids[Int(i)], tier: SearchHit.Tier(rawValue: g / 4)!, edits: g % 4))
            }
        }
        return hits
    }

    /// The `limit` most recently used or changed items, ties in title order, without sorting every item.
    func mostRecent(limit: Int) -> [SearchHit] {
        guard limit > 0 else { return [] }
        var first = [Int32]()
        for slot in titleOrder where first.count < limit || recency[Int(slot)] > recency[Int(first[first.count - 1])] {
            let date = recency[Int(slot)]
            first.insert(slot, at: first.firstIndex { date > recency[Int($0)] } ?? first.count)
            if first.count > limit { first.removeLast() }
        }
        return first.map { SearchHit(itemID: ids[Int($0)], tier: .titlePrefix, edits: 0) }
    }

    /// Sets `grade[i]` to the exact tier × 4 of every slot (among `only`, when given) that contains `q`.
    func exactGrades(_ q: [UInt8], scope: SearchScope, into grade: inout [UInt8], only: [Bool]? = nil) {
        let queryMask = SearchIndex.mask(q)
        let masks = scope == .name ? titleMasks : allMasks
        text.withUnsafeBufferPointer { t in
            q.withUnsafeBufferPointer { needle in
                for i in 0..<ids.count where queryMask & ~masks[i] == 0 && only?[i] ?? true {
                    if let tier = exactTier(i, t, needle, scope) { grade[i] = UInt8(tier.rawValue * 4) }
                }
            }
        }
    }

    /// For each slot that is `needed`, the fewest edits from `word` to one of its words within the word's
    /// allowance, or 255.
    func nearMatches(_ word: [UInt8], scope: SearchScope, needed: [Bool]) -> [UInt8] {
        var found = [UInt8](repeating: 255, count: ids.count)
        let allowance = EditDistance.allowance(forQueryLength: String(decoding: word, as: UTF8.self).count)
        guard allowance > 0 else { return found }
        var matcher = EditDistance.Matcher(query: word, limit: allowance)
        let queryMask = SearchIndex.mask(word)
        tokenText.withUnsafeBufferPointer { tokens in
            for (t, range) in tokenRanges.enumerated() {
                let length = Int(range.count)
                guard length + allowance >= word.count else { continue }
                // Each distinct query byte the word lacks needs an edit: a lower bound that skips most words.
                let tokenMask = tokenMasks[t]
                guard (queryMask & ~tokenMask).nonzeroBitCount <= allowance else { continue }
                let owners = tokenOwners[t]
                guard owners.contains(where: { needed[Int($0.slot)] && (scope == .all || scope == $0.scope) }) else { continue }
                let token = UnsafeBufferPointer(rebasing: tokens[Int(range.lowerBound)..<Int(range.upperBound)])
                var edits: Int?
                if (tokenMask & ~queryMask).nonzeroBitCount <= allowance { edits = matcher.distance(to: token) }
                if edits == nil, length > word.count {
                    // The start of a word, typed with a typo ("gihtu" for "github"); the same byte bound first.
                    let start = UnsafeBufferPointer(rebasing: token[0..<word.count])
                    let startMask = SearchIndex.mask(start)
                    if (queryMask & ~startMask).nonzeroBitCount <= allowance && (startMask & ~queryMask).nonzeroBitCount <= allowance {
                        edits = matcher.distance(to: start)
                    }
                }
                guard let edits else { continue }
                for owner in owners where scope == .all || scope == owner.scope {
                    let e = Int(owner.slot)
                    if UInt8(edits) < found[e] { found[e] = UInt8(edits) }
                }
            }
        }
        return found
    }

    func exactTier(_ i: Int, _ t: UnsafeBufferPointer<UInt8>, _ q: UnsafeBufferPointer<UInt8>, _ scope: SearchScope) -> SearchHit.Tier? {
        if scope == .all || scope == .name {
            let title = titleSpans[i]
            if SearchIndex.startsWith(t, Int(title.start), Int(title.end), q) { return .titlePrefix }
            for w in wordRanges[i] where SearchIndex.startsWith(t, Int(wordStarts[Int(w)]), Int(title.end), q) { return .titleWordPrefix }
            if SearchIndex.contains(t, title, q) { return .titleContains }
        }
        if scope == .all {
            return SearchIndex.contains(t, otherSpans[i], q) ? .otherField : nil
        }
        for f in fieldRanges[i] where spans[Int(f)].scope == scope && SearchIndex.contains(t, spans[Int(f)], q) { return .otherField }
        return nil
    }

    static func startsWith(_ t: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ q: UnsafeBufferPointer<UInt8>) -> Bool {
        end - start >= q.count && memcmp(t.baseAddress! + start, q.baseAddress!, q.count) == 0
    }

    static func contains(_ t: UnsafeBufferPointer<UInt8>, _ span: Span, _ q: UnsafeBufferPointer<UInt8>) -> Bool {
        let length = Int(span.end - span.start)
        guard length >= q.count else { return false }
        // memchr finds candidate first bytes (vectorised in glibc); memcmp checks the rest.
        let base = t.baseAddress! + Int(span.start)
        let first = Int32(q[0])
        var offset = 0
        let lastStart = length - q.count
        while offset <= lastStart {
            guard let hit = memchr(base + offset, first, lastStart - offset + 1) else { return false }
            let position = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            if memcmp(base + position, q.baseAddress!, q.count) == 0 { return true }
            offset = position + 1
        }
        return false
    }
}
