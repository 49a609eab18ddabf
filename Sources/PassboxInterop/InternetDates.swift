import Foundation

/// RFC 3339 times as exports write them ("2024-01-02T03:04:05Z", with or without fractional seconds, "Z" or
/// an offset): Foundation's `Date.ISO8601FormatStyle`, which parses without ICU. A new ISO8601DateFormatter
/// per value (an ICU formatter built each time) was 58 % of importing a KDBX 3.1 file of 10,000 entries,
/// whose five times an entry are text. The style is more lenient at the edges than that formatter was
/// (text after the time, "GMT", an hour-only offset); an import's times are only shown and kept, never
/// trusted for anything, so a lenient reading of a strange one costs nothing.
enum InternetDates {
    static let style = Date.ISO8601FormatStyle()

    static func parse(_ text: String) -> Date? {
        try? style.parse(text)
    }
}
