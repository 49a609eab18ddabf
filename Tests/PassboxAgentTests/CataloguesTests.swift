import Foundation
import PassboxService
import PassboxTestKit
import Testing

/// The catalogues are parsed once and kept for the process (an agent's checks then skip the 150 ms), and a
/// file replaced since, as `passbox check update-data` does from another process, is read again.
@Suite struct CataloguesTests {
    static func breaches(_ domain: String) -> Data {
        Data(#"[{"Name":"Probe","Title":"Probe","Domain":"\#(domain)","AddedDate":"2026-01-02T03:04:05Z","BreachDate":"2025-12-01","PwnCount":7}]"#.utf8)
    }

    @Test func keptCataloguesFollowAReplacedFile() throws {
        let dir = try TemporaryDirectory("passbox-catalogues")
        let shipped = try Catalogues.load(directory: dir.path)
        #expect(shipped.0.breaches.count > 100 && !shipped.1.sites.isEmpty)
        #expect(try Catalogues.load(directory: dir.path).0.breaches.count == shipped.0.breaches.count)

        try Catalogues.replace(Catalogues.breachesFile, with: Self.breaches("probe.example"), directory: dir.path)
        let replaced = try Catalogues.load(directory: dir.path)
        #expect(replaced.0.breaches.map(\.domain) == ["probe.example"])
        #expect(replaced.1.sites.count == shipped.1.sites.count)
        // Replaced again by a file of the same size: still read again (a new file is another inode).
        try Catalogues.replace(Catalogues.breachesFile, with: Self.breaches("other.example"), directory: dir.path)
        #expect(try Catalogues.load(directory: dir.path).0.breaches.map(\.domain) == ["other.example"])
        // Removed: the shipped snapshot again.
        try FileManager.default.removeItem(atPath: dir.path + "/" + Catalogues.breachesFile)
        #expect(try Catalogues.load(directory: dir.path).0.breaches.count == shipped.0.breaches.count)
    }

    /// The passkey list (the Passkeys Directory, shipped) is kept and followed the same way; a file that does not
    /// parse is refused and the kept one stays.
    @Test func thePasskeyListIsShippedAndReplaceable() throws {
        let dir = try TemporaryDirectory("passbox-catalogues-passkeys")
        #expect(try Catalogues.passkeySites(directory: dir.path).sites.count == 258)
        try Catalogues.replace(Catalogues.passkeysFile, with: Data(#"[["Probe",{"domain":"probe.example","passwordless":"allowed"}]]"#.utf8), directory: dir.path)
        #expect(try Catalogues.passkeySites(directory: dir.path).sites.map(\.domains) == [["probe.example"]])
        #expect(throws: (any Error).self) { try Catalogues.replace(Catalogues.passkeysFile, with: Data("{}".utf8), directory: dir.path) }
        #expect(try Catalogues.passkeySites(directory: dir.path).sites.count == 1)
    }
}
