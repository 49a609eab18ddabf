import Foundation
import PassboxManifest
import PassboxStore
import PassboxTestKit
import Testing

/// `sharing.json` format 1 (Fixtures/sharing-v1.json, written by a real `passbox org` session): pins, a
/// pending key change, a kept member list head (member list format 1) and a warning all read; a save reads
/// back the same; a damaged or newer file is refused rather than treated as empty (a save would drop pins).
@Suite struct SharingFileTests {
    @Test func formatOneReadsWithItsMemberListHead() throws {
        let dir = try TemporaryDirectory("passbox-sharing-file")
        let fixture = try #require(Bundle.module.url(forResource: "Fixtures/sharing-v1.json", withExtension: nil))
        try Data(contentsOf: fixture).write(to: dir.file("sharing.json"))
        let file = try SharingFile.load(dir.path)
        let bob = try #require(file.contact(server: "http://127.0.0.1:18556", email: "bob@example.org"))
        #expect(bob.accountID == "QGW5PA" && bob.compared && bob.pendingAccountID == "1XMG1R")
        let pinned = try KeyBundle(Array(bob.bundle), accountID: bob.accountID)
        #expect(pinned.keys.securityCode.description.hasPrefix("48511 02591 84388 04091"))
        #expect(try KeyBundle(Array(try #require(bob.pending)), accountID: "1XMG1R").keys != pinned.keys)
        let kept = try #require(file.list(server: "http://127.0.0.1:18556", orgID: "663dc98fb4be2f329fd76d34"))
        let head = try MemberListVersion(decoding: Array(kept))
        #expect(head.version == 4 && head.name == "Doe family" && head.kind == .family && head.epoch == 1)
        #expect(Set(head.members.map(\.email)) == ["bob@example.org", "ann@example.org"] && head.member("QGW5PA")?.role == .member)
        #expect(head.groups.map(\.name) == ["Kids"] && head.groups[0].members == ["QGW5PA"])
        #expect(head.access(vault: "family-663dc98fb4be2f329fd76d34", account: "QGW5PA") == .edit, "the family vault, to edit")
        #expect(head.isSigned(by: try #require(head.member(head.signer)).keys.signPublicKey))
        #expect(file.lists.first?.code == "8bpiIeGwXaLr9b19UHV2NI3ByG0")
        #expect(file.warnings.count == 1 && file.warnings[0].kind == "keyChanged" && file.warnings[0].seen == ISO8601DateFormatter().date(from: "2026-12-04T18:10:00Z"))

        let out = try TemporaryDirectory("passbox-sharing-file-out")
        try file.save(out.path)
        #expect(try SharingFile.load(out.path) == file)
        let mode = try FileManager.default.attributesOfItem(atPath: out.file("sharing.json").path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func aMissingFileIsEmptyAndADamagedOrNewerOneIsRefused() throws {
        let dir = try TemporaryDirectory("passbox-sharing-file")
        #expect(try SharingFile.load(dir.path) == SharingFile())
        for text in ["{", #"{"v":2,"contacts":[],"lists":[],"warnings":[]}"#, #"{"v":1}"#, ""] {
            try Data(text.utf8).write(to: dir.file("sharing.json"))
            #expect(throws: (any Error).self) { try SharingFile.load(dir.path) }
        }
    }
}
