import Foundation
internal import CZxcvbnSupport

/// A zxcvbn-style estimate of how guessable a password is: Debian's libzxcvbn (the C port of Dropbox's
/// zxcvbn) finds dictionary, keyboard-pattern, sequence and date matches, and PassboxCore adds the reference
/// zxcvbn's common passwords, German words and repeats and prices them all the reference's way. libzxcvbn is
/// loaded with dlopen on first use, from any thread; `unavailability` says when it cannot be.
public struct PasswordStrength: Sendable, Equatable {
    /// The strength estimate could not be loaded: libzxcvbn is missing (the library and its Debian package).
    public struct Unavailable: Error, Equatable, Sendable {
        public let libraries: [String]
        public let packages: [String]
    }

    /// Why strength cannot be estimated (libzxcvbn.so.0 could not be loaded), or nil when it can. Loads it.
    public static var unavailability: Unavailable? {
        guard CZxcvbn_available() == 0 else { return nil }
        return Unavailable(libraries: ["libzxcvbn.so.0"], packages: ["libzxcvbn0"])
    }

    /// Throws `Unavailable` when libzxcvbn cannot be loaded.
    public static func checkAvailability() throws(Unavailable) {
        if let unavailability { throw unavailability }
    }

    /// 0 (too guessable) … 4 (very unguessable), on zxcvbn's guess thresholds.
    public let score: Int
    /// log10 of the estimated guesses.
    public let guessesLog10: Double
    /// The main weakness found, as a localization key (`strength.warning.…`), if any.
    public let warningKey: String?
    /// What would make it stronger, as localization keys.
    public let suggestionKeys: [String]

    /// Estimates the strength of `password`; `userInputs` (title, username, site) count as known words.
    ///
    /// Without libzxcvbn (see `unavailability`) every password scores 0, so nothing is called strong that was
    /// not rated; callers that show a score should call `checkAvailability()` first.
    public static func estimate(_ password: String, userInputs: [String] = []) -> PasswordStrength {
        guard CZxcvbn_available() != 0 else { return PasswordStrength(score: 0, guessesLog10: 0, warningKey: nil, suggestionKeys: []) }
        // libzxcvbn finds dictionary, keyboard, sequence and date matches in English; the reference's common
        // passwords, German words and repeats are matched here too, and all are combined the reference
        // zxcvbn's way (PasswordStrength+Guesses.swift), so scores agree with it. libzxcvbn's own total
        // prices random characters at their full character set (rating "u8jzPd" very strong), misses German
        // words ("kennwort") and prices a repeated phrase as new words.
        let scalars = analysedPrefix(password)
        let (guessesLog10, sequence) = mostGuessableSequence(scalars, userInputs: userInputs)
        let kinds = sequence.filter { $0.pattern != .bruteForce && ($0.length * 2 >= scalars.count || $0.length >= 4) }.map { $0.pattern }
        // zxcvbn's thresholds: fewer than 10^3 + 5, 10^6 + 5, 10^8 + 5, 10^10 + 5 guesses.
        let guesses = pow(10, guessesLog10)
        let score: Int =
            switch guesses {
            case ..<1_005: 0
            case ..<1_000_005: 1
            case ..<100_000_005: 2
            case ..<10_000_000_005: 3
            default: 4
            }
        return PasswordStrength(
            score: password.isEmpty ? 0 : score, guessesLog10: guessesLog10, warningKey: warningKey(for: kinds, score: score),
            suggestionKeys: score >= 3 ? [] : ["strength.suggestion.longer", "strength.suggestion.avoid"])
    }

    private static func warningKey(for kinds: [StrengthMatch.Pattern], score: Int) -> String? {
        guard score < 4 else { return nil }
        if kinds.contains(.dictionary) { return score < 3 ? "strength.warning.common" : "strength.warning.containsWord" }
        if kinds.contains(.userInput) { return "strength.warning.userInput" }
        if kinds.contains(.spatial) { return "strength.warning.keyboard" }
        if kinds.contains(.repeat) { return "strength.warning.repeat" }
        if kinds.contains(.sequence) { return "strength.warning.sequence" }
        if kinds.contains(.date) { return "strength.warning.date" }
        return score < 3 ? "strength.warning.short" : nil
    }
}
