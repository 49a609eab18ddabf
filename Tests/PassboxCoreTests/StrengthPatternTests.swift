import Foundation
import PassboxCore
import Testing

/// Patterns the reference list cannot hold: inputs far past the reference's length limit, and German words
/// the reference does not know (it has no German list; they should cost what common English words cost).
@Suite struct StrengthPatternTests {
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
