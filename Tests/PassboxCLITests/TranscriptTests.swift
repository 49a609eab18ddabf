import Foundation
import PassboxTestKit
import Testing

/// Runs every transcript in Transcripts/ against the real `passbox` executable, each in a fresh data directory.
@Suite struct TranscriptTests {
    static let names: [String] = {
        guard let dir = Bundle.module.url(forResource: "Transcripts", withExtension: nil),
            let files = try? FileManager.default.contentsOfDirectory(atPath: dir.path)
        else { return [] }
        return files.filter { $0.hasSuffix(".transcript") }.sorted()
    }()

    @Test func transcriptsExist() {
        #expect(TranscriptTests.names.count >= 4)
    }

    @Test(arguments: names) func transcript(_ name: String) throws {
        let url = try #require(Bundle.module.url(forResource: "Transcripts/\(name)", withExtension: nil))
        let transcript = try Transcript(text: String(contentsOf: url, encoding: .utf8))
        let dir = try TemporaryDirectory("passbox-cli")
        try transcript.run(executable: try Transcript.executablePath(), dataDirectory: dir.path + "/data", fixtures: url.deletingLastPathComponent().path + "/images")
    }
}
