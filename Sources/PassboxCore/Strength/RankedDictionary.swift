import Foundation

/// The ranked dictionaries the strength estimate adds to libzxcvbn's own, each ranked the way the reference
/// zxcvbn ranks its dictionaries (a word of rank r costs r guesses): the reference's list of 30,000 common
/// passwords (Debian's libzxcvbn compiles an older, smaller one: it priced "kennwort", "minecraft" and
/// "password1" as random letters) and the most frequent German words (libzxcvbn's are English only). The
/// reference has no German list; a common German word here costs what an English word of the same rank
/// costs there. Where the lists come from: `scripts/embed-strength-dictionaries.py`.
enum RankedDictionary {
    /// Rank of each entry, lower-case, "ß" written "ss" (as the German list writes it). The generator leaves
    /// out of the German list the words that are in the passwords list, so the reference's rank stands for
    /// those ("fussball" costs what the reference says, not its higher rank among German words).
    /// German words of fewer than `germanMinimumLength` letters are left out: short function words ("ich",
    /// "dich", "mein") cost far less here than the reference's letter-by-letter price, and made German phrases
    /// the reference rated exactly ("ichliebedich") one below it (issue 28). A short word is priced as the
    /// reference prices it.
    static let germanMinimumLength = 5

    static var ranks: [String: Int] { tables.ranks }

    /// The reference's passwords list: a word of it is offered here at the reference's own rank.
    static let referencePasswords: Set<String> = {
        var out = Set<String>()
        eachWord(of: passwordsByRank) { word, _, _ in out.insert(String(decoding: word, as: UTF8.self)) }
        return out
    }()

    /// The longest entry, in characters: no longer substring needs looking up.
    static var longestEntry: Int { tables.longestEntry }

    /// Every start of up to `prefixLength` characters of an entry: a substring whose first characters start
    /// no entry is not extended further. Random passwords stop after two or three characters instead of
    /// being looked up at every length (the Security Check rates every login's password).
    static let prefixLength = 4

    /// False only when `key` (of `scalarCount` Unicode scalars) is short enough to be in `prefixes` and is
    /// not: no entry starts with it (and, once false for a key, it is false for every longer key from the
    /// same start). Counted in scalars, which is cheap, not characters, which needs grapheme breaking.
    static func mayStartEntry(_ key: String, scalarCount: Int) -> Bool {
        scalarCount > prefixLength || prefixes.contains(key)
    }
    static let prefixes: Set<String> = {
        var out = Set<String>()
        for key in ranks.keys {
            var prefix = String.UnicodeScalarView()
            for scalar in key.unicodeScalars.prefix(prefixLength) {
                prefix.append(scalar)
                out.insert(String(prefix))
            }
        }
        return out
    }()

    /// The entries and entry starts of up to 7 ASCII bytes as integers (the bytes, then the length in the top
    /// byte): an ASCII password's substrings are looked up without making a String for each.
    static var packedRanks: [UInt64: Int] { tables.packedRanks }
    static var packedPrefixes: Set<UInt64> { tables.packedPrefixes }

    /// The tables an ASCII password is looked up in, made in one pass over the lists' bytes when a password is
    /// first rated (each `passbox` command that rates one pays it): a String for each entry, the packed
    /// integers without one. (Four passes over Strings made `passbox strength` take 0.46 s in the debug build
    /// in December 2026, this one 0.15 s.) `prefixes` and `referencePasswords`, for the rarer paths, are
    /// made apart when first needed.
    struct Tables {
        var ranks: [String: Int] = [:]
        var packedRanks: [UInt64: Int] = [:]
        var packedPrefixes = Set<UInt64>()
        var longestEntry = 0
    }
    static let tables: Tables = {
        var t = Tables()
        t.ranks.reserveCapacity(60_000)
        t.packedRanks.reserveCapacity(40_000)
        func add(_ word: UnsafeBufferPointer<UInt8>, _ ascii: Bool, _ rank: Int, german: Bool) {
            let text = String(decoding: word, as: UTF8.self)
            let characters = ascii ? word.count : text.count
            if german && characters < germanMinimumLength { return }
            t.ranks[text] = rank
            t.longestEntry = max(t.longestEntry, characters)
            guard ascii else { return }
            var packed: UInt64 = 0
            for i in 0..<word.count {
                packed = packed << 8 | UInt64(word[i])
                if i < 7 && i + 1 == word.count { t.packedRanks[packed | UInt64(i + 1) << 56] = rank }
                if i < prefixLength { t.packedPrefixes.insert(packed | UInt64(i + 1) << 56) }
            }
        }
        // German first, so a word of both lists keeps the passwords list's rank (see `germanMinimumLength`).
        eachWord(of: germanWordsByFrequency) { add($0, $1, $2, german: true) }
        eachWord(of: passwordsByRank) { add($0, $1, $2, german: false) }
        return t
    }()

