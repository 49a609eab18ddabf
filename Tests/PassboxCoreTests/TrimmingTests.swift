import Foundation
import PassboxCore
import Testing

/// `trimmingWhitespace` answers as Foundation's `trimmingCharacters` does for both whitespace sets, whatever
/// sits at the ends (it only skips Foundation when both ends are printable ASCII other than a space).
@Suite struct TrimmingTests {
    static let samples = [
        "", " ", "\t\n", "plain", " padded ", "\tTabbed\n", "a b", "https://example.com", "x\u{00A0}", "\u{00A0}x", "\u{3000}全角\u{3000}",
        "line\u{2028}", "\u{0085}next", "\u{2009}thin", "Straße", "ß", "émigré ", "\u{200B}zero-width\u{200B}", "~", "!x!", "\u{7F}del",
        "\r\ncrlf\r\n", "\u{1680}ogham",
    ]

    @Test(arguments: samples) func agreesWithFoundation(_ text: String) {
        #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(text.trimmingWhitespace(newlines: false) == text.trimmingCharacters(in: .whitespaces))
        #expect(text[...].trimmingWhitespace() == text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
