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

/// A search index over a vault's active items, built once per unlock, kept up to date with `upsert` and
/// `remove` as items change, and queried many times.
///
/// Text is folded (case, accents and width ignored). Order: title starts with the query, then a title word
/// does, then the title contains it, then another field contains it (username, websites, notes, tags, visible
/// custom fields), then near matches (one edit allowed from 4 letters, two from 8; a transposition counts
/// as one) against title words, usernames, website names and tags. Concealed fields and passwords are never
/// indexed; trashed items never match. Ties keep title order (then id order); the empty query gives the most
/// recently used or changed items, ties in title order. Results depend only on the items indexed, not on the
/// order they were added or updated in, so an index kept up to date answers exactly as a fresh one.
///
/// Each item has a slot. All folded text lives in one contiguous byte buffer addressed by ranges, so a query
/// is a scan of `memchr`/`memcmp` calls with no per-item allocation; near matches run over the vault's
/// distinct words only. An update empties the item's old slot and fills a new one; empty slots and the text
/// they held are reclaimed once they outnumber the live ones.
public struct SearchIndex: Sendable {
    /// A field's text within `text`, and which scope finds it.
    struct Span: Sendable {
        let start: Int32
        let end: Int32
        let scope: SearchScope
    }

    // Per slot, in plain arrays so the scan does no reference counting.
    var titleSpans: [Span] = []
    /// The title's word starts, in `wordStarts`.
    var wordRanges: [Range<Int32>] = []
    /// The other fields, in `spans`.
    var fieldRanges: [Range<Int32>] = []
    /// All other fields together (for the "all" scope: one scan instead of one per field).
    var otherSpans: [Span] = []
    /// Which byte values (folded to 64 buckets) occur in each slot's title, and in all its text: a query with
    /// a byte a slot lacks cannot be a substring of it, so most slots are skipped with one AND. An empty slot
    /// has no bytes, so it never matches.
    var titleMasks: [UInt64] = []
    var allMasks: [UInt64] = []
    /// Which pairs of adjacent bytes (hashed to 256 bits) occur in each slot's text: a query with a pair the
    /// slot lacks cannot be a substring of it. This skips most slots for a typo ("srvice") or a phrase,
    /// which single bytes do not.
    var pairMasks: [PairMask] = []
    var ids: [String] = []
    var recency: [Date] = []
    /// The folded title, the first key of title order.
    var titleKeys: [String] = []
    /// The near-match words of each slot, with the scope they count for (to remove them again).
    var slotTokens: [[(token: Int32, scope: SearchScope)]] = []
    var isLive: [Bool] = []
    var slotOfID: [String: Int32] = [:]
    /// Live slots in title order (folded title, then id), for ranking ties without sorting at query time.
    var titleOrder: [Int32] = []

    var text: [UInt8] = []
    var wordStarts: [Int32] = []
    var spans: [Span] = []

    /// Distinct near-match words: their text in `tokenText`, and the slots (with scope) that have each.
    var tokenText: [UInt8] = []
    var tokenRanges: [Range<Int32>] = []
    var tokenOwners: [[(slot: Int32, scope: SearchScope)]] = []
    var tokenMasks: [UInt64] = []
    var tokenIndex: [[UInt8]: Int32] = [:]

    /// An empty index.
    public init() {}

    /// The index of a vault's active items.
    public init(vault: Vault) {
        for item in vault.items where !item.isTrashed { fill(item) }
        titleOrder = Array(0..<Int32(ids.count)).sorted(by: titleOrderPrecedes)
    }

    /// How many items the index holds.
    public var count: Int { slotOfID.count }

    /// Adds an item or replaces its earlier version; a trashed item is removed instead.
    public mutating func upsert(_ item: Item) {
        if item.isTrashed {
            remove(id: item.id)
            return
        }
        if let old = slotOfID[item.id] { empty(old) }
        let slot = fill(item)
        titleOrder.insert(slot, at: titleOrderPosition(of: slot))
        compactIfSparse()
    }

    /// Removes an item (deleted or moved to the trash); an id the index does not hold is ignored.
    public mutating func remove(id: String) {
        guard let slot = slotOfID[id] else { return }
        empty(slot)
        compactIfSparse()
    }

    /// Whether slot `a` comes before slot `b` in title order.
    func titleOrderPrecedes(_ a: Int32, _ b: Int32) -> Bool {
        let x = titleKeys[Int(a)], y = titleKeys[Int(b)]
        return x == y ? ids[Int(a)] < ids[Int(b)] : x < y
    }

