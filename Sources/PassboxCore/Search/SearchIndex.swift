import Foundation

/// Where a search looks.
public enum SearchScope: String, Sendable, CaseIterable {
    case all, name, username, website, notes
}

/// One hit: the item and how well it matched (lower tiers rank first).
public struct SearchHit: Sendable, Equatable {
    public enum Tier: Int, Sendable, Comparable {
        case titlePrefix = 0, titleWordPrefix, titleContains, otherField, nearMatch
        public static func < (a: Tier, b: Tier) -> Bool { a.rawValue < b.rawValue }
    }

    public let itemID: String
    public let tier: Tier
    /// Edits needed for a near match (0 otherwise).
    public let edits: Int
}

/// A search index over a vault's active items, built once per unlock and queried many times.
///
/// Text is folded (case, accents and width ignored). Order: title starts with the query, then a title word
/// does, then the title contains it, then another field contains it (username, websites, notes, tags, visible
/// custom fields), then near matches (one edit allowed from 4 letters, two from 8; a transposition counts
/// as one) against title words, usernames, website names and tags. Concealed fields and passwords are never
/// indexed; trashed items never match. Ties keep title order.
///
/// All folded text lives in one contiguous byte buffer addressed by ranges, so a query is a scan of
/// `memchr`/`memcmp` calls with no per-item allocation; near matches run over the vault's distinct words only.
public struct SearchIndex: Sendable {
    /// A field's text within `text`, and which scope finds it.
    struct Span: Sendable {
        let start: Int32
        let end: Int32
        let scope: SearchScope
    }

    struct Entry: Sendable {
        let id: String
        let title: Span
        /// Start offsets of the title's words (into `text`), in `wordStarts`.
        let words: Range<Int32>
        /// This entry's other fields, in `spans`.
        let fields: Range<Int32>
        /// All other fields together (for the "all" scope: one scan instead of one per field).
        let otherText: Span
        let recency: Date
        /// Position in title order, for ties.
        var titleRank: Int32 = 0
    }

    /// The hot fields of every entry, in plain arrays so the scan does no reference counting.
    private var titleSpans: [Span] = []
    private var wordRanges: [Range<Int32>] = []
    private var fieldRanges: [Range<Int32>] = []
    private var otherSpans: [Span] = []
    /// Which byte values (folded to 64 buckets) occur in each entry's title, and in all its text: a query
    /// with a byte an entry lacks cannot be a substring of it, so most entries are skipped with one AND.
    private var titleMasks: [UInt64] = []
    private var allMasks: [UInt64] = []
    /// Entry indices in title order, for ranking ties without sorting at query time.
    private var titleOrder: [Int32] = []
    private var text: [UInt8] = []
    private var wordStarts: [Int32] = []
    private var spans: [Span] = []
    private var entries: [Entry] = []
    /// Distinct near-match words: their text in `tokenText`, and the entries (with scope) that have each.
    private var tokenText: [UInt8] = []
    private var tokenRanges: [Range<Int32>] = []
    private var tokenOwners: [[(entry: Int32, scope: SearchScope)]] = []
    private var tokenMasks: [UInt64] = []

