import Foundation
import PassboxCore
import PassboxCrypto
@testable import PassboxStore
import PassboxStoreFakes
import PassboxTestKit
import Testing

/// Attachments' blobs (docs/FORMATS.md "Attachments"): every size comes back exactly, the blob's length
/// tells only the padded bucket, and anything cut, changed, reordered or swapped is refused.
@Suite struct BlobStoreTests {
    /// A file's bytes that are easy to check: i mod 251.
    static func pattern(_ count: Int) -> [UInt8] { (0..<count).map { UInt8($0 % 251) } }

    func readBack(_ store: BlobStore, _ a: PassboxCore.Attachment) throws -> [UInt8] {
        var out = [UInt8]()
        try store.read(a) { out.append(contentsOf: $0) }
        return out
    }

    @Test func everySizeComesBackExactlyAndTheBlobIsPaddedToItsBucket() throws {
        let dir = try TemporaryDirectory()
        let store = BlobStore(vaultDirectory: dir.path)
        let chunk = AttachmentFormat.chunkSize
        for size in [0, 1, chunk - 1, chunk, chunk + 1, 2 * chunk, 3 * chunk + 17, 1 << 20, (1 << 20) + 1, 5_000_000] {
            let bytes = Self.pattern(size)
            let a = try store.add(bytes: bytes, name: "f\(size).bin", mediaType: "application/octet-stream", now: Date())
            #expect(a.size == size && a.key.count == 32 && PassboxCore.Attachment.isValidID(a.id))
            let length = try FileManager.default.attributesOfItem(atPath: store.path(a.id))[.size] as? Int
            #expect(length == AttachmentFormat.blobLength(size))
            let mode = try FileManager.default.attributesOfItem(atPath: store.path(a.id))[.posixPermissions] as? Int
            #expect(mode == 0o600)
            #expect(try readBack(store, a) == bytes, "size \(size)")
        }
        let folder = try FileManager.default.attributesOfItem(atPath: store.directory)[.posixPermissions] as? Int
        #expect(folder == 0o700)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.directory).allSatisfy(PassboxCore.Attachment.isValidID), "no temporary file is left")
    }

    @Test func bucketsAreAnEighthOfThePowerOfTwoAndAtLeastAChunk() {
        let chunk = AttachmentFormat.chunkSize
        #expect(AttachmentFormat.paddedSize(0) == chunk)
        #expect(AttachmentFormat.paddedSize(chunk) == chunk)
        #expect(AttachmentFormat.paddedSize(chunk + 1) == 2 * chunk)
        #expect(AttachmentFormat.paddedSize(1 << 20) == 1 << 20)
        #expect(AttachmentFormat.paddedSize((1 << 20) + 1) == (1 << 20) + (1 << 17))
        #expect(AttachmentFormat.paddedSize(96 << 20) == 96 << 20)
        #expect(AttachmentFormat.paddedSize((96 << 20) + 1) == 104 << 20)
        #expect(AttachmentFormat.paddedSize(100 << 20) == 104 << 20)
        for size in stride(from: 1, to: 300 << 20, by: 999_983) {
            let padded = AttachmentFormat.paddedSize(size)
            #expect(padded >= size && padded % chunk == 0 && Double(padded) <= max(Double(chunk), Double(size) * 1.125 + 1))
        }
        #expect(AttachmentFormat.blobLength(0) == 24 + chunk + 17)
    }

