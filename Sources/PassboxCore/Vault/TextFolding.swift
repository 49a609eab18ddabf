import Foundation

/// Case- and accent-insensitive comparison keys, with a fast path for ASCII text (most titles), since
/// Foundation's folding costs microseconds per string and lists fold every title.
public enum TextFolding {
    public static func fold(_ text: String) -> String {
        var ascii = true
        var hasUpper = false
        for byte in text.utf8 {
            if byte >= 0x80 { ascii = false; break }
            if byte >= 0x41 && byte <= 0x5a { hasUpper = true }
        }
        if ascii { return hasUpper ? String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5a ? $0 + 32 : $0 }, as: UTF8.self) : text }
        return text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }
}