    /// Where `slot` goes in (or is in) `titleOrder`: the first position not before it.
    func titleOrderPosition(of slot: Int32) -> Int {
        var low = 0, high = titleOrder.count
        while low < high {
            let mid = (low + high) / 2
            if titleOrderPrecedes(titleOrder[mid], slot) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Indexes `item` in a new slot.
    @discardableResult
    mutating func fill(_ item: Item) -> Int32 {
        let slot = Int32(ids.count)
        var tokens = [(token: Int32, scope: SearchScope)]()
        let title = append(item.title, scope: .name)
        let wordsStart = Int32(wordStarts.count)
        var previousIsWord = false
        for offset in Int(title.start)..<Int(title.end) {
            let isWord = SearchIndex.isWordByte(text[offset])
            if isWord && !previousIsWord { wordStarts.append(Int32(offset)) }
            previousIsWord = isWord
        }
        for word in SearchIndex.words(text[Int(title.start)..<Int(title.end)]) { addToken(word, slot: slot, scope: .name, to: &tokens) }
        let fieldsStart = Int32(spans.count)
        let otherStart = Int32(text.count)
        for field in item.fields where !field.kind.isConcealed && !field.value.isEmpty {
            let isUser = field.key == "username" || field.kind == .email
            let span = append(field.value, scope: isUser ? .username : .all)
            spans.append(span)
            if isUser {
                let bytes = text[Int(span.start)..<Int(span.end)]
                addToken(bytes, slot: slot, scope: .username, to: &tokens)
                for word in SearchIndex.words(bytes) { addToken(word, slot: slot, scope: .username, to: &tokens) }
            }
        }
        for site in item.websites {
            spans.append(append(site, scope: .website))
            if let host = Validation.host(of: site) {
                for label in host.split(separator: ".") where label.count >= 3 {
                    addToken(ArraySlice(TextFolding.fold(String(label)).utf8), slot: slot, scope: .website, to: &tokens)
                }
            }
        }
        for tag in item.tags {
            let span = append(tag, scope: .all)
            spans.append(span)
            addToken(text[Int(span.start)..<Int(span.end)], slot: slot, scope: .name, to: &tokens)
        }
        if !item.notes.isEmpty { spans.append(append(item.notes, scope: .notes)) }
        let other = Span(start: otherStart, end: Int32(text.count), scope: .all)
        let titleMask = SearchIndex.mask(text[Int(title.start)..<Int(title.end)])
        titleSpans.append(title)
        wordRanges.append(wordsStart..<Int32(wordStarts.count))
        fieldRanges.append(fieldsStart..<Int32(spans.count))
        otherSpans.append(other)
        titleMasks.append(titleMask)
        allMasks.append(titleMask | SearchIndex.mask(text[Int(other.start)..<Int(other.end)]))
        pairMasks.append(PairMask(text[Int(title.start)..<Int(other.end)]))
        ids.append(item.id)
        recency.append(max(item.lastUsed ?? .distantPast, item.lastChanged ?? .distantPast))
        titleKeys.append(String(decoding: text[Int(title.start)..<Int(title.end)], as: UTF8.self))
        slotTokens.append(tokens)
        isLive.append(true)
        slotOfID[item.id] = slot
        return slot
    }

    /// Takes a slot out of every list; its text stays until the next compaction.
    mutating func empty(_ slot: Int32) {
        let s = Int(slot)
        let position = titleOrderPosition(of: slot)
        precondition(position < titleOrder.count && titleOrder[position] == slot, "the search index lost its title order")
        titleOrder.remove(at: position)
        for (token, _) in slotTokens[s] {
            if let k = tokenOwners[Int(token)].firstIndex(where: { $0.slot == slot }) { tokenOwners[Int(token)].remove(at: k) }
        }
        slotTokens[s] = []
        titleMasks[s] = 0
        allMasks[s] = 0
        pairMasks[s] = PairMask()
        isLive[s] = false
        slotOfID[ids[s]] = nil
    }

    /// Rebuilds the slot arrays without emptied slots once those outnumber the live ones (so an update costs
    /// amortised constant extra work), keeping title order and every word.
    mutating func compactIfSparse() {
        let dead = ids.count - slotOfID.count
        guard dead > 1024 && dead > slotOfID.count else { return }
        var fresh = SearchIndex()
        var newSlot = [Int32](repeating: -1, count: ids.count)
        for s in ids.indices where isLive[s] {
            newSlot[s] = Int32(fresh.ids.count)
            fresh.copySlot(s, from: self)
        }
        fresh.titleOrder = titleOrder.map { newSlot[Int($0)] }
        self = fresh
    }

    /// Appends slot `s` of `other` (live), relocating its text.
    mutating func copySlot(_ s: Int, from other: SearchIndex) {
        let slot = Int32(ids.count)
        // A slot's text runs from its title to the end of its other fields, terminators included.
        let start = Int(other.titleSpans[s].start), end = Int(other.otherSpans[s].end)
        let shift = Int32(text.count - start)
        text += other.text[start..<end]
        func moved(_ span: Span) -> Span { Span(start: span.start + shift, end: span.end + shift, scope: span.scope) }
        let words = other.wordRanges[s], fields = other.fieldRanges[s]
        let wordsStart = Int32(wordStarts.count), fieldsStart = Int32(spans.count)
        for w in words { wordStarts.append(other.wordStarts[Int(w)] + shift) }
        for f in fields { spans.append(moved(other.spans[Int(f)])) }
        var tokens = [(token: Int32, scope: SearchScope)]()
        for (token, scope) in other.slotTokens[s] {
            let range = other.tokenRanges[Int(token)]
            addToken(other.tokenText[Int(range.lowerBound)..<Int(range.upperBound)], slot: slot, scope: scope, to: &tokens)
        }
        titleSpans.append(moved(other.titleSpans[s]))
        wordRanges.append(wordsStart..<Int32(wordStarts.count))
        fieldRanges.append(fieldsStart..<Int32(spans.count))
        otherSpans.append(moved(other.otherSpans[s]))
        titleMasks.append(other.titleMasks[s])
        allMasks.append(other.allMasks[s])
        pairMasks.append(other.pairMasks[s])
        ids.append(other.ids[s])
        recency.append(other.recency[s])
        titleKeys.append(other.titleKeys[s])
        slotTokens.append(tokens)
        isLive.append(true)
        slotOfID[other.ids[s]] = slot
    }

    mutating func append(_ string: String, scope: SearchScope) -> Span {
        let start = Int32(text.count)
        text += TextFolding.fold(string).utf8
        let span = Span(start: start, end: Int32(text.count), scope: scope)
        text.append(0)
        return span
    }

    mutating func addToken(_ bytes: ArraySlice<UInt8>, slot: Int32, scope: SearchScope, to tokens: inout [(token: Int32, scope: SearchScope)]) {
        guard bytes.count >= 2 else { return }
        let key = Array(bytes)
        let token: Int32
        if let t = tokenIndex[key] {
            token = t
        } else {
            token = Int32(tokenRanges.count)
            tokenIndex[key] = token
            let start = Int32(tokenText.count)
            tokenText += key
            tokenRanges.append(start..<Int32(tokenText.count))
            tokenOwners.append([])
            tokenMasks.append(SearchIndex.mask(key))
        }
        tokenOwners[Int(token)].append((slot, scope))
        tokens.append((token, scope))
    }

    static func mask<C: Collection>(_ bytes: C) -> UInt64 where C.Element == UInt8 {
        bytes.reduce(UInt64(0)) { $0 | (1 << UInt64(bucket($1))) }
    }

    /// Folded text is lower-case letters, digits and a few other bytes: each letter and each digit has a
    /// bucket of its own (so "3333" and "srvice" share none), the other bytes share the remaining 28.
    @inline(__always) static func bucket(_ b: UInt8) -> UInt8 {
        switch b {
        case 0x61...0x7a: b - 0x61
        case 0x30...0x39: b - 0x30 + 26
        default: 36 + b % 28
        }
    }

    static func isWordByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x7a) || (b >= 0x41 && b <= 0x5a) || b >= 0x80
    }

    static func words(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        bytes.split(whereSeparator: { !isWordByte($0) })
    }
}

/// A 256-bit set of hashed pairs of adjacent bytes (see `SearchIndex.pairMasks`).
struct PairMask: Sendable {
    var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    init() {}

    init<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        var previous: UInt8?
        for b in bytes {
            if let a = previous { insert(a, b) }
            previous = b
        }
    }

    mutating func insert(_ a: UInt8, _ b: UInt8) {
        let bit = (UInt32(a) &* 0x9E37_79B1 ^ UInt32(b) &* 0x85EB_CA6B) >> 24
        let mask = UInt64(1) << UInt64(bit & 63)
        switch bit >> 6 {
        case 0: words.0 |= mask
        case 1: words.1 |= mask
        case 2: words.2 |= mask
        default: words.3 |= mask
        }
    }

    /// Whether every pair of `other` is (possibly) here.
    @inline(__always) func contains(_ other: PairMask) -> Bool {
        other.words.0 & ~words.0 == 0 && other.words.1 & ~words.1 == 0 && other.words.2 & ~words.2 == 0 && other.words.3 & ~words.3 == 0
    }
}