    /// Calls `body` with each space-separated word of `list` as UTF-8 bytes, whether it is all ASCII, and its
    /// rank (its place in the list, from 1).
    static func eachWord(of list: String, _ body: (UnsafeBufferPointer<UInt8>, Bool, Int) -> Void) {
        var list = list
        list.withUTF8 { bytes in
            var rank = 0, start = 0, ascii = true
            for i in 0...bytes.count {
                if i == bytes.count || bytes[i] == 0x20 {
                    if i > start {
                        rank += 1
                        body(UnsafeBufferPointer(rebasing: bytes[start..<i]), ascii, rank)
                    }
                    start = i + 1
                    ascii = true
                } else if bytes[i] >= 0x80 {
                    ascii = false
                }
            }
        }
    }

    /// `matches(in:)` for a password of ASCII only (the common case): lowered by arithmetic, keys of up to 7
    /// bytes looked up as integers, no String made but for the longer keys and the matches found.
    static func asciiMatches(in scalars: [Unicode.Scalar]) -> [StrengthMatch] {
        let bytes = scalars.map { s -> UInt8 in
            let b = UInt8(s.value)
            return b >= 0x41 && b <= 0x5A ? b + 32 : b
        }
        let ranks = Self.ranks, packedRanks = Self.packedRanks, packedPrefixes = Self.packedPrefixes, longestEntry = Self.longestEntry
        var found = [StrengthMatch]()
        for start in bytes.indices {
            var packed: UInt64 = 0
            for end in start..<min(bytes.count, start + longestEntry) {
                let length = end - start + 1
                let rank: Int?
                if length <= 7 {
                    packed = packed << 8 | UInt64(bytes[end])
                    let key = packed | UInt64(length) << 56
                    // A start that begins no entry ends the search from this start (see `prefixes`).
                    if length <= prefixLength, !packedPrefixes.contains(key) { break }
                    rank = packedRanks[key]
                } else {
                    rank = ranks[String(decoding: bytes[start...end], as: UTF8.self)]
                }
                guard let rank else { continue }
                let variations = uppercaseVariations(asciiBytes: scalars[start...end].lazy.map { UInt8($0.value) })
                found.append(StrengthMatch(start: start, end: end + 1, pattern: .dictionary, guessesLog10: log10(Double(rank)) + log10(variations)))
            }
        }
        return found
    }

