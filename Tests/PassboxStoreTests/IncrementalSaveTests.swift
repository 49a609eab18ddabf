import Foundation
import PassboxCore
import PassboxCrypto
@testable import PassboxStore
import PassboxStoreFakes
import PassboxTestKit
import Testing

/// The incremental save (docs/FORMATS.md, compression id 2): a save told which items changed re-compresses
/// only their groups, and the slot it writes opens to exactly the vault a full rebuild would.
@Suite struct IncrementalSaveTests {
    static let groupSize = ChunkedPayload.groupSize

    /// A vault of `count` small items, saved once in full.
    /// On a test clock: the reopenings below are not held to the unlock deadline.
    func vaultWith(_ dir: TemporaryDirectory, items count: Int) throws -> (VaultStore, OpenVault) {
        let store = VaultStore(directory: dir.path, clock: FakeClock())
        let opened = try store.create(password: password, parameters: cheapKDF)
        var vault = opened.vault
        for i in 0..<count {
            var item = Item(category: i % 7 == 0 ? .secureNote : .login, title: "Item \(i)")
            item.setValue("user-\(i)", for: "username")
            item.notes = "note \(i)"
            try vault.add(item, now: Date(timeIntervalSince1970: 1_800_000_000))
        }
        try opened.save(vault)
        return (store, opened)
    }

    /// What the payload of `vault` reads back as when packed whole (the full rebuild's result).
    func rebuilt(_ vault: Vault) throws -> Vault {
        try vault.packed().withUnsafeBytes { try Vault(unpacking: $0) }
    }

    /// Random sequences of adds, edits, use marks, trash and restores from the trash, history restores and
    /// deletions, each saved with the ids it changed: after every step the file reopens to exactly the vault
    /// in memory, which equals the full rebuild's.
    @Test(arguments: [1, 2, 3]) func randomOperationsSaveWhatAFullRebuildSaves(seed: UInt64) throws {
        let dir = try TemporaryDirectory()
        let (store, opened) = try vaultWith(dir, items: 2 * Self.groupSize + 300)
        var rng = SplitMix64(seed: seed)
        var now = Date(timeIntervalSince1970: 1_800_000_100)
        // 20 steps a seed in `make test` (every operation comes up), 200 under `make soak`.
        for step in 0..<Soak.count(20, soak: 200) {
            now += 60
            var vault = opened.vault
            let ids = vault.items.map(\.id)
            let target = ids[Int.random(in: 0..<ids.count, using: &rng)]
            var changed: Set<String> = [target]
            switch Int.random(in: 0..<8, using: &rng) {
            case 0:
                let added = try vault.add(Item(category: .login, title: "Added \(step)"), now: now)
                changed = [added.id]
            case 1, 2:
                if (try vault.item(id: target)).isTrashed { try vault.restoreFromTrash(id: target) } else {
                    try vault.update(id: target, now: now) { $0.notes = "edited at step \(step)" }
                }
            case 3:
                if (try vault.item(id: target)).isTrashed { try vault.restoreFromTrash(id: target) } else { try vault.markUsed(id: target, now: now) }
            case 4:
                if (try vault.item(id: target)).isTrashed { try vault.deleteForever(id: target) } else { try vault.trash(id: target, now: now) }
            case 5:
                let item = try vault.item(id: target)
                if item.isTrashed {
                    try vault.deleteForever(id: target)
                } else if let version = item.history.last {
                    try vault.restoreVersion(itemID: target, versionID: version.id, now: now)
                } else {
                    try vault.trash(id: target, now: now)
                }
            case 6:
                // Several adds in one save: the last group fills up and a new one starts.
                changed = []
                for k in 0..<Int.random(in: 1...400, using: &rng) { changed.insert(try vault.add(Item(category: .secureNote, title: "Bulk \(step).\(k)"), now: now).id) }
            default:
                if let first = vault.trashedItems.first { changed = [first.id] }
                vault.emptyTrash()
            }
            try opened.save(vault, changedItemIDs: changed)
            #expect(opened.vault == vault)
            if step % 5 == 4 {
                let again = try store.unlock(password: password)
                #expect(again.vault == vault)
                #expect(again.vault == (try rebuilt(vault)))
                #expect(again.groupChunks?.count == (vault.items.count + Self.groupSize - 1) / Self.groupSize)
            }
        }
        let reopened = try store.unlock(password: password)
        #expect(reopened.vault == opened.vault)
    }

