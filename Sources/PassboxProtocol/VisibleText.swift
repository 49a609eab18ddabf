import Foundation

/// Text from a vault or from outside made safe to print, and how wide it shows: the CLI prints with it and
/// the agent measures the item table's columns with it (so `passbox list` can print each page as it comes,
/// padded to widths the agent worked out over the whole listing).
public enum VisibleText {
    /// Text from the vault or from outside (titles, notes, error facts) made safe to print: C0 and C1
    /// control characters (but newline and tab), DEL and the bidirectional overrides and isolates are shown
    /// as `\u{1B}` instead of being sent to the terminal, so an item cannot move the cursor, write the
    /// clipboard (OSC 52), hide text or reorder it.
    public static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isHidden) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isHidden(scalar) {
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// One line of text from an item or an outsider (a title, a label, a name): `visible`, and line feeds and
    /// tabs shown as `\u{A}` and `\u{9}` too, so a value cannot start a row of its own or shift columns.
    public static func visibleLine(_ text: String) -> String {
        let shown = visible(text)
        guard shown.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\t" }) else { return shown }
        return shown.replacingOccurrences(of: "\n", with: "\\u{A}").replacingOccurrences(of: "\t", with: "\\u{9}")
    }

    public static func isHidden(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x0A, 0x09: false
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
        default: false
        }
    }
}
