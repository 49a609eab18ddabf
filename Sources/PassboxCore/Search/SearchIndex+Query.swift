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
                let near = nearMatches(word, scope: scope)
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
        let queryPairs = PairMask(q)
        let masks = scope == .name ? titleMasks : allMasks
        text.withUnsafeBufferPointer { t in
            q.withUnsafeBufferPointer { needle in
                for i in 0..<ids.count where queryMask & ~masks[i] == 0 && pairMasks[i].contains(queryPairs) && only?[i] ?? true {
                    if let tier = exactTier(i, t, needle, scope) { grade[i] = UInt8(tier.rawValue * 4) }
                }
            }
        }
    }

    /// For each slot, the fewest edits from `word` to one of its words (in `scope`) within the word's
    /// allowance, or 255.
    func nearMatches(_ word: [UInt8], scope: SearchScope) -> [UInt8] {
        var found = [UInt8](repeating: 255, count: ids.count)
        let allowance = EditDistance.allowance(forQueryLength: String(decoding: word, as: UTF8.self).count)
        guard allowance > 0 else { return found }
        var matcher = EditDistance.Matcher(query: word, limit: allowance)
        let queryMask = SearchIndex.mask(word)
        var starts = StartDistances()
        tokenText.withUnsafeBufferPointer { tokens in
          tokenRanges.withUnsafeBufferPointer { ranges in
            tokenMasks.withUnsafeBufferPointer { masks in
              for t in 0..<ranges.count {
                let range = ranges[t]
                let length = Int(range.count)
                guard length + allowance >= word.count else { continue }
                // Each distinct query byte the word lacks needs an edit: a lower bound that skips most words.
                // The bounds and the distance read only contiguous masks and text; a word's owners (a separate
                // allocation per word, a cache miss each) are touched only for the words that match.
                let tokenMask = masks[t]
                guard (queryMask & ~tokenMask).nonzeroBitCount <= allowance else { continue }
                let token = UnsafeBufferPointer(rebasing: tokens[Int(range.lowerBound)..<Int(range.upperBound)])
                var edits = (tokenMask & ~queryMask).nonzeroBitCount <= allowance ? matcher.distance(to: token) : nil
                if edits == nil, length > word.count {
                    // The start of a word, typed with a typo ("gihtu" for "github"); the same byte bound first.
                    let start = UnsafeBufferPointer(rebasing: token[0..<word.count])
                    let startMask = SearchIndex.mask(start)
                    if (queryMask & ~startMask).nonzeroBitCount <= allowance && (startMask & ~queryMask).nonzeroBitCount <= allowance {
                        edits = starts.distance(start, &matcher)
                    }
                }
                guard let edits else { continue }
                for owner in tokenOwners[t] where scope == .all || scope == owner.scope {
                    let e = Int(owner.slot)
                    if UInt8(edits) < found[e] { found[e] = UInt8(edits) }
                }
              }
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
        guard end - start >= q.count else { return false }
        // Queries are short: compare in place rather than call memcmp for a few bytes.
        if q.count <= 16 {
            for k in 0..<q.count where t[start + k] != q[k] { return false }
            return true
        }
        return memcmp(t.baseAddress! + start, q.baseAddress!, q.count) == 0
    }

    static func contains(_ t: UnsafeBufferPointer<UInt8>, _ span: Span, _ q: UnsafeBufferPointer<UInt8>) -> Bool {
        let length = Int(span.end - span.start)
        guard length >= q.count else { return false }
        // memchr finds candidate first bytes (vectorised in glibc); the second byte is checked in place before
        // memcmp checks the rest, since most candidates fail there.
        let base = t.baseAddress! + Int(span.start)
        let first = Int32(q[0])
        var offset = 0
        let lastStart = length - q.count
        while offset <= lastStart {
            guard let hit = memchr(base + offset, first, lastStart - offset + 1) else { return false }
            let position = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            if q.count == 1 || (base[position + 1] == q[1] && memcmp(base + position + 2, q.baseAddress! + 2, q.count - 2) == 0) { return true }
            offset = position + 1
        }
        return false
    }
}

/// Many words share their start ("service1", "service2", … from website names): the distance from a query
/// word to each distinct start is worked out once. A start of up to 8 bytes is its own key; the words that
/// reach this check with the same start usually come one after another, so the last start is tried before
/// the dictionary.
struct StartDistances {
    var known = [UInt64: Int8]()
    var last: (key: UInt64, edits: Int8) = (.max, -1)

    mutating func distance(_ start: UnsafeBufferPointer<UInt8>, _ matcher: inout EditDistance.Matcher) -> Int? {
        guard start.count <= 8 else { return matcher.distance(to: start) }
        let key = start.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let edits: Int8
        if key == last.key {
            edits = last.edits
        } else if let found = known[key] {
            edits = found
        } else {
            edits = Int8(matcher.distance(to: start) ?? -1)
            known[key] = edits
        }
        last = (key, edits)
        return edits < 0 ? nil : Int(edits)
    }
}
