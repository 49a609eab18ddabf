import Foundation
import PassboxCrypto

/// Random passphrases of diceware words, each chosen uniformly with libsodium's `randombytes_uniform`.
public struct PassphraseGenerator: Sendable {
    public var wordCount: Int
    public var separator: String
    /// Capitalise the first letter of every word (adds no entropy; satisfies sites that want capitals).
    public var capitalize: Bool
    /// Append one random digit to one random word.
    public var includeDigit: Bool
    public var list: WordList

    public static let wordCountRange = 3...10

    public init(wordCount: Int = 5, separator: String = "-", capitalize: Bool = false, includeDigit: Bool = false, list: WordList = .english) {
        self.wordCount = wordCount
        self.separator = separator
        self.capitalize = capitalize
        self.includeDigit = includeDigit
        self.list = list
    }

    /// The words a phrase draws from: the list without the words that contain the separator (the English
    /// list's "t-shirt" or "yo-yo" under "-"), so that a phrase always splits back into its words.
    public var candidates: [String] {
        let left = Set(excluded)
        return list.words.indices.filter { !left.contains($0) }.map { list.words[$0] }
    }

    /// Where the words left out under this separator are, ascending. A separator without an alphabetic scalar
    /// can only be inside the list's few words that hold a scalar that is not alphabetic (`WordList.unusual`);
    /// one with a letter is looked for in every word.
    var excluded: [Int] {
        if separator.isEmpty { return [] }
        let among = separator.unicodeScalars.contains { $0.properties.isAlphabetic } ? Array(list.words.indices) : list.unusual
        return among.filter { list.words[$0].contains(separator) }
    }

    /// Bits of entropy: each word log2 of the candidates (7,772 or 7,776); the digit log2(10 × words) (which
    /// digit, and after which word).
    public var entropyBits: Double {
        Double(wordCount) * log2(Double(list.words.count - excluded.count)) + (includeDigit ? log2(10 * Double(wordCount)) : 0)
    }

    /// The candidate numbered `n` (0 ..< the candidates' count): its place in the whole list, stepping over the
    /// words left out below it (the same word `candidates[n]` is, without making that array for every phrase).
    static func word(_ n: Int, in list: WordList, skipping excluded: [Int]) -> String {
        var at = n
        for left in excluded {
            guard left <= at else { break }
            at += 1
        }
        return list.words[at]
    }

    public func validate() throws {
        guard PassphraseGenerator.wordCountRange.contains(wordCount) else {
            throw ValidationError("passphrase.words")
        }
        guard separator.count <= 3 else { throw ValidationError("passphrase.separator") }
    }

    public func generate() throws -> String {
        try validate()
        let excluded = self.excluded
        let count = list.words.count - excluded.count
        var words = (0..<wordCount).map { _ in Self.word(Int(SecureRandom.uniform(UInt32(count))), in: list, skipping: excluded) }
        if capitalize { words = words.map { $0.prefix(1).uppercased() + $0.dropFirst() } }
        if includeDigit {
            let at = Int(SecureRandom.uniform(UInt32(wordCount)))
            words[at] += String(SecureRandom.uniform(10))
        }
        return words.joined(separator: separator)
    }
}
