internal import CZxcvbnSupport
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
    static let germanMinimumLength = Int(RANKED_DICTIONARY_GERMAN_MINIMUM_LENGTH)

    /// The lists, in C (`CZxcvbnSupport`'s RankedDictionaryData.c, generated), with their lookup tables, made
    /// there on first use: made here from Swift Strings they cost 70 ms of every debug `passbox` that rated a
    /// password and 39 ms of a release one; in C 17 ms unoptimised and 10 ms optimised (December 2026).
    static var passwordsByRank: String { String(cString: RankedDictionary_passwordsList()) }
    static var germanWordsByFrequency: String { String(cString: RankedDictionary_germanWordsList()) }

    /// The rank of the entry whose lower-case UTF-8 bytes these are, nil when they are none.
    static func rank(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let rank = RankedDictionary_rank(bytes.baseAddress, bytes.count, nil)
        return rank == 0 ? nil : Int(rank)
    }

    /// The rank of `key` (lower case), nil when it is no entry. The lists are in composed form (NFC); a key
    /// with combining marks is composed first, as Swift's String equality would have matched it.
    static func rank(_ key: String) -> Int? {
        var key = composed(key)
        return key.withUTF8 { rank($0) }
    }

    /// Whether `word` (lower case) is a word of the reference's passwords list, offered here at the reference's
    /// own rank.
    static func isReferencePassword(_ word: String) -> Bool {
        var word = composed(word)
        var fromPasswords: Int32 = 0
        let rank = word.withUTF8 { RankedDictionary_rank($0.baseAddress, $0.count, &fromPasswords) }
        return rank != 0 && fromPasswords == 1
    }

    private static func composed(_ key: String) -> String {
        key.unicodeScalars.contains { $0.properties.canonicalCombiningClass != .notReordered } ? key.precomposedStringWithCanonicalMapping : key
    }

    /// The longest entry, in characters: no longer substring needs looking up.
    static var longestEntry: Int { RankedDictionary_longestEntry() }
    /// How many entries there are.
    static var count: Int { RankedDictionary_count() }

    /// Every start of up to `prefixLength` characters of an entry is kept: a substring whose first characters
    /// start no entry is not extended further. Random passwords stop after two or three characters instead of
    /// being looked up at every length (the Security Check rates every login's password).
    static let prefixLength = Int(RANKED_DICTIONARY_PREFIX_LENGTH)

    /// False only when `key` is short enough to be among the entries' starts and is not one: no entry starts
    /// with it (and, once false for a key, it is false for every longer key from the same start).
    static func mayStartEntry(_ key: String) -> Bool {
        var key = composed(key)
        return key.withUTF8 { RankedDictionary_mayStartEntry($0.baseAddress, $0.count) == 1 }
    }

    /// `matches(in:)` for a password of ASCII only (the common case): lowered by arithmetic and looked up as
    /// bytes, no String made but for the matches found.
    static func asciiMatches(in scalars: [Unicode.Scalar]) -> [StrengthMatch] {
        let bytes = scalars.map { s -> UInt8 in
            let b = UInt8(s.value)
            return b >= 0x41 && b <= 0x5A ? b + 32 : b
        }
        let longestEntry = Self.longestEntry
        var found = [StrengthMatch]()
        bytes.withUnsafeBufferPointer { bytes in
            for start in bytes.indices {
                for end in start..<min(bytes.count, start + longestEntry) {
                    let length = end - start + 1
                    let key = bytes.baseAddress! + start
                    // A start that begins no entry ends the search from this start (see `prefixLength`).
                    if length <= prefixLength, RankedDictionary_mayStartEntry(key, length) == 0 { break }
                    let rank = RankedDictionary_rank(key, length, nil)
                    guard rank != 0 else { continue }
                    let variations = uppercaseVariations(asciiBytes: scalars[start...end].lazy.map { UInt8($0.value) })
                    found.append(StrengthMatch(start: start, end: end + 1, pattern: .dictionary, guessesLog10: log10(Double(rank)) + log10(variations)))
                }
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
        let longestEntry = Self.longestEntry
        var found = [StrengthMatch]()
        for start in scalars.indices {
            var key = "", plainKey = ""
            var keyIsPrefix = true, plainKeyIsPrefix = true
            for end in start..<min(scalars.count, start + longestEntry) {
                key += lowered[end]
                plainKey += transliterated[end]
                let same = key == plainKey
                // A short key that starts no entry is no entry either, and no longer key from this start is:
                // a random password stops here after two or three characters with one lookup per step.
                keyIsPrefix = keyIsPrefix && mayStartEntry(key)
                plainKeyIsPrefix = same ? keyIsPrefix : plainKeyIsPrefix && mayStartEntry(plainKey)
                if !keyIsPrefix && !plainKeyIsPrefix { break }
                let asWritten = keyIsPrefix ? rank(key) : nil
                let transliteratedRank = same || !plainKeyIsPrefix ? nil : rank(plainKey)
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
