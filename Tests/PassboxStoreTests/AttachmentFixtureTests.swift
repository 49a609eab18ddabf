import Foundation
import PassboxCore
import PassboxCrypto
@testable import PassboxStore
import PassboxTestKit
import Testing

/// `Fixtures/attachments-v1/`, made once (by `makeFixture` below, with PASSBOX_MAKE_ATTACHMENT_FIXTURE set to
/// a folder) and never regenerated: a Document item as a vault payload packs it (`item.msgpack`, with its
/// attachment's reference and key) and the attachment's blob (`blobs/ID`), 70,000 bytes of i mod 251 padded
/// to one 128 KiB bucket. Both keep opening: the item's packing and blob format 1 are pinned.
@Suite struct AttachmentFixtureTests {
    static let folder = "Fixtures/attachments-v1"
    static let blobID = "5b4f3a0c9d2e8f1a6b7c0d3e4f5a6b7c"

    @Test func theFilesNeverChangeAndTheAttachmentOpens() throws {
        let itemURL = try #require(Bundle.module.url(forResource: "\(Self.folder)/item", withExtension: "msgpack"))
        let blobURL = try #require(Bundle.module.url(forResource: "\(Self.folder)/blobs/\(Self.blobID)", withExtension: nil))
        let itemBytes = Array(try Data(contentsOf: itemURL))
        let blobBytes = Array(try Data(contentsOf: blobURL))
        #expect(Hex.string(Hash.sha256(itemBytes)) == "5e55b716ea591c32a244c95aa304943403dcc80cc66b275920b19080025a55a9")
        #expect(Hex.string(Hash.sha256(blobBytes)) == "b8cf27e556001b490979098f8a6322cd2bb848519913afe0ed2393ec2b15517d")
        #expect(blobBytes.count == 24 + 2 * (65_536 + 17))

        let item = try itemBytes.withUnsafeBytes { try Item(unpacking: $0) }
        #expect(item.category == .document && item.title == "Passport")
        #expect(item.value(of: "expiry") == "2031-05-31")
        let a = try #require(item.attachments.first)
        #expect(item.attachments.count == 1)
        #expect(a.id == Self.blobID && a.name == "passport.txt" && a.mediaType == "text/plain" && a.size == 70_000 && a.format == 1)
        #expect(a.added == Date(timeIntervalSince1970: 1_796_000_000))
        #expect(item.packed() == itemBytes, "packing it again gives the same bytes")

        let dir = try TemporaryDirectory()
        let store = BlobStore(vaultDirectory: dir.path)
        try FileManager.default.createDirectory(atPath: store.directory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: blobURL.path, toPath: store.path(a.id))
        var out = [UInt8]()
        try store.read(a) { out.append(contentsOf: $0) }
        #expect(out == BlobStoreTests.pattern(70_000))
    }

    /// Made the fixture once; kept to say how, and never run in the suite.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["PASSBOX_MAKE_ATTACHMENT_FIXTURE"] != nil))
    func makeFixture() throws {
        let target = try #require(ProcessInfo.processInfo.environment["PASSBOX_MAKE_ATTACHMENT_FIXTURE"])
        let store = BlobStore(vaultDirectory: target)
        let bytes = BlobStoreTests.pattern(70_000)
        var offset = 0
        let a = try store.add(id: Self.blobID, name: "passport.txt", mediaType: "text/plain", now: Date(timeIntervalSince1970: 1_796_000_000)) { buffer in
            let n = min(buffer.count, bytes.count - offset)
            bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: n) }
            offset += n
            return n
        }
        var item = Item(id: "01J0FIXTUREDOCUMENT0000000", category: .document, title: "Passport")
        item.setValue("2031-05-31", for: "expiry")
        item.fields[0].id = "expiry01"
        item.created = Date(timeIntervalSince1970: 1_796_000_000)
        item.attachments = [a]
        try Data(item.packed()).write(to: URL(fileURLWithPath: target + "/item.msgpack"))
    }
}
