import Foundation
import PassboxCore
import PassboxCrypto
import PassboxProtocol
import PassboxTestKit
import Testing

/// Attachments through a real agent: a file goes in encrypted and comes out the same, 0600 and never over
/// another file; each error code is provoked; a blob goes when nothing refers to it any longer, and a duress
/// vault's attachments and the real vault's never touch each other.
@Suite struct AgentAttachmentTests {
    /// The operations these tests send (AgentOperationTests checks every operation is sent somewhere).
    static let operations: Set<OperationName> = [.attach, .attachments, .detach, .saveAttachment]
    /// The error codes these tests provoke.
    static let errorCodes: Set<ErrorCode> = [
        .attachmentNotFound, .attachmentAmbiguous, .attachmentMissing, .attachmentDamaged, .attachmentTooLarge, .attachmentUnreadable, .attachmentOnLockedItem,
    ]

    func blobsFolder(_ agent: RealAgent) -> String { (agent.vaultPath as NSString).deletingLastPathComponent + "/blobs" }
    func blobs(_ agent: RealAgent) -> Set<String> { Set((try? FileManager.default.contentsOfDirectory(atPath: blobsFolder(agent))) ?? []) }
    func mode(_ path: String) throws -> Int { try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int ?? -1 }

    @Test func aFileGoesInEncryptedAndComesOutTheSame() throws {
        let agent = try RealAgent()
        try agent.unlock()
        let dir = try TemporaryDirectory()
        let passport = try agent.add("document", ItemChanges(title: "Passport"))
        let bytes = SecureRandom.bytes(count: 200_000)
        let source = dir.file("passport scan.pdf").path
        try Data(bytes).write(to: URL(fileURLWithPath: source))

        let added = try agent.send(.attach(AttachRequest(item: "Passport", path: source))).attachments()
        let a = try #require(added.changed)
        #expect(added.itemID == passport.id && added.attachments == [a])
        #expect(a.name == "passport scan.pdf" && a.mediaType == "application/pdf" && a.size == 200_000 && a.available)
        let blob = blobsFolder(agent) + "/" + a.id
        let stored = Array(try Data(contentsOf: URL(fileURLWithPath: blob)))
        let (blobMode, folderMode) = (try mode(blob), try mode(blobsFolder(agent)))
        #expect(stored.count == AttachmentFormat.blobLength(200_000) && blobMode == 0o600 && folderMode == 0o700)
        #expect(!ByteSearch.contains(stored, Array(bytes[5000..<5032])), "the blob does not hold the file's bytes")
        // The vault file does not hold the name in the clear either.
        #expect(!ByteSearch.contains(Array(try Data(contentsOf: URL(fileURLWithPath: agent.vaultPath))), Array("passport scan".utf8)))

        let out = dir.file("out.pdf").path
        let saved = try agent.send(.saveAttachment(SaveAttachmentRequest(item: "Passport", attachment: "passport scan.pdf", path: out))).attachmentSaved()
        #expect(saved.size == 200_000 && saved.path == out && saved.base64 == nil)
        let outMode = try mode(out)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: out))) == bytes && outMode == 0o600)
        #expect(try agent.failure(.saveAttachment(SaveAttachmentRequest(item: "Passport", attachment: a.id, path: out))).code == .fileExists)
        #expect(try agent.failure(.saveAttachment(SaveAttachmentRequest(item: "Passport", attachment: a.id, path: "relative.pdf"))).code == .badRequest)
        // By id prefix, and as base64 (what the web UI asks for).
        let inline = try agent.send(.saveAttachment(SaveAttachmentRequest(item: "Passport", attachment: String(a.id.prefix(8)), path: nil))).attachmentSaved()
        #expect(inline.base64.flatMap { Data(base64Encoded: $0) }.map(Array.init) == bytes)

        // An upload (base64) with a name and a type given.
        let note = Array("page two".utf8)
        let uploaded = try agent.send(.attach(AttachRequest(item: passport.id, base64: Data(note).base64EncodedString(), name: "page 2.txt", mediaType: "text/plain"))).attachments()
        #expect(uploaded.attachments.map(\.name) == ["passport scan.pdf", "page 2.txt"])
        #expect(try agent.send(.attachments(AttachmentsRequest(item: "Passport"))).attachments() == AgentAttachmentTests.listed(uploaded))

        // The error codes, each with nothing changed.
        let vaultBefore = try Data(contentsOf: URL(fileURLWithPath: agent.vaultPath))
        let notFound = try agent.failure(.saveAttachment(SaveAttachmentRequest(item: "Passport", attachment: "visa.pdf", path: dir.file("x").path)))
        #expect(notFound.code == .attachmentNotFound && notFound.facts["names"] == "passport scan.pdf, page 2.txt")
        let unreadable = try agent.failure(.attach(AttachRequest(item: "Passport", path: dir.file("absent.pdf").path)))
        #expect(unreadable.code == .attachmentUnreadable && unreadable.facts["path"] == dir.file("absent.pdf").path)
        let big = dir.file("huge.bin").path
        #expect(FileManager.default.createFile(atPath: big, contents: nil) && truncate(big, off_t(AttachmentFormat.maximumSize + 1)) == 0)
        #expect(try agent.failure(.attach(AttachRequest(item: "Passport", path: big))).code == .attachmentTooLarge)
        #expect(try agent.failure(.attach(AttachRequest(item: "Passport", path: source, name: "a/b"))).code == .invalidValue)
        #expect(try Data(contentsOf: URL(fileURLWithPath: agent.vaultPath)) == vaultBefore)
        #expect(blobs(agent).count >= 2)

        _ = try agent.send(.attach(AttachRequest(item: "Passport", base64: Data(note).base64EncodedString(), name: "page 2.txt")))
        let twice = try agent.failure(.detach(AttachmentsRequest(item: "Passport", attachment: "page 2.txt")))
        #expect(twice.code == .attachmentAmbiguous && twice.facts["count"] == "2")

        // A blob cut short or gone: refused, and no partial file is left.
        let cut = dir.file("cut.pdf").path
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: blob))
        try handle.truncate(atOffset: UInt64(stored.count - 17))
        try handle.close()
        let damaged = try agent.failure(.saveAttachment(SaveAttachmentRequest(item: "Passport", attachment: a.id, path: cut)))
        #expect(damaged.code == .attachmentDamaged && damaged.facts["name"] == "passport scan.pdf")
        #expect(!FileManager.default.fileExists(atPath: cut))
        try Data(stored.dropLast(65_553)).write(to: URL(fileURLWithPath: blob))
        try Data(stored).write(to: URL(fileURLWithPath: blob))
        var changed = stored
        changed[stored.count - 100] ^= 1
        try Data(changed).write(to: URL(fileURLWithPath: blob))
        #expect(try agent.failure(.saveAttachment(SaveAttachmentRequest(item: "Passport", attachment: a.id, path: cut))).code == .attachmentDamaged)
        #expect(!FileManager.default.fileExists(atPath: cut), "damage found in the last chunk removes what was written")
        try FileManager.default.removeItem(atPath: blob)
        #expect(try agent.failure(.saveAttachment(SaveAttachmentRequest(item: "Passport", attachment: a.id, path: cut))).code == .attachmentMissing)
        let listedMissing = try agent.send(.attachments(AttachmentsRequest(item: "Passport"))).attachments()
        #expect(listedMissing.attachments.first { $0.id == a.id }?.available == false)

        // An item with its own password keeps no attachments, and one with attachments is not sealed.
        _ = try agent.add("note", ItemChanges(title: "Bank", notes: "the account's details"))
        #expect(try agent.send(.itemProtect(ProtectItemRequest(item: "Bank", password: SecretText("an item password of its own")))).saved().title == "Bank")
        #expect(try agent.failure(.attach(AttachRequest(item: "Bank", path: source))).code == .attachmentOnLockedItem)
        #expect(try agent.failure(.itemProtect(ProtectItemRequest(item: "Passport", password: SecretText("an item password of its own")))).code == .attachmentOnLockedItem)
    }

    static func listed(_ reply: AttachmentsReply) -> AttachmentsReply {
        AttachmentsReply(itemID: reply.itemID, title: reply.title, attachments: reply.attachments)
    }

    @Test func aBlobGoesWhenNothingRefersToItAndADuressVaultNeverTouchesTheRealOnes() throws {
        let agent = try RealAgent()
        try agent.unlock()
        let upload = Data(SecureRandom.bytes(count: 70_000)).base64EncodedString()
        _ = try agent.add("document", ItemChanges(title: "Deed"))
        let deed = try #require(try agent.send(.attach(AttachRequest(item: "Deed", base64: upload, name: "deed.png"))).attachments().changed)
        #expect(deed.mediaType == "image/png")
        // Removed from the item, the blob stays: the version in history still refers to it.
        let detached = try agent.send(.detach(AttachmentsRequest(item: "Deed", attachment: "deed.png"))).attachments()
        #expect(detached.attachments.isEmpty && detached.changed?.id == deed.id)
        #expect(blobs(agent).contains(deed.id))
        // Restoring that version brings it back, readable.
        let history = try agent.send(.history(ShowRequest(item: "Deed"))).history()
        let version = try #require(history.versions.max { $0.replacedAt < $1.replacedAt }?.id)
        _ = try agent.send(.restoreVersion(RestoreVersionRequest(item: "Deed", version: version)))
        #expect(try agent.send(.saveAttachment(SaveAttachmentRequest(item: "Deed", attachment: deed.id, path: nil))).attachmentSaved().base64 == upload)
        // Deleted for good (trash, then delete forever): the blob goes with its last reference.
        _ = try agent.send(.delete(ItemRequest(item: "Deed")))
        #expect(blobs(agent).contains(deed.id), "an item in the trash keeps its files")
        _ = try agent.send(.trashDelete(ItemRequest(item: "Deed")))
        #expect(!blobs(agent).contains(deed.id))

        // An image gets a thumbnail, a JPEG in a blob of its own; both go when the attachment does.
        let png = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("PassboxImagingTests/Images/screenshot.jpg").path
        _ = try agent.add("document", ItemChanges(title: "Photo"))
        let photo = try #require(try agent.send(.attach(AttachRequest(item: "Photo", path: png))).attachments().changed)
        #expect(photo.thumbnail == true && photo.mediaType == "image/jpeg")
        let small = try agent.send(.saveAttachment(SaveAttachmentRequest(item: "Photo", attachment: photo.id, path: nil, thumbnail: true))).attachmentSaved()
        let smallBytes = try #require(small.base64.flatMap { Data(base64Encoded: $0) })
        #expect(small.mediaType == "image/jpeg" && smallBytes.count < 30_000 && smallBytes.starts(with: [0xFF, 0xD8]))
        let full = try agent.send(.saveAttachment(SaveAttachmentRequest(item: "Photo", attachment: photo.id, path: nil))).attachmentSaved()
        #expect(full.size == 52_949)
        let withThumbnail = blobs(agent)
        _ = try agent.send(.detach(AttachmentsRequest(item: "Photo", attachment: photo.id)))
        _ = try agent.send(.delete(ItemRequest(item: "Photo")))
        _ = try agent.send(.trashDelete(ItemRequest(item: "Photo")))
        #expect(withThumbnail.subtracting(blobs(agent)).count == 2, "the file's blob and its thumbnail's go together")

        // A larger upload in parts (the web UI's): kept in memory until the last part, then one attachment.
        let big = SecureRandom.bytes(count: 300_000)
        _ = try agent.add("document", ItemChanges(title: "Scan set"))
        let parts = [big[0..<100_000], big[100_000..<200_000], big[200_000...]].map { Data($0).base64EncodedString() }
        let first = try agent.send(.attach(AttachRequest(item: "Scan set", base64: parts[0], name: "scans.pdf", uploadID: "up-1", more: true))).attachments()
        #expect(first.changed == nil && first.attachments.isEmpty, "nothing is attached before the last part")
        _ = try agent.add("document", ItemChanges(title: "Other document"))
        let otherItem = try agent.failure(.attach(AttachRequest(item: "Other document", base64: parts[1], name: "scans.pdf", uploadID: "up-1", more: true)))
        #expect(otherItem.code == .badRequest, "parts of one upload name one item")
        #expect(try agent.failure(.attach(AttachRequest(item: "Scan set", base64: parts[1], name: "scans.pdf", uploadID: "../x", more: true))).code == .badRequest)
        _ = try agent.send(.attach(AttachRequest(item: "Scan set", base64: parts[0], name: "scans.pdf", uploadID: "up-2", more: true)))
        _ = try agent.send(.attach(AttachRequest(item: "Scan set", base64: parts[1], name: "scans.pdf", uploadID: "up-2", more: true)))
        let whole = try #require(try agent.send(.attach(AttachRequest(item: "Scan set", base64: parts[2], name: "scans.pdf", uploadID: "up-2"))).attachments().changed)
        #expect(whole.size == 300_000)
        #expect(try agent.send(.saveAttachment(SaveAttachmentRequest(item: "Scan set", attachment: whole.id, path: nil))).attachmentSaved().base64 == Data(big).base64EncodedString())


        _ = try agent.add("document", ItemChanges(title: "Real will"))
        let will = try #require(try agent.send(.attach(AttachRequest(item: "Real will", base64: upload, name: "will.pdf"))).attachments().changed)
        let duress = "a duress password nobody guesses"
        #expect(try agent.send(.duressSet(DuressRequest(current: SecretText(RealAgent.password), duress: SecretText(duress)))) == .done)
        #expect(try agent.send(.lock(LockRequest())) == .done)
        try agent.unlock(duress)
        _ = try agent.add("document", ItemChanges(title: "Decoy"))
        let decoy = try #require(try agent.send(.attach(AttachRequest(item: "Decoy", base64: upload, name: "decoy.pdf"))).attachments().changed)
        let all = blobs(agent)
        #expect(all.isSuperset(of: [will.id, decoy.id]))
        _ = try agent.send(.delete(ItemRequest(item: "Decoy")))
        _ = try agent.send(.trashEmpty)
        #expect(!blobs(agent).contains(decoy.id) && blobs(agent).contains(will.id), "the duress vault removes its own blobs only")
        #expect(try agent.send(.lock(LockRequest())) == .done)
        try agent.unlock()
        #expect(try agent.send(.saveAttachment(SaveAttachmentRequest(item: "Real will", attachment: "will.pdf", path: nil))).attachmentSaved().base64 == upload)
    }
}
