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
    static let ranks: [String: Int] = {
        var ranks = [String: Int]()
        for (index, word) in germanWordsByFrequency.split(separator: " ").enumerated() { ranks[String(word)] = index + 1 }
        for (index, word) in passwordsByRank.split(separator: " ").enumerated() { ranks[String(word)] = index + 1 }
        return ranks
    }()

    /// The longest entry, in characters: no longer substring needs looking up.
    static let longestEntry = ranks.keys.map(\.count).max() ?? 0

    /// Every substring of `scalars` that is an entry, priced as the reference prices a dictionary match:
    /// rank × upper-case variations. Umlauts are looked up as written and as "ae", "oe", "ue" ("Bärchen" is
    /// "baerchen" in the passwords list). (The reference also tries l33t and reversed spellings; libzxcvbn
    /// does for its English words, this pass does not.)
    static func matches(in scalars: [Unicode.Scalar]) -> [StrengthMatch] {
        let lowered = scalars.map { scalar in scalar == "ß" ? "ss" : String(scalar).lowercased() }
        let transliterated = lowered.map { umlauts[$0] ?? $0 }
        var found = [StrengthMatch]()
        for start in scalars.indices {
            var key = "", plainKey = ""
            for end in start..<min(scalars.count, start + longestEntry) {
                key += lowered[end]
                plainKey += transliterated[end]
                guard let rank = [ranks[key], ranks[plainKey]].compactMap({ $0 }).min() else { continue }
                let token = String(String.UnicodeScalarView(scalars[start...end]))
                let guessesLog10 = log10(Double(rank)) + log10(uppercaseVariations(token))
                found.append(StrengthMatch(start: start, end: end + 1, pattern: .dictionary, guessesLog10: guessesLog10))
            }
        }
        return found
    }

    private static let umlauts = ["ä": "ae", "ö": "oe", "ü": "ue"]

    /// The reference's count of capitalisations an attacker tries: 1 for lower case; 2 for a capital
    /// first or last letter or all capitals; otherwise the sum of C(U+L, i) for i up to min(U, L).
    static func uppercaseVariations(_ token: String) -> Double {
        let upper = token.filter(\.isUppercase).count
        let lower = token.filter(\.isLowercase).count
        guard upper > 0 else { return 1 }
        let first = token.first?.isUppercase == true, last = token.last?.isUppercase == true
        if lower == 0 || (first && upper == 1) || (last && upper == 1) { return 2 }
        var variations = 0.0
        for i in 1...min(upper, lower) { variations += binomial(upper + lower, i) }
        return variations
    }

    private static func binomial(_ n: Int, _ k: Int) -> Double {
        (0..<k).reduce(1.0) { $0 * Double(n - $1) / Double($1 + 1) }
    }
}