    /// A vault lent for an in-place change is rebuilt from the kept chunks when the change fails: equal to the
    /// saved one, and saved again normally afterwards. A slot with no kept chunks lends nothing.
    @Test func aLentVaultIsRebuiltFromItsChunks() throws {
        let dir = try TemporaryDirectory()
        let (store, _) = try vaultWith(dir, items: 2 * Self.groupSize + 7)
        let opened = try store.unlock(password: password)
        let saved = opened.vault
        var lent = try #require(opened.takeVaultForChange())
        #expect(opened.vault.items.isEmpty)
        #expect(opened.takeVaultForChange() == nil)
        try lent.add(Item(category: .login, title: "Dropped"), now: Date())
        lent.items[3].title = "Changed in place"
        opened.restoreAfterFailedChange()
        #expect(opened.vault == saved)
        #expect(!opened.isUnusable)
        var again = try #require(opened.takeVaultForChange())
        let added = try again.add(Item(category: .login, title: "Kept"), now: Date())
        try opened.save(again, changedItemIDs: [added.id])
        #expect(try store.unlock(password: password).vault == opened.vault)
        #expect(opened.vault.items.count == saved.items.count + 1)

        let old = try vaultWith(try TemporaryDirectory(), items: 3).1
        let singleStreamDir = try TemporaryDirectory()
        let (singleStore, singleOpened) = try vaultWith(singleStreamDir, items: 0)
        try writeSingleStreamSlot(singleStreamDir, vault: old.vault, opened: singleOpened)
        #expect(try singleStore.unlock(password: password).takeVaultForChange() == nil)
    }

    /// An edit in the first group re-compresses that group only; the others keep their chunk's storage.
    @Test func anEditRecompressesOnlyItsGroup() throws {
        let dir = try TemporaryDirectory()
        let (store, _) = try vaultWith(dir, items: 3 * Self.groupSize)
        let opened = try store.unlock(password: password)
        let before = try #require(opened.groupChunks)
        #expect(before.count == 3)
        var vault = opened.vault
        let id = vault.items[5].id
        try vault.update(id: id, now: Date()) { $0.title = "Renamed" }
        try opened.save(vault, changedItemIDs: [id])
        let after = try #require(opened.groupChunks)
        func sameStorage(_ a: [UInt8], _ b: [UInt8]) -> Bool { a.withUnsafeBytes { x in b.withUnsafeBytes { x.baseAddress == $0.baseAddress } } }
        #expect(!sameStorage(before[0], after[0]))
        #expect(sameStorage(before[1], after[1]) && sameStorage(before[2], after[2]))
        #expect(try store.unlock(password: password).vault == vault)
    }

    /// A change that names no item (nil) re-compresses every group, whatever it changed.
    @Test func anUnknownChangeRecompressesEverything() throws {
        let dir = try TemporaryDirectory()
        let (store, opened) = try vaultWith(dir, items: Self.groupSize + 10)
        var vault = opened.vault
        try vault.setDismissed("weak", true, itemID: vault.items[3].id)
        vault.lastBreachCheck = Date(timeIntervalSince1970: 1_800_000_500)
        try opened.save(vault, changedItemIDs: nil)
        #expect(try store.unlock(password: password).vault == vault)
    }

    /// A slot in the old single-stream layout opens with no kept chunks; its first save compresses every
    /// group and writes the chunked layout, which the next open keeps.
    @Test func aSingleStreamSlotIsRewrittenChunked() throws {
        let dir = try TemporaryDirectory()
        let (store, opened) = try vaultWith(dir, items: 0)
        var vault = opened.vault
        for i in 0..<1500 { try vault.add(Item(category: .secureNote, title: "Old \(i)"), now: Date(timeIntervalSince1970: 1_800_000_000)) }
        try writeSingleStreamSlot(dir, vault: vault, opened: opened)
        let old = try store.unlock(password: password)
        #expect(old.vault == vault)
        #expect(old.groupChunks == nil)
        try vault.add(Item(category: .login, title: "New"), now: Date())
        try old.save(vault, changedItemIDs: [vault.items.last!.id])
        let again = try store.unlock(password: password)
        #expect(again.vault == vault)
        #expect(again.groupChunks?.count == 2)
        #expect(try bodyCompression(dir, opened: again) == SlotCodec.compressionChunked)
    }

