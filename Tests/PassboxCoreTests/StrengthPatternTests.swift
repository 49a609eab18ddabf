import Foundation
@testable import PassboxCore
import Testing

/// Patterns the reference list cannot hold: inputs far past the reference's length limit, and German words
/// the reference does not know (it has no German list; they should cost what common English words cost).
@Suite struct StrengthPatternTests {
    /// The one-pass tables equal what the plain derivation over Strings makes (split on spaces, German words
    /// of fewer than five characters left out but counted in the ranks, the passwords list's rank over the
    /// German one, keys and starts of up to 7 and 4 ASCII bytes packed with the length in the top byte).
    @Test func theDictionaryTablesAreThePlainDerivations() {
        var ranks = [String: Int]()
        for (i, w) in RankedDictionary.germanWordsByFrequency.split(separator: " ").enumerated() where w.count >= RankedDictionary.germanMinimumLength { ranks[String(w)] = i + 1 }
        for (i, w) in RankedDictionary.passwordsByRank.split(separator: " ").enumerated() { ranks[String(w)] = i + 1 }
        func packed(_ bytes: ArraySlice<UInt8>) -> UInt64 { bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } | UInt64(bytes.count) << 56 }
        var packedRanks = [UInt64: Int](), packedPrefixes = Set<UInt64>()
        for (key, rank) in ranks where key.utf8.allSatisfy({ $0 < 0x80 }) {
            let bytes = ArraySlice(key.utf8)
            if bytes.count <= 7 { packedRanks[packed(bytes)] = rank }
            for length in 1...min(RankedDictionary.prefixLength, bytes.count) { packedPrefixes.insert(packed(bytes.prefix(length))) }
        }
        let tables = RankedDictionary.tables
        #expect(tables.ranks == ranks && tables.ranks.count > 50_000)
        #expect(tables.packedRanks == packedRanks && tables.packedPrefixes == packedPrefixes)
        #expect(tables.longestEntry == ranks.keys.map(\.count).max())
        #expect(RankedDictionary.referencePasswords == Set(RankedDictionary.passwordsByRank.split(separator: " ").map(String.init)))
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
