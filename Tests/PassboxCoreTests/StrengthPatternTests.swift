import Foundation
@testable import PassboxCore
import Testing

/// Patterns the reference list cannot hold: inputs far past the reference's length limit, and German words
/// the reference does not know (it has no German list; they should cost what common English words cost).
@Suite struct StrengthPatternTests {
    /// The lookup tables made in C (RankedDictionary.c) answer what the plain derivation over Swift Strings
    /// answers: the lists split on spaces, German words of fewer than five characters left out but counted in
    /// the ranks, the passwords list's rank over the German one, every start of up to four characters of an
    /// entry (and no other start of up to three letters), and the passwords list's words as the reference's.
    @Test func theDictionaryTablesAreThePlainDerivations() {
        var ranks = [String: Int]()
        for (i, w) in RankedDictionary.germanWordsByFrequency.split(separator: " ").enumerated() where w.count >= RankedDictionary.germanMinimumLength { ranks[String(w)] = i + 1 }
        let passwords = RankedDictionary.passwordsByRank.split(separator: " ").map(String.init)
        for (i, w) in passwords.enumerated() { ranks[w] = i + 1 }
        let reference = Set(passwords)
        var starts = Set<String>()
        for key in ranks.keys {
            var start = ""
            for scalar in key.unicodeScalars.prefix(RankedDictionary.prefixLength) {
                start.unicodeScalars.append(scalar)
                starts.insert(start)
            }
        }
        let wrong = ranks.filter { key, rank in RankedDictionary.rank(key) != rank || RankedDictionary.isReferencePassword(key) != reference.contains(key) }
        #expect(wrong.isEmpty, "\(wrong.count) entries answered wrongly, such as \(wrong.prefix(3))")
        #expect(RankedDictionary.count == ranks.count && ranks.count > 50_000)
        #expect(RankedDictionary.longestEntry == ranks.keys.map(\.count).max())
        // Every start is one; of every key of one to three letters (umlauts too), only the starts are.
        let letters = "abcdefghijklmnopqrstuvwxyzäöü".map(String.init)
        var short = letters
        for a in letters { for b in letters { short.append(a + b); for c in letters { short.append(a + b + c) } } }
        let wrongStarts = (Array(starts) + short).filter { RankedDictionary.mayStartEntry($0) != starts.contains($0) }
        #expect(wrongStarts.isEmpty, "\(wrongStarts.count) starts answered wrongly, such as \(wrongStarts.prefix(5))")
        #expect(RankedDictionary.rank("zzzzqqqq") == nil && RankedDictionary.rank("") == nil && !RankedDictionary.isReferencePassword("zzzzqqqq"))
        // A key written with combining marks (NFD) is the entry it is canonically equal to, as it was with Strings.
        let umlauted = ranks.keys.filter { $0.contains("ä") }.min()!
        let decomposed = umlauted.decomposedStringWithCanonicalMapping
        #expect(decomposed.unicodeScalars.count > umlauted.unicodeScalars.count && RankedDictionary.rank(decomposed) == ranks[umlauted])
    }

    struct Repeat: CustomTestStringConvertible, Sendable {
        let base: String
        let count: Int
        var password: String { String(repeating: base, count: count) }
        var testDescription: String { "\"\(base)\" × \(count)" }
    }

    @Test(arguments: [
        Repeat(base: "a", count: 100_000), Repeat(base: "abc", count: 33_334),
        Repeat(base: "abcdefghijklmnopqrstuvwxyz", count: 3_847), Repeat(base: "0123456789", count: 10_000),
    ])
    func longRepeatsScoreVeryWeak(_ input: Repeat) {
        let strength = PasswordStrength.estimate(input.password)
        #expect(strength.score <= 1)
        #expect(strength.warningKey == "strength.warning.repeat")
    }

    @Test func repeatedPhraseCostsThePhraseTimesTheCount() {
        let phrase = PasswordStrength.estimate("correcthorsebatterystaple").guessesLog10
        let repeated = PasswordStrength.estimate(String(repeating: "correcthorsebatterystaple", count: 4)).guessesLog10
        #expect(abs(repeated - (phrase + log10(4))) < 1, "phrase 10^\(phrase), four times 10^\(repeated)")
    }

    @Test func textPastTheAnalysedPrefixAddsNoGuesses() {
        let random = "wkNhFdnXsiVpzz63FfkCzJr4i0B3JrTAwR4y9ojfljoQoaF1LlqsajAIxNKuq8Tz2mW5vB7nC9xR1pL4kD6hJ3gF0sA8eY2uI5oPzXcVbN"
        let prefix = String(random.prefix(100))
        #expect(PasswordStrength.estimate(random).guessesLog10 == PasswordStrength.estimate(prefix).guessesLog10)
    }

    @Test(arguments: ["schmetterling", "Zuhause", "prinzessin", "Frühling", "Straße", "Bärchen", "kennwort"])
    func commonGermanWordsScoreLikeCommonEnglishWords(_ word: String) {
        let strength = PasswordStrength.estimate(word)
        #expect(strength.score <= 1)
        #expect(strength.warningKey == "strength.warning.common")
    }

    /// A season and a year, and German phrases of short words, score as the reference does (they were exact
    /// before the reference's password ranks and the German list came in, then one below: issue 28). Scores
    /// from PyPI zxcvbn 4.5.0.
    @Test(arguments: [
        ("Sommer2023", 2), ("Winter2024", 2), ("Summer2023", 2), ("summer2024", 2), ("Summer2025", 1), ("Spring2022!", 3), ("Herbst2019", 1), ("Sommer2025", 2), ("Fall2023", 2),
        ("ichliebedich", 4), ("meinpasswort", 2),
    ] as [(String, Int)])
    func seasonsWithYearsAndShortGermanWordsScoreAsTheReference(_ password: String, _ reference: Int) {
        #expect(PasswordStrength.estimate(password).score == reference, "\(password)")
    }

    @Test func longGermanPassphraseStaysStrong() {
        #expect(PasswordStrength.estimate("Zitronenfalter-Wolkenkratzer-Eisbär").score == 4)
    }
}
