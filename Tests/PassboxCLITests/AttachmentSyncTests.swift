import Foundation
import PassboxCore
import PassboxCrypto
import PassboxHTTP
import PassboxProtocol
import PassboxService
import PassboxTestSupport
import Testing

/// Attachments on an account: a real `passbox server` keeps the blobs as ciphertext in parts; a device uploads
/// a blob before the item that refers to it, another fetches it when it is first read; a server that cuts or
/// changes a blob is caught and nothing of its answer is kept; the account's quota is kept.
@Suite struct AttachmentSyncTests {
    struct World {
        let dir: TemporaryDirectory
        let proxy: MutatingProxy
        let server: ServerProcess
        let a: SyncDevice, b: SyncDevice
    }

    static func world(_ name: String, quotaMiB: Int? = nil, backend: Backend = .sqlite) throws -> World {
        let dir = try TemporaryDirectory("passbox-attach-" + name)
        let proxy = try MutatingProxy()
        let extra = ["--origin", proxy.origin] + (quotaMiB.map { ["--blob-quota-mib", String($0)] } ?? []) + (try backend.serverArguments(directory: dir.path + "/server/server"))
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir, extra: extra, port: try PostgresCluster.freePort())
        proxy.target = server.address
        let (a, key) = try SyncDevice.signUp("a", server: proxy.origin, email: "docs@example.org", in: dir)
        let b = try SyncDevice.signIn("b", server: proxy.origin, email: "docs@example.org", secretKey: key, in: dir)
        return World(dir: dir, proxy: proxy, server: server, a: a, b: b)
    }

    static func attach(_ d: SyncDevice, item: String, bytes: [UInt8], name: String) throws -> AttachmentView {
        try #require(try d.service.perform(.attach(AttachRequest(item: item, base64: Data(bytes).base64EncodedString(), name: name))).attachments().changed)
    }

    static func read(_ d: SyncDevice, item: String, attachment: String) throws -> [UInt8] {
        let saved = try d.service.perform(.saveAttachment(SaveAttachmentRequest(item: item, attachment: attachment, path: nil))).attachmentSaved()
        return Array(try #require(saved.base64.flatMap { Data(base64Encoded: $0) }))
    }

    static func failure(_ d: SyncDevice, _ request: Request) -> ProtocolError? {
        do {
            _ = try d.service.perform(request)
            return nil
        } catch {
            return ProtocolError.from(error)
        }
    }

    @Test func anAttachmentReachesTheOtherDeviceAndAHostileServerIsCaught() throws {
        #expect(BlobTransfer.maximumLength == AttachmentFormat.blobLength(AttachmentFormat.maximumSize), "the server's bound is the blob format's")
        #expect(BlobTransfer.isValidID(String(repeating: "a1", count: 16)) && !BlobTransfer.isValidID("../x"))
        let w = try Self.world("sync")
        let (a, b) = (w.a, w.b)
        _ = try a.service.perform(.add(AddRequest(category: "document", changes: ItemChanges(title: "Lease")))).saved()
        // Three parts of 512 KiB on the wire.
        let lease = SecureRandom.bytes(count: 1_200_000)
        let first = try Self.attach(a, item: "Lease", bytes: lease, name: "lease.pdf")
        let reply = try a.sync()
        #expect(reply.pushed >= 1)
        #expect(a.session.blobs.isUploaded(first.id), "the blob went up with the push")

        try b.sync()
        let listed = try b.service.perform(.attachments(AttachmentsRequest(item: "Lease"))).attachments()
        #expect(listed.attachments.map(\.name) == ["lease.pdf"] && listed.attachments[0].available == false, "not fetched until read")
        #expect(try Self.read(b, item: "Lease", attachment: "lease.pdf") == lease)
        #expect(try b.service.perform(.attachments(AttachmentsRequest(item: "Lease"))).attachments().attachments[0].available)

        // A second file, read on b through a server that cuts, changes or drops it.
        let page = SecureRandom.bytes(count: 700_000)
        _ = try Self.attach(a, item: "Lease", bytes: page, name: "page 2.png")
        try a.sync()
        try b.sync()
        let blobsBefore = try FileManager.default.contentsOfDirectory(atPath: b.session.blobs.directory).sorted()
        let attacks: [(String, @Sendable (String, [UInt8]) -> HTTPResponse, ErrorCode)] = [
            ("a part cut short", { path, body in HTTPResponse(status: 200, body: path.hasSuffix("/1") ? Array(body.dropLast(1)) : body) }, .badServerAnswer),
            ("a byte changed", { path, body in
                var changed = body
                if path.hasSuffix("/1") { changed[changed.count / 2] ^= 1 }
                return HTTPResponse(status: 200, body: changed)
            }, .attachmentDamaged),
            ("every byte changed", { path, body in HTTPResponse(status: 200, body: body.map { $0 ^ 0x5a }) }, .attachmentDamaged),
            ("the last part withheld", { path, body in HTTPResponse(status: path.hasSuffix("/1") ? 404 : 200, body: body) }, .badServerAnswer),
        ]
        for (name, attack, code) in attacks {
            w.proxy.armBlobs(attack)
            let refused = Self.failure(b, .saveAttachment(SaveAttachmentRequest(item: "Lease", attachment: "page 2.png", path: nil)))
            #expect(refused?.code == code, "\(name): \(String(describing: refused))")
            #expect(try FileManager.default.contentsOfDirectory(atPath: b.session.blobs.directory).sorted() == blobsBefore, "\(name): nothing of it is kept")
        }
        w.proxy.disarm()
        #expect(try Self.read(b, item: "Lease", attachment: "page 2.png") == page)
    }

    /// On SQLite and PostgreSQL alike.
    @Test(arguments: Backend.cases) func theQuotaIsKeptAndAnItemWaitsUntilItsBlobIsUp(_ backend: Backend) throws {
        let w = try Self.world("quota", quotaMiB: 2, backend: backend)
        let a = w.a
        _ = try a.service.perform(.add(AddRequest(category: "document", changes: ItemChanges(title: "Scans")))).saved()
        let one = SecureRandom.bytes(count: 1_200_000)
        _ = try Self.attach(a, item: "Scans", bytes: one, name: "one.png")
        try a.sync()
        try w.b.sync()
        #expect(try Self.read(w.b, item: "Scans", attachment: "one.png") == one)
        let second = try Self.attach(a, item: "Scans", bytes: SecureRandom.bytes(count: 1_200_000), name: "two.png")
        var refused: ProtocolError?
        do { try a.sync() } catch { refused = ProtocolError.from(error) }
        #expect(refused?.code == .blobQuotaExceeded && refused?.facts == ["quotaMiB": "2", "usedMiB": "1"], "\(String(describing: refused))")
        #expect(!a.session.blobs.isUploaded(second.id))
        #expect(a.vault.items.first { $0.title == "Scans" }?.syncPending == true, "the item waits: no device sees a reference without its blob")
    }
}