    public init(vault: Vault) {
        var tokenIndex = [[UInt8]: Int]()
        func addToken(_ bytes: ArraySlice<UInt8>, entry: Int, scope: SearchScope) {
            guard bytes.count >= 2 else { return }
            let key = Array(bytes)
            if let i = tokenIndex[key] {
                tokenOwners[i].append((Int32(entry), scope))
            } else {
                tokenIndex[key] = tokenRanges.count
                let start = Int32(tokenText.count)
                tokenText += key
                tokenRanges.append(start..<Int32(tokenText.count))
                tokenOwners.append([(Int32(entry), scope)])
            }
        }
        func append(_ string: String) -> Span { append(string, scope: .name) }
        func append(_ string: String, scope: SearchScope) -> Span {
            let start = Int32(text.count)
            text += TextFolding.fold(string).utf8
            let span = Span(start: start, end: Int32(text.count), scope: scope)
            text.append(0)
            return span
        }
        var titles = [(String, Int)]()
        for item in vault.items where !item.isTrashed {
            let index = entries.count
            let title = append(item.title)
            let wordsStart = Int32(wordStarts.count)
            var previousIsWord = false
            for offset in Int(title.start)..<Int(title.end) {
                let isWord = SearchIndex.isWordByte(text[offset])
                if isWord && !previousIsWord { wordStarts.append(Int32(offset)) }
                previousIsWord = isWord
            }
            for word in SearchIndex.words(text[Int(title.start)..<Int(title.end)]) { addToken(word, entry: index, scope: .name) }
            let fieldsStart = Int32(spans.count)
            let otherStart = Int32(text.count)
            for field in item.fields where !field.kind.isConcealed && !field.value.isEmpty {
                let isUser = field.key == "username" || field.kind == .email
                let span = append(field.value, scope: isUser ? .username : .all)
                spans.append(span)
                if isUser {
                    let bytes = text[Int(span.start)..<Int(span.end)]
                    addToken(bytes, entry: index, scope: .username)
                    for word in SearchIndex.words(bytes) { addToken(word, entry: index, scope: .username) }
                }
            }
            for site in item.websites {
                spans.append(append(site, scope: .website))
                if let host = Validation.host(of: site) {
                    for label in host.split(separator: ".") where label.count >= 3 {
                        addToken(ArraySlice(TextFolding.fold(String(label)).utf8), entry: index, scope: .website)
                    }
                }
            }
            for tag in item.tags {
                let span = append(tag, scope: .all)
                spans.append(span)
                addToken(text[Int(span.start)..<Int(span.end)], entry: index, scope: .name)
            }
            if !item.notes.isEmpty { spans.append(append(item.notes, scope: .notes)) }
            entries.append(
                Entry(
                    id: item.id, title: title, words: wordsStart..<Int32(wordStarts.count), fields: fieldsStart..<Int32(spans.count),
                    otherText: Span(start: otherStart, end: Int32(text.count), scope: .all),
                    recency: max(item.lastUsed ?? .distantPast, item.lastChanged ?? .distantPast)))
            titles.append((String(decoding: text[Int(title.start)..<Int(title.end)], as: UTF8.self), index))
        }
        titles.sort { $0.0 == $1.0 ? entries[$0.1].id < entries[$1.1].id : $0.0 < $1.0 }
        for (rank, pair) in titles.enumerated() { entries[pair.1].titleRank = Int32(rank) }
        titleOrder = titles.map { Int32($0.1) }
        titleSpans = entries.map(\.title)
        wordRanges = entries.map(\.words)
        fieldRanges = entries.map(\.fields)
        otherSpans = entries.map(\.otherText)
        tokenMasks = tokenRanges.map { SearchIndex.mask(tokenText[Int($0.lowerBound)..<Int($0.upperBound)]) }
        titleMasks = titleSpans.map { SearchIndex.mask(text[Int($0.start)..<Int($0.end)]) }
        allMasks = zip(titleMasks, otherSpans).map { $0 | SearchIndex.mask(text[Int($1.start)..<Int($1.end)]) }
    }

    static func mask<C: Collection>(_ bytes: C) -> UInt64 where C.Element == UInt8 {
        bytes.reduce(UInt64(0)) { $0 | (1 << UInt64($1 & 63)) }
    }

    public var count: Int { entries.count }

