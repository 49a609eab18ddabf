import Foundation
import PassboxStore
import PassboxTestKit
import Testing

/// `browsers.json` format 1 (Fixtures/browsers-v1.json): it reads, this build writes it back byte for byte, and
/// a damaged or newer file is refused rather than treated as empty (a save would drop the pairings).
@Suite struct PairedBrowsersTests {
    @Test func formatOneReadsAndWritesBackTheSameBytes() throws {
        let dir = try TemporaryDirectory("passbox-browsers")
        let fixture = try #require(Bundle.module.url(forResource: "Fixtures/browsers-v1.json", withExtension: nil))
        let bytes = try Data(contentsOf: fixture)
        try bytes.write(to: dir.file("browsers.json"))
        let file = try PairedBrowsers.load(dir.path)
        #expect(file.format == 1 && file.browsers.count == 1)
        let browser = try #require(file.browsers.first)
        #expect(browser.id == "5f0c2a9d1e7b4c63" && browser.browser == "chromium" && browser.name == "Chromium on desk")
        #expect(browser.publicKey == "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo")
        #expect(browser.pairedAt == ISO8601DateFormatter().date(from: "2026-12-04T14:58:40Z"))
        let out = try TemporaryDirectory("passbox-browsers-out")
        try file.save(out.path)
        #expect(try Data(contentsOf: out.file("browsers.json")) == bytes)
        let mode = try FileManager.default.attributesOfItem(atPath: out.file("browsers.json").path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func aMissingFileIsNoPairingAndADamagedOrNewerOneIsRefused() throws {
        let dir = try TemporaryDirectory("passbox-browsers")
        #expect(try PairedBrowsers.load(dir.path).browsers.isEmpty)
        for text in ["{", #"{"format":2,"browsers":[]}"#, #"{"format":1}"#, ""] {
            try Data(text.utf8).write(to: dir.file("browsers.json"))
            #expect(throws: PairedBrowsers.Damaged.self) { try PairedBrowsers.load(dir.path) }
        }
    }
}
