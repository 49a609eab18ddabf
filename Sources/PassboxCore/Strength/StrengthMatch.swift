/// One part of a password as the strength estimate sees it: characters `start..<end` (Unicode scalars)
/// matched by a pattern that an attacker would guess in about 10^`guessesLog10` tries.
struct StrengthMatch: Sendable {
    enum Pattern: Sendable, Equatable {
        case dictionary, userInput, spatial, `repeat`, sequence, date, bruteForce
    }

    let start: Int
    let end: Int
    let pattern: Pattern
    let guessesLog10: Double

    var length: Int { end - start }
}
