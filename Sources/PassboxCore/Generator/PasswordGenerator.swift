import Foundation
import PassboxCrypto

/// Random passwords from character classes. Every choice is uniform (libsodium's `randombytes_uniform`,
/// which rejects and redraws rather than taking a biased modulo).
public struct PasswordGenerator: Sendable, Equatable {
    public var length: Int
    public var uppercase: Bool
    public var lowercase: Bool
    public var digits: Bool
    public var symbols: Bool
    /// Leaves out characters that are easy to confuse: 0 O o 1 l I | ` ' " and similar.
    public var avoidSimilar: Bool

    public static let lengthRange = 8...128

    public init(length: Int = 20, uppercase: Bool = true, lowercase: Bool = true, digits: Bool = true, symbols: Bool = true, avoidSimilar: Bool = true) {
        self.length = length
        self.uppercase = uppercase
        self.lowercase = lowercase
        self.digits = digits
        self.symbols = symbols
        self.avoidSimilar = avoidSimilar
    }

    static let similar: Set<Character> = ["0", "O", "o", "1", "l", "I", "|", "`", "'", "\"", "5", "S", "2", "Z", "8", "B", ",", ".", ";", ":"]

    /// The character classes in use, each already filtered.
    public var classes: [[Character]] {
        var out = [[Character]]()
        func add(_ s: String) {
            let chars = s.filter { !avoidSimilar || !PasswordGenerator.similar.contains($0) }
            if !chars.isEmpty { out.append(Array(chars)) }
        }
        if uppercase { add("ABCDEFGHIJKLMNOPQRSTUVWXYZ") }
        if lowercase { add("abcdefghijklmnopqrstuvwxyz") }
        if digits { add("0123456789") }
        if symbols { add("!#$%&()*+-/<=>?@[]^_{}~") }
        return out
    }

    /// Bits of entropy of a password drawn with these settings (an upper bound that ignores the
    /// at-least-one-of-each rule, which removes a negligible share of the space at these lengths).
    public var entropyBits: Double {
        let alphabet = classes.reduce(0) { $0 + $1.count }
        return alphabet > 0 ? Double(length) * log2(Double(alphabet)) : 0
    }

    /// Checks the settings, saying what to change.
    public func validate() throws {
        guard PasswordGenerator.lengthRange.contains(length) else {
            throw ValidationError("generator.length")
        }
        guard !classes.isEmpty else {
            throw ValidationError("generator.noClass")
        }
        guard classes.count <= length else { throw ValidationError("generator.shorterThanClasses") }
    }

    /// A new password with at least one character of each class in use. Draws uniformly from the whole
    /// alphabet and redraws when a class is missing (rejection sampling keeps the result uniform over all
    /// passwords that meet the rule).
    public func generate() throws -> String {
        try validate()
        let alphabet = classes.flatMap { $0 }
        while true {
            let chars = (0..<length).map { _ in alphabet[Int(SecureRandom.uniform(UInt32(alphabet.count)))] }
            if classes.allSatisfy({ cls in chars.contains(where: cls.contains) }) { return String(chars) }
        }
    }
}
