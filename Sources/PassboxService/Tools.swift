import Foundation
import PassboxCore
import PassboxProtocol

/// Operations that need no vault: the generators and the strength estimate.
public enum Tools {
    public static func generate(_ r: GeneratorRequest) throws -> GeneratedReply {
        if let words = r.words {
            let language = r.language ?? "en"
            guard let list = WordList.named(language) else { throw ProtocolError(.invalidGenerator, ["reason": "language", "value": language]) }
            let g = PassphraseGenerator(wordCount: words, separator: r.separator ?? "-", capitalize: r.capitalize, includeDigit: r.includeDigit, list: list)
            return GeneratedReply(password: try g.generate(), entropyBits: g.entropyBits)
        }
        var g = PasswordGenerator()
        if let length = r.length { g.length = length }
        g.uppercase = r.uppercase
        g.lowercase = r.lowercase
        g.digits = r.digits
        g.symbols = r.symbols
        g.avoidSimilar = !r.allowSimilar
        return GeneratedReply(password: try g.generate(), entropyBits: g.entropyBits)
    }

    /// The strength of `password`; `libraryMissing` when libzxcvbn cannot be loaded (never a made-up score).
    public static func strength(_ password: String, userInputs: [String] = []) throws -> StrengthReply {
        try PasswordStrength.checkAvailability()
        let s = PasswordStrength.estimate(password, userInputs: userInputs)
        return StrengthReply(score: s.score, guessesLog10: s.guessesLog10, warning: s.warningKey, suggestions: s.suggestionKeys)
    }
}
