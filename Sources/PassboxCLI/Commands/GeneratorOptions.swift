import Foundation
import PassboxCore

/// The generator settings shared by `generate`, `add --generate` and `edit --generate`.
enum GeneratorOptions {
    static let valued: Set<String> = ["length", "words", "separator", "language"]
    static let flags: Set<String> = ["no-upper", "no-lower", "no-digits", "no-symbols", "allow-similar", "capitalize", "digit"]

    /// A password (characters) or passphrase (`--words N`) and its entropy in bits.
    static func generate(_ args: Arguments) throws -> (password: String, bits: Double) {
        if let words = args.value("words") {
            guard let n = Int(words) else { throw CLIError.usage("--words takes a number") }
            let language = args.value("language") ?? "en"
            guard let list = WordList.named(language) else { throw CLIError.usage("unknown word list \"\(language)\"", hint: "use --language en or --language de") }
            let g = PassphraseGenerator(wordCount: n, separator: args.value("separator") ?? "-", capitalize: args.flag("capitalize"), includeDigit: args.flag("digit"), list: list)
            return (try g.generate(), g.entropyBits)
        }
        var g = PasswordGenerator()
        if let length = args.value("length") {
            guard let n = Int(length) else { throw CLIError.usage("--length takes a number") }
            g.length = n
        }
        g.uppercase = !args.flag("no-upper")
        g.lowercase = !args.flag("no-lower")
        g.digits = !args.flag("no-digits")
        g.symbols = !args.flag("no-symbols")
        g.avoidSimilar = !args.flag("allow-similar")
        return (try g.generate(), g.entropyBits)
    }
}
