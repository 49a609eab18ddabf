import Foundation
@testable import PassboxCore
import Testing
import PassboxWording

@Suite struct LocalizationTests {
    @Test func bothLanguagesHaveTheSameKeysAndPlaceholders() {
        #expect(Localization.keys(.english) == Localization.keys(.german))
        for key in Localization.keys(.english) {
            #expect(Localization.placeholders(key, .english) == Localization.placeholders(key, .german), "\(key)")
        }
    }

    /// German addresses people as "Sie" throughout: no "du", "dich", "dir" or "dein…" (and so none of the
    /// "du" imperatives that came with them).
    @Test func germanSaysSie() throws {
        let informal = try NSRegularExpression(pattern: #"\b(du|dich|dir|dein|deine|deinen|deinem|deiner|deines)\b"#, options: [.caseInsensitive])
        let offending = Localization.keys(.german).filter { key in
            let text = Localization.tr(key, .german)
            return informal.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
        }
        #expect(offending.isEmpty, "\(offending.sorted())")
        #expect(Localization.tr("error.importDamaged.hint", .german).contains("exportieren Sie sie erneut"))
    }

    @Test func placeholdersAreFilled() {
        #expect(Localization.tr("search.none", .german, ["query": "bank"]) == "Keine Einträge passen zu „bank“.")
        #expect(Localization.tr("strength.label.3", .german) == "stark")
        // A value is put in as it is, never searched for placeholders again (an item title may hold braces);
        // braces that name no argument stay.
        #expect(Localization.tr("search.none", .english, ["query": "{query} {count}"]).contains("{query} {count}"))
        #expect(Localization.fill("{a}{b} {c} {a", ["a": "1", "b": "{a}"]) == "1{a} {c} {a")
        #expect(Localization.fill("no braces", ["a": "1"]) == "no braces")
    }

    @Test func languageComesFromTheEnvironment() {
        #expect(Language.fromEnvironment(["LANG": "de_DE.UTF-8"]) == .german)
        #expect(Language.fromEnvironment(["PASSBOX_LANG": "en", "LANG": "de_DE.UTF-8"]) == .english)
        #expect(Language.fromEnvironment([:]) == .english)
    }

    @Test func strengthExplainsInBothLanguages() {
        let s = PasswordStrength.estimate("password")
        // Core gives keys; the surfaces word them.
        #expect(s.warningKey.map { Localization.tr($0, .german) } == "Das ähnelt einem häufig verwendeten Passwort oder Wort.")
        #expect(s.suggestionKeys.map { Localization.tr($0, .german) }.count == 2)
        #expect(Localization.tr("strength.label.\(s.score)", .german) == "sehr schwach")
    }
}