    /// The chunked fixture's body is compression id 2 cut as this version cuts it (prelude, one group of
    /// five items, trailer), so the open keeps its one group chunk.
    @Test func theChunkedFixtureIsCutOnItemBoundaries() throws {
        let dir = try TemporaryDirectory()
        let url = try #require(Bundle.module.url(forResource: "Fixtures/vault-v2-chunked/vault", withExtension: "pbx"))
        try FileManager.default.copyItem(at: url, to: dir.file("vault.pbx"))
        let opened = try VaultStore(directory: dir.path).unlock(password: FixtureTests.fixturePassword)
        #expect(try bodyCompression(dir, opened: opened) == SlotCodec.compressionChunked)
        #expect(opened.groupChunks?.count == 1)
        #expect(try inflate(ChunkedPayload.encoded(try #require(opened.groupChunks))) == opened.vault.packedItems(in: 0..<5))
    }

    // MARK: Damage

    func deflated(_ bytes: [UInt8]) throws -> [UInt8] { try bytes.withUnsafeBytes { try Deflate.compress($0) } }

    func inflate(_ data: [UInt8], limit: Int = 1 << 20) throws -> [UInt8] {
        try data.withUnsafeBytes { try ChunkedPayload.decompress($0, limit: limit, keepingChunks: false) }.payload
    }

    func isDamage(_ body: () throws -> Void) -> Bool {
        do {
            try body()
            return false
        } catch StoreError.damaged {
            return true
        } catch {
            return false
        }
    }

    @Test func chunksJoinIntoThePayload() throws {
        let parts = [Array("first ".utf8), Array(repeating: UInt8(ascii: "x"), count: 10_000), Array(" last".utf8)]
        let encoded = ChunkedPayload.encoded(try parts.map(deflated))
        #expect(Array(encoded[0..<4]) == [0, 0, 0, 3])
        #expect(try inflate(encoded) == parts.flatMap { $0 })
        #expect(try inflate(ChunkedPayload.encoded([])) == [])
    }

