import Foundation
internal import CZxcvbnSupport

/// A zxcvbn-style estimate of how guessable a password is, computed by Debian's libzxcvbn (the C port of
/// Dropbox's zxcvbn: dictionary, keyboard-pattern, sequence, repeat and date matching). libzxcvbn is loaded
/// with dlopen on first use, from any thread; `unavailability` says when it cannot be.
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

    /// The label of the score ("strong"), in English.
    public var label: String { label(.english) }
    public func label(_ language: Language) -> String { Localization.tr("strength.label.\(score)", language) }
    /// The warning, in English.
    public var warning: String? { warning(.english) }
    public func warning(_ language: Language) -> String? { warningKey.map { Localization.tr($0, language) } }
    /// The suggestions, in English.
    public var suggestions: [String] { suggestions(.english) }
    public func suggestions(_ language: Language) -> [String] { suggestionKeys.map { Localization.tr($0, language) } }

    /// Estimates the strength of `password`; `userInputs` (title, username, site) count as known words.
    ///
    /// Without libzxcvbn (see `unavailability`) every password scores 0, so nothing is called strong that was
    /// not rated; callers that show a score should call `checkAvailability()` first.
    public static func estimate(_ password: String, userInputs: [String] = []) -> PasswordStrength {
        guard CZxcvbn_available() != 0 else { return PasswordStrength(score: 0, guessesLog10: 0, warningKey: nil, suggestionKeys: []) }
        var info: UnsafeMutablePointer<ZxcMatch_t>?
        _ = withCStrings(userInputs) { dictionary in
            password.withCString { CZxcvbn_match($0, dictionary, &info) }
        }
        var kinds = [ZxcTypeMatch_t]()
        // libzxcvbn finds the matches (dictionary, keyboard, sequence, repeat, date, brute force) and their
        // entropies; they are combined the way the reference zxcvbn does, so scores agree with it:
        // guesses = l! × Π guesses(match) + 10000^(l−1) for l matches, where a run of random characters costs
        // 10 guesses a character (libzxcvbn prices it at the full character set, rating "u8jzPd" very strong).
        // A match that costs more than brute force over its characters would not be chosen by the reference
        // (it takes the cheapest decomposition), so such matches count as brute force, and neighbouring
        // brute-force runs merge into one.
        var parts = [(brute: Bool, length: Int, log10: Double)]()
        var cursor = info
        while let match = cursor {
            let type = match.pointee.Type.rawValue % 32
            let length = Int(match.pointee.Length)
            let log10Guesses = max(0, match.pointee.Entrpy) * 0.301_029_995_7
            let brute = type == BRUTE_MATCH.rawValue || log10Guesses > Double(length)
            if brute, let last = parts.last, last.brute {
                parts[parts.count - 1].length += length
            } else {
                parts.append((brute, length, log10Guesses))
            }
            if !brute, length * 2 >= password.count || length >= 4 { kinds.append(ZxcTypeMatch_t(rawValue: type)) }
            cursor = match.pointee.Next
        }
        let productLog10 = parts.reduce(0.0) { sum, part in
            sum + (part.brute ? max(Double(part.length), part.length == 1 ? log10(11) : log10(51)) : part.log10)
        }
        let count = parts.count
        CZxcvbn_freeInfo(info)
        let l = max(count, 1)
        let combined = (1...l).reduce(0.0) { $0 + log10(Double($1)) } + productLog10
        let sequence = 4.0 * Double(l - 1)
        let guessesLog10 = max(combined, sequence) + Foundation.log10(1 + pow(10, min(combined, sequence) - max(combined, sequence)))
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

    private static func warningKey(for kinds: [ZxcTypeMatch_t], score: Int) -> String? {
        guard score < 4 else { return nil }
        if kinds.contains(DICTIONARY_MATCH) || kinds.contains(DICT_LEET_MATCH) {
            return score < 3 ? "strength.warning.common" : "strength.warning.containsWord"
        }
        if kinds.contains(USER_MATCH) || kinds.contains(USER_LEET_MATCH) { return "strength.warning.userInput" }
        if kinds.contains(SPATIAL_MATCH) { return "strength.warning.keyboard" }
        if kinds.contains(REPEATS_MATCH) { return "strength.warning.repeat" }
        if kinds.contains(SEQUENCE_MATCH) { return "strength.warning.sequence" }
        if kinds.contains(DATE_MATCH) || kinds.contains(YEAR_MATCH) { return "strength.warning.date" }
        return score < 3 ? "strength.warning.short" : nil
    }

    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = strings.filter { !$0.isEmpty }.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        var pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) } + [nil]
        return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    }
}