    /// Every substring of `scalars` that is an entry, priced as the reference prices a dictionary match:
    /// rank × upper-case variations. Umlauts are looked up as written and as "ae", "oe", "ue" ("Bärchen" is
    /// "baerchen" in the passwords list). (The reference also tries l33t and reversed spellings; libzxcvbn
    /// does for its English words, this pass does not.)
    static func matches(in scalars: [Unicode.Scalar]) -> [StrengthMatch] {
        if scalars.allSatisfy({ $0.isASCII }) { return asciiMatches(in: scalars) }
        let lowered = scalars.map { scalar -> String in
            // ASCII is lowered by arithmetic (most passwords are all ASCII); the rest by Unicode's rules.
            if scalar.isASCII { return String(Character((0x41...0x5A).contains(scalar.value) ? Unicode.Scalar(scalar.value + 32)! : scalar)) }
            return scalar == "ß" ? "ss" : String(scalar).lowercased()
        }
        let transliterated = lowered.map { letter -> String in
            switch letter {
            case "ä": "ae"
            case "ö": "oe"
            case "ü": "ue"
            default: letter
            }
        }
        // (Closures, not key paths: a key path is applied through the runtime, slowly.)
        let loweredScalars = lowered.map { $0.unicodeScalars.count }
        let transliteratedScalars = transliterated.map { $0.unicodeScalars.count }
        // The lazily made tables, read once here rather than through their once-guards at every step.
        let ranks = Self.ranks, prefixes = Self.prefixes, longestEntry = Self.longestEntry
        func mayStartEntry(_ key: String, scalarCount: Int) -> Bool { scalarCount > prefixLength || prefixes.contains(key) }
        var found = [StrengthMatch]()
        for start in scalars.indices {
            var key = "", plainKey = ""
            var keyScalars = 0, plainKeyScalars = 0
            var keyIsPrefix = true, plainKeyIsPrefix = true
            for end in start..<min(scalars.count, start + longestEntry) {
                key += lowered[end]
                plainKey += transliterated[end]
                keyScalars += loweredScalars[end]
                plainKeyScalars += transliteratedScalars[end]
                let same = key == plainKey
                // A short key that starts no entry is no entry either, and no longer key from this start is:
                // a random password stops here after two or three characters with one set lookup per step.
                keyIsPrefix = keyIsPrefix && mayStartEntry(key, scalarCount: keyScalars)
                plainKeyIsPrefix = same ? keyIsPrefix : plainKeyIsPrefix && mayStartEntry(plainKey, scalarCount: plainKeyScalars)
                if !keyIsPrefix && !plainKeyIsPrefix { break }
                let asWritten = keyIsPrefix ? ranks[key] : nil
                let transliteratedRank = same || !plainKeyIsPrefix ? nil : ranks[plainKey]
                guard let rank = [asWritten, transliteratedRank].compactMap({ $0 }).min() else { continue }
                let token = String(String.UnicodeScalarView(scalars[start...end]))
                let guessesLog10 = log10(Double(rank)) + log10(uppercaseVariations(token))
                found.append(StrengthMatch(start: start, end: end + 1, pattern: .dictionary, guessesLog10: guessesLog10))
            }
        }
        return found
    }

    /// The reference's count of capitalisations an attacker tries: 1 for lower case; 2 for a capital
    /// first or last letter or all capitals; otherwise the sum of C(U+L, i) for i up to min(U, L).
    static func uppercaseVariations(_ token: String) -> Double {
        if token.utf8.allSatisfy({ $0 < 0x80 }) { return uppercaseVariations(asciiBytes: token.utf8) }
        var upper = 0, lower = 0
        for character in token {
            if character.isUppercase { upper += 1 } else if character.isLowercase { lower += 1 }
        }
        return variations(upper: upper, lower: lower, firstIsUpper: token.first?.isUppercase == true, lastIsUpper: token.last?.isUppercase == true)
    }

    /// The same for ASCII bytes, counted by byte ranges (no String made).
    static func uppercaseVariations<C: Collection>(asciiBytes bytes: C) -> Double where C.Element == UInt8 {
        var upper = 0, lower = 0
        var firstIsUpper = false, lastIsUpper = false
        var isFirst = true
        for byte in bytes {
            let isUpper = byte >= 0x41 && byte <= 0x5A
            if isUpper { upper += 1 } else if byte >= 0x61 && byte <= 0x7A { lower += 1 }
            if isFirst { firstIsUpper = isUpper; isFirst = false }
            lastIsUpper = isUpper
        }
        return variations(upper: upper, lower: lower, firstIsUpper: firstIsUpper, lastIsUpper: lastIsUpper)
    }

    private static func variations(upper: Int, lower: Int, firstIsUpper first: Bool, lastIsUpper last: Bool) -> Double {
        guard upper > 0 else { return 1 }
        if lower == 0 || (first && upper == 1) || (last && upper == 1) { return 2 }
        var variations = 0.0
        for i in 1...min(upper, lower) { variations += binomial(upper + lower, i) }
        return variations
    }

    private static func binomial(_ n: Int, _ k: Int) -> Double {
        (0..<k).reduce(1.0) { $0 * Double(n - $1) / Double($1 + 1) }
    }
}
