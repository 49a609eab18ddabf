import Foundation
import PassboxStore
import PassboxTestKit
import Testing

@testable import PassboxCLI

/// `settings.json` version 1, as written once (Transcripts/settings-v1.json): every field reads back, and a
/// file from before the version field (or with unknown keys) still reads.
@Suite struct SettingsFixtureTests {
    /// A settings file made once, read from a data directory of its own; it must read without damage.
    static func loaded(_ fixture: String) throws -> LoadedSettings {
        let dir = try TemporaryDirectory("passbox-settings")
        let url = try #require(Bundle.module.url(forResource: fixture, withExtension: nil))
        try FileManager.default.copyItem(at: url, to: dir.file("settings.json"))
        let loaded = Settings.loadChecked(dir.path)
        #expect(loaded.damagedPath == nil, "\(fixture) read as damaged")
        return loaded
    }

    @Test func versionOneFileReads() throws {
        let dir = try TemporaryDirectory("passbox-settings")
        let fixture = try #require(Bundle.module.url(forResource: "Transcripts/settings-v1.json", withExtension: nil))
        try FileManager.default.copyItem(at: fixture, to: dir.file("settings.json"))
        let settings = Settings.load(dir.path)
        #expect(settings.v == 1)
        #expect(settings.autoLockMinutes == 15)
        #expect(settings.breachCheck)
        #expect(settings.quickUnlock == false)
        #expect(settings.reminderDays == 30)
        #expect(settings.rangeURL == "http://127.0.0.1:8999/range/")
    }

    /// The keys the web UI added (still version 1: readers that do not know them ignore them), as written once.
    @Test func theWebUIsKeysRead() throws {
        let loaded = try Self.loaded("Transcripts/settings-v1-web.json")
        #expect(loaded.settings.clipboardSeconds == 45 && loaded.settings.effectiveClipboardSeconds == 45)
        #expect(loaded.settings.webLanguage == "de" && loaded.settings.webTheme == "light" && loaded.settings.webShortcuts == false)
        // Out of range, the clipboard time is the default.
        var wide = loaded.settings
        wide.clipboardSeconds = 100_000
        #expect(wide.effectiveClipboardSeconds == Settings.defaultClipboardSeconds)
    }

    /// Issue 34 (SEC-14): where the agent last matched the breach catalogue, a date in seconds since 1970.
    @Test func theBreachMarkReads() throws {
        let loaded = try Self.loaded("Transcripts/settings-v1-breaches.json")
        #expect(loaded.settings.breachesSeenUntil == 1_764_892_800 && loaded.settings.autoLockMinutes == 15 && loaded.settings.breachCheck)
    }

    /// The address a vault without an account refreshes its breach catalogue from (SEC-14), made once.
    @Test func theCatalogueAddressReads() throws {
        let loaded = try Self.loaded("Transcripts/settings-v1-catalogue.json")
        #expect(loaded.settings.breachCatalogueURL == Settings.defaultBreachCatalogueURL && loaded.settings.breachesSeenUntil == 1_764_979_200)
    }

    @Test func olderAndUnknownKeysStillRead() throws {
        let dir = try TemporaryDirectory("passbox-settings")
        try #"{"breachCheck": true, "somethingNewer": [1, 2]}"#.write(to: dir.file("settings.json"), atomically: true, encoding: .utf8)
        let settings = Settings.load(dir.path)
        #expect(settings.breachCheck)
        #expect(settings.quickUnlock == nil && settings.autoLockMinutes == nil)
    }

    /// A file that does not parse, or holds a value outside the choices, means the strictest settings, and
    /// says which file: never looser defaults.
    @Test(arguments: ["not json", "{}x", #"{"autoLockMinutes": 9999}"#, #"{"reminderDays": 1000}"#, #"{"quickUnlock": "yes"}"#])
    func damagedFileMeansStrictest(_ text: String) throws {
        let dir = try TemporaryDirectory("passbox-settings")
        try text.write(to: dir.file("settings.json"), atomically: true, encoding: .utf8)
        let loaded = Settings.loadChecked(dir.path)
        #expect(loaded.damagedPath == dir.path + "/settings.json")
        #expect(loaded.settings.quickUnlock == false)
        #expect(loaded.settings.effectiveAutoLockMinutes == 1)
        #expect(loaded.settings.breachCheck == false)
    }
}