    /// Ranked hits for `query`; an empty query gives the most recently used items.
    public func search(_ query: String, scope: SearchScope = .all, limit: Int = 50) -> [SearchHit] {
        let folded = TextFolding.fold(query.trimmingCharacters(in: .whitespacesAndNewlines))
        if folded.isEmpty {
            return entries.indices.sorted { entries[$0].recency > entries[$1].recency }.prefix(limit).map { SearchHit(itemID: entries[$0].id, tier: .titlePrefix, edits: 0) }
        }
        let q = Array(folded.utf8)
        // Per entry: tier × 4 + edits, or 255 for no match.
        var grade = [UInt8](repeating: 255, count: entries.count)
        let queryMask = SearchIndex.mask(q)
        let masks = scope == .name ? titleMasks : allMasks
        text.withUnsafeBufferPointer { t in
            q.withUnsafeBufferPointer { needle in
                for i in 0..<entries.count where queryMask & ~masks[i] == 0 {
                    if let tier = exactTier(i, t, needle, scope) { grade[i] = UInt8(tier.rawValue * 4) }
                }
            }
        }
        // Near matches, word by word: every word of the query must occur in the entry or be within its
        // allowance of one of the entry's words; the edits add up.
        let queryWords = folded.split(whereSeparator: \.isWhitespace).map { Array($0.utf8) }
        if queryWords.contains(where: { EditDistance.allowance(forQueryLength: String(decoding: $0, as: UTF8.self).count) > 0 }) {
            var total = [UInt8](repeating: 0, count: entries.count)
            var alive = [Bool](repeating: true, count: entries.count)
            for word in queryWords {
                let near = nearMatches(word, scope: scope)
                let exactHits: [Bool] = text.withUnsafeBufferPointer { t in
                    word.withUnsafeBufferPointer { w in
                        let m = SearchIndex.mask(word)
                        let masks = scope == .name ? titleMasks : allMasks
                        return (0..<entries.count).map { i in alive[i] && m & ~masks[i] == 0 && exactTier(i, t, w, scope) != nil }
                    }
                }
                for i in 0..<entries.count where alive[i] {
                    if exactHits[i] { continue }
                    if let edits = near[i] { total[i] = total[i] &+ edits } else { alive[i] = false }
                }
            }
            for i in 0..<entries.count where alive[i] && grade[i] == 255 {
                grade[i] = UInt8(SearchHit.Tier.nearMatch.rawValue * 4) + min(total[i], 3)
            }
        }
        // Grades are small integers: bucket the entries by grade in title order instead of sorting.
        var buckets = [[Int32]](repeating: [], count: 20)
        for i in titleOrder where grade[Int(i)] != 255 && buckets[Int(grade[Int(i)])].count < limit {
            buckets[Int(grade[Int(i)])].append(i)
        }
        var hits = [SearchHit]()
        for (g, bucket) in buckets.enumerated() {
            for i in bucket {
                guard hits.count < limit else { return hits }
                hits.append(SearchHit(itemID: entries[Int(i)].id, tier: SearchHit.Tier(rawValue: g / 4)!, edits: g % 4))
            }
        }
        return hits
    }

    /// Entries with a word within `word`'s allowance (fewest edits each).
    private func nearMatches(_ word: [UInt8], scope: SearchScope) -> [Int: UInt8] {
        let allowance = EditDistance.allowance(forQueryLength: String(decoding: word, as: UTF8.self).count)
        guard allowance > 0 else { return [:] }
        var found = [Int: UInt8]()
        var matcher = EditDistance.Matcher(query: word, limit: allowance)
        let queryMask = SearchIndex.mask(word)
        tokenText.withUnsafeBufferPointer { tokens in
            for (t, range) in tokenRanges.enumerated() {
                let length = Int(range.count)
                guard length + allowance >= word.count else { continue }
                // Each distinct query byte the word lacks needs an edit: a lower bound that skips most words.
                let tokenMask = tokenMasks[t]
                guard (queryMask & ~tokenMask).nonzeroBitCount <= allowance else { continue }
                let token = UnsafeBufferPointer(rebasing: tokens[Int(range.lowerBound)..<Int(range.upperBound)])
                var edits: Int?
                if (tokenMask & ~queryMask).nonzeroBitCount <= allowance { edits = matcher.distance(to: token) }
                if edits == nil, length > word.count {
                    // The start of a word, typed with a typo ("gihtu" for "github").
                    edits = matcher.distance(to: UnsafeBufferPointer(rebasing: token[0..<word.count]))
                }
                guard let edits else { continue }
                for owner in tokenOwners[t] where scope == .all || scope == owner.scope {
                    let e = Int(owner.entry)
                    if UInt8(edits) < found[e] ?? UInt8.max { found[e] = UInt8(edits) }
                }
            }
        }
        return found
    }

    private func exactTier(_ i: Int, _ t: UnsafeBufferPointer<UInt8>, _ q: UnsafeBufferPointer<UInt8>, _ scope: SearchScope) -> SearchHit.Tier? {
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

    static func isWordByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x7a) || (b >= 0x41 && b <= 0x5a) || b >= 0x80
    }

    static func words(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        bytes.split(whereSeparator: { !isWordByte($0) })
    }
}
