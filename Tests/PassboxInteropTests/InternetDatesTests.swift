import Foundation
import Testing

@testable import PassboxInterop

/// Export times parse as ISO8601DateFormatter parsed them (RFC 3339, whole or fractional seconds, "Z" or an
/// offset), and what it refused is refused.
@Suite struct InternetDatesTests {
    static func formatter(_ text: String) -> Date? {
        let f = ISO8601DateFormatter()
        if let d = f.date(from: text) { return d }
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.date(from: text)
    }

    @Test(arguments: [
        "2024-01-02T03:04:05Z", "2024-01-02T03:04:05.123Z", "2024-01-02T03:04:05+02:00", "2024-01-02T03:04:05.5-05:30", "1999-12-31T23:59:59Z",
        "2016-02-29T12:00:00.000001Z",
    ])
    func agreesWithTheFormatter(_ text: String) throws {
        let parsed = try #require(InternetDates.parse(text))
        let expected = try #require(Self.formatter(text))
        #expect(abs(parsed.timeIntervalSince(expected)) < 0.001, "\(text): \(parsed) against \(expected)")
    }

    @Test(arguments: ["", "2024-01-02", "yesterday", "2024-13-02T03:04:05Z", "2024-01-02 03:04:05"])
    func refusesWhatTheFormatterRefused(_ text: String) {
        #expect(InternetDates.parse(text) == nil)
        #expect(Self.formatter(text) == nil)
    }
}