    @Test func aChangedCutReorderedOrSwappedBlobIsRefusedAsDamaged() throws {
        let dir = try TemporaryDirectory()
        let store = BlobStore(vaultDirectory: dir.path)
        let chunk = AttachmentFormat.chunkSize
        let sealed = chunk + AttachmentFormat.chunkOverhead
        let bytes = Self.pattern(3 * chunk + 100)
        let a = try store.add(bytes: bytes, name: "scan.pdf", mediaType: "application/pdf", now: Date())
        let original = Array(try Data(contentsOf: URL(fileURLWithPath: store.path(a.id))))
        #expect(original.count == 24 + 4 * sealed)
        // The file's bytes do not appear in the blob.
        #expect(!ByteSearch.contains(original, Array(bytes[1000..<1032])))

        func damaged(_ blob: [UInt8], _ reason: String) throws {
            try Data(blob).write(to: URL(fileURLWithPath: store.path(a.id)))
            #expect(throws: AttachmentError.self, "\(reason)") { try readBack(store, a) }
            do {
                _ = try readBack(store, a)
            } catch let error as AttachmentError {
                if case .damaged(let name, _) = error { #expect(name == "scan.pdf") } else { Issue.record("\(reason): \(error)") }
            }
        }
        for offset in [0, 23, 24, 24 + sealed - 1, 24 + sealed + 5, original.count - 1] {
            var changed = original
            changed[offset] ^= 0x01
            try damaged(changed, "a bit changed at \(offset)")
        }
        try damaged(Array(original.dropLast(sealed)), "the last chunk cut off")
        try damaged(Array(original.dropLast(1)), "one byte cut off")
        try damaged(original + [0], "a byte more")
        // The same length, but the last chunk dropped and an earlier one repeated: caught by the stream.
        try damaged(Array(original.dropLast(sealed)) + Array(original[24..<24 + sealed]), "a chunk repeated in place of the last")
        var swapped = original
        swapped.replaceSubrange(24..<24 + sealed, with: original[24 + sealed..<24 + 2 * sealed])
        swapped.replaceSubrange(24 + sealed..<24 + 2 * sealed, with: original[24..<24 + sealed])
        try damaged(swapped, "two chunks swapped")
        // Another attachment's blob of the same length under this one's name.
        let other = try store.add(bytes: Self.pattern(3 * chunk + 100), name: "other.pdf", mediaType: "application/pdf", now: Date())
        try damaged(Array(try Data(contentsOf: URL(fileURLWithPath: store.path(other.id)))), "another blob")
        // The right blob under a reference whose id was changed (the id is bound into every chunk).
        try Data(original).write(to: URL(fileURLWithPath: store.path(a.id)))
        var renamed = a
        renamed.id = String(a.id.reversed())
        try FileManager.default.copyItem(atPath: store.path(a.id), toPath: store.path(renamed.id))
        #expect(throws: AttachmentError.self) { try readBack(store, renamed) }
        #expect(try readBack(store, a) == bytes, "the untouched blob still opens")

        store.remove(a.id)
        #expect(throws: AttachmentError.missing(name: "scan.pdf")) { try readBack(store, a) }
    }

    @Test func aFailingSourceLeavesNoBlobAndAnInvalidIDNamesNoPath() throws {
        let dir = try TemporaryDirectory()
        let store = BlobStore(vaultDirectory: dir.path)
        struct Broken: Error {}
        var calls = 0
        #expect(throws: Broken.self) {
            try store.add(name: "x", mediaType: "text/plain", now: Date()) { buffer in
                calls += 1
                if calls > 3 { throw Broken() }
                buffer.initializeMemory(as: UInt8.self, repeating: 7)
                return buffer.count
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.directory).isEmpty)
        #expect(throws: AttachmentError.unreadable(path: dir.path + "/absent", reason: "No such file or directory")) {
            try store.add(file: dir.path + "/absent", name: "absent", mediaType: "text/plain", now: Date())
        }
        #expect(throws: AttachmentError.self) { try store.add(file: dir.path, name: "folder", mediaType: "text/plain", now: Date()) }
        let hostile = PassboxCore.Attachment(id: "../../vault.pbx", name: "evil", mediaType: "text/plain", size: 1, key: Array(repeating: 1, count: 32), added: Date())
        #expect(!store.exists(hostile.id))
        #expect(throws: AttachmentError.self) { try readBack(store, hostile) }
        // A file past the limit is refused before a byte is read (a sparse file: no disk used).
        let big = dir.path + "/big"
        #expect(FileManager.default.createFile(atPath: big, contents: nil))
        #expect(truncate(big, off_t(AttachmentFormat.maximumSize + 1)) == 0)
        #expect(throws: AttachmentError.tooLarge(limitMiB: AttachmentFormat.maximumSize >> 20)) {
            try store.add(file: big, name: "big", mediaType: "application/octet-stream", now: Date())
        }
    }

    @Test func coverBlobsLookLikeBlobsAndEraseRemovesThemAll() throws {
        let dir = try TemporaryDirectory()
        let vaultStore = VaultStore(directory: dir.path, clock: FakeClock())
        _ = try vaultStore.create(password: "a long vault password", parameters: Argon2Parameters(memoryKiB: 64, passes: 1, lanes: 1))
        let store = BlobStore(vaultDirectory: dir.path)
        let real = try store.add(bytes: Self.pattern(100_000), name: "a", mediaType: "text/plain", now: Date())
        try store.addCover(size: 100_000)
        let ids = store.allIDs()
        #expect(ids.count == 2 && ids.contains(real.id))
        let cover = try #require(ids.first { $0 != real.id })
        let sizes = try ids.map { try FileManager.default.attributesOfItem(atPath: store.path($0))[.size] as? Int }
        #expect(sizes[0] == sizes[1], "a cover blob is as long as a blob of the size it covers")
        #expect(try FileManager.default.attributesOfItem(atPath: store.path(cover))[.posixPermissions] as? Int == 0o600)
        try vaultStore.eraseEverything()
        #expect(!FileManager.default.fileExists(atPath: store.directory))
    }
}
