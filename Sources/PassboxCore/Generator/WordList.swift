/// A diceware word list (7,776 words, log2(7776) ≈ 12.9 bits a word), compiled into the binary.
public struct WordList: Sendable {
    public let language: String
    public let words: [String]
    /// Where the words with a Unicode scalar that is not alphabetic are (the English list's "t-shirt"),
    /// ascending: only they can hold a separator without an alphabetic scalar, so a phrase's draw looks at them
    /// alone instead of filtering every word.
    let unusual: [Int]

    init(language: String, words: [String]) {
        self.language = language
        self.words = words
        unusual = words.indices.filter { words[$0].unicodeScalars.contains { !$0.properties.isAlphabetic } }
    }

    /// The EFF large word list (CC-BY-3.0, Electronic Frontier Foundation).
    public static let english = WordList(language: "en", words: englishWords.split(separator: " ").map(String.init))
    /// The German diceware list (CC-BY-3.0, Uli Fouquet).
    public static let german = WordList(language: "de", words: germanWords.split(separator: " ").map(String.init))

    public static func named(_ language: String) -> WordList? {
        switch language.lowercased() {
        case "en", "english": .english
        case "de", "german", "deutsch": .german
        default: nil
        }
    }
}