    @Test func aCorruptChunkIsDamage() throws {
        let chunks = try [Array("prelude".utf8), Array(repeating: UInt8(7), count: 5000), Array("trailer".utf8)].map(deflated)
        let good = ChunkedPayload.encoded(chunks)
        let secondLength = 8 + chunks[0].count
        func withLength(_ value: UInt32, at offset: Int) -> [UInt8] {
            var bytes = good
            for k in 0..<4 { bytes[offset + k] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(k))) }
            return bytes
        }
        let cases: [(String, [UInt8])] = [
            ("count past the data", withLength(0xffff_ffff, at: 0)),
            ("count one too many", withLength(4, at: 0)),
            ("count one too few", withLength(2, at: 0)),
            ("length past the data", withLength(UInt32(good.count), at: secondLength - 4)),
            ("length one short", withLength(UInt32(chunks[1].count - 1), at: secondLength - 4)),
            ("length one long", withLength(UInt32(chunks[1].count + 1), at: secondLength - 4)),
            ("truncated", Array(good.dropLast(3))),
            ("cut inside a length", Array(good.prefix(6))),
            ("too short for a count", [0, 0]),
            ("a byte after the last chunk", good + [0]),
            ("a flipped byte in a stream", { var b = good; b[secondLength + 4] ^= 0xff; return b }()),
            ("an empty chunk", ChunkedPayload.encoded([chunks[0], [], chunks[2]])),
        ]
        for (name, bytes) in cases {
            #expect(isDamage { _ = try inflate(bytes) }, "\(name)")
        }
    }

    /// The decompression limit holds over the whole payload: chunks each under it, together over it, are
    /// refused as a bomb would be.
    @Test func theLimitHoldsOverAllChunks() throws {
        let zeros = try deflated([UInt8](repeating: 0, count: 600_000))
        #expect(zeros.count < 4000)
        #expect(try inflate(ChunkedPayload.encoded([zeros]), limit: 1 << 20).count == 600_000)
        #expect(isDamage { _ = try inflate(ChunkedPayload.encoded([zeros, zeros]), limit: 1 << 20) })
        let bomb = try deflated([UInt8](repeating: 0, count: 3 << 20))
        #expect(isDamage { _ = try inflate(ChunkedPayload.encoded([bomb]), limit: 1 << 20) })
    }

    /// A damaged chunk inside an authentic slot (only a writer with the data key could make one) opens as
    /// damage, not as a wrong password or a crash.
    @Test func aSlotWithABadChunkIsDamaged() throws {
        let dir = try TemporaryDirectory()
        let (_, opened) = try vaultWith(dir, items: 3)
        let prelude = try deflated(opened.vault.packedPrelude())
        let items = try deflated(opened.vault.packedItems(in: 0..<3))
        let trailer = try deflated(opened.vault.packedTrailer())
        let bomb = try deflated([UInt8](repeating: 0, count: 65 << 20))
        let payloads: [[UInt8]] = [
            Array(ChunkedPayload.encoded([prelude, items, trailer]).dropLast(1)),
            ChunkedPayload.encoded([prelude, Array(items.dropLast(2)), trailer]),
            ChunkedPayload.encoded([prelude, bomb, trailer]),
            ChunkedPayload.encoded([prelude, trailer]),
        ]
        for (n, payload) in payloads.enumerated() {
            try writeSlot(dir, opened: opened, compression: SlotCodec.compressionChunked, payload: payload)
            do {
                _ = try unlockForgettingAttempts(dir)
            } catch StoreError.damaged {
            } catch {
                Issue.record("payload \(n): \(error), not damage")
            }
        }
        try writeSlot(dir, opened: opened, compression: SlotCodec.compressionChunked, payload: ChunkedPayload.encoded([prelude, items, trailer]))
        #expect(try unlockForgettingAttempts(dir).vault == opened.vault)
    }

    // MARK: Helpers

    /// Rewrites `opened`'s slot (same keys, same generation) with a body of `compression` holding `payload`.
    func writeSlot(_ dir: TemporaryDirectory, opened: OpenVault, compression: UInt32, payload: [UInt8]) throws {
        let path = dir.path + "/vault.pbx"
        var file = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let header = try VaultHeader.decode(Array(file[0..<128]), path: path)
        let slot = try SlotCodec.sealSlot(
            header: header, index: opened.slotIndex, slotNonce: opened.slotNonce, wrapKey: opened.wrapKey, dataKey: opened.dataKey,
            generation: opened.generation, compression: compression, compressedLength: payload.count, now: Date()
        ) { out in payload.withUnsafeBytes { out.copyMemory(from: $0) } }
        let start = 128 + opened.slotIndex * header.slotSize
        file.replaceSubrange(start..<(start + header.slotSize), with: slot)
        try Data(file).write(to: URL(fileURLWithPath: path))
    }

    /// Writes `vault` into `opened`'s slot as an older Passbox did: one zlib stream (compression id 1).
    func writeSingleStreamSlot(_ dir: TemporaryDirectory, vault: Vault, opened: OpenVault) throws {
        try writeSlot(dir, opened: opened, compression: SlotCodec.compressionDeflate, payload: try deflated(vault.packed()))
    }

    /// The compression id in `opened`'s body on disk.
    func bodyCompression(_ dir: TemporaryDirectory, opened: OpenVault) throws -> UInt32 {
        let path = dir.path + "/vault.pbx"
        let file = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let header = try VaultHeader.decode(Array(file[0..<128]), path: path)
        let start = 128 + opened.slotIndex * header.slotSize + 128
        let ad = SlotCodec.associatedData(.format2, body: true, header: header, index: opened.slotIndex, slotNonce: opened.slotNonce)
        let plain = try XChaCha20Poly1305.open(
            Array(file[(start + 24)..<(start + header.slotSize - 128)]), key: opened.dataKey, nonce: Array(file[start..<(start + 24)]), associatedData: ad)
        return plain.bigEndianUInt32(at: 4)
    }
}
