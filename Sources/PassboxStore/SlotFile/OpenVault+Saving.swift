import Foundation
import PassboxCore
import PassboxCrypto
internal import CLinux

/// A save's work: packing and deflating the item groups (on two threads when several changed), then writing
/// the slot in place through the journal or a grown file beside the old one.
extension OpenVault {
    /// The compressed chunk of every item group of `newVault`: the kept one where the group is unchanged
    /// (see `save(_:changedItemIDs:)`), else packed and deflated afresh, on two threads when several are.
    func compressedGroups(of newVault: Vault, changedItemIDs: Set<String>?) throws -> [[UInt8]] {
        let size = ChunkedPayload.groupSize
        let items = newVault.items
        let count = (items.count + size - 1) / size
        var groups = [[UInt8]?](repeating: nil, count: count)
        if let changedItemIDs, let kept = groupChunks {
            #if DEBUG
                let old = loanedOriginal?.items ?? vault.items
            #endif
            items.withUnsafeBufferPointer { new in
                savedIDs.withUnsafeBufferPointer { saved in
                    // The groups holding a named item. A few names are found by comparing ids (an id of the
                    // same storage compares at once, and a different one of 26 bytes by one memcmp), which is
                    // several times quicker than hashing every id; many names are looked up in the set.
                    var namedGroups = Set<Int>()
                    if changedItemIDs.count <= 16 {
                        // From the end: an added item is last, so an add finds it at once.
                        for id in changedItemIDs {
                            if let i = (0..<new.count).reversed().first(where: { new[$0].id == id }) { namedGroups.insert(i / size) }
                        }
                    } else {
                        for i in 0..<new.count where changedItemIDs.contains(new[i].id) { namedGroups.insert(i / size) }
                    }
                    for g in 0..<min(count, kept.count) where !namedGroups.contains(g) {
                        let range = (g * size)..<min((g + 1) * size, items.count)
                        // The same number of items, the same ids in the same places (nothing moved).
                        guard min((g + 1) * size, saved.count) == range.upperBound, range.allSatisfy({ new[$0].id == saved[$0] })
                        else { continue }
                        // Debug builds check the caller's promise: an unnamed item is unchanged.
                        #if DEBUG
                            assert(range.allSatisfy { new[$0] == old[$0] }, "an item changed but was not named in changedItemIDs")
                        #endif
                        groups[g] = kept[g]
                    }
                }
            }
        }
        let stale = groups.indices.filter { groups[$0] == nil }
        let fresh = try Self.packAndCompress(newVault, groups: stale)
        for (g, chunk) in zip(stale, fresh) { groups[g] = chunk }
        return groups.map { $0! }
    }

    /// Packs and deflates the item groups `indices` of `vault`; the plaintext of each group is wiped once
    /// compressed. Runs on two threads when there is more than one group (the machine's two cores).
    static func packAndCompress(_ vault: Vault, groups indices: [Int]) throws -> [[UInt8]] {
        let size = ChunkedPayload.groupSize
        let work: @Sendable (Int) throws -> [UInt8] = { g in
            var plain = vault.packedItems(in: (g * size)..<min((g + 1) * size, vault.items.count))
            defer { ConstantTime.wipe(&plain) }
            return try plain.withUnsafeBytes { try Deflate.compress($0) }
        }
        guard indices.count > 1 else { return try indices.map(work) }
        let results = ParallelResults(count: indices.count)
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            var i = worker
            while i < indices.count, !results.failed {
                results.set(i, Result { try work(indices[i]) })
                i += 2
            }
        }
        return try results.values()
    }

    /// The journaled in-place save (security.md §7 "Saving"): journal written and synced, directory synced,
    /// slot written in place and synced, read back, journal removed, directory synced. Until the journal is
    /// synced the old slot is untouched; from then on the journal holds the whole new slot.
    func writeInPlace(_ slot: [UInt8], header onDisk: VaultHeader, target: String) throws {
        let fileSystem = store.fileSystem
        let directory = VaultStore.parentDirectory(of: target)
        let journal = VaultStore.journalPath(for: target)
        let offset = store.slotOffset(slotIndex, onDisk)
        let head = SaveJournal.header(index: slotIndex, offset: offset, length: slot.count, vaultHeader: onDisk.encoded())
        let checksum = SaveJournal.checksum(header: head, slot: slot)
        do {
            try fileSystem.writeNewFile(at: journal) { append in
                try head.withUnsafeBytes { try append($0) }
                try slot.withUnsafeBytes { try append($0) }
                try checksum.withUnsafeBytes { try append($0) }
            }
            try fileSystem.syncDirectory(directory)
        } catch {
            // The slot was not touched: without the journal the old vault stands.
            try? fileSystem.remove(journal)
            throw error
        }
        // From here a failure leaves the journal, and the next open writes the new slot from it.
        try slot.withUnsafeBytes { try fileSystem.overwrite(at: target, offset: offset, contents: $0) }
        try store.verify(path: target, size: onDisk.fileSize, offset: offset, expected: slot)
        try fileSystem.remove(journal)
        // The slot is synced and was read back: a failed directory sync now leaves at most a journal whose
        // replay writes the same bytes again.
        try? fileSystem.syncDirectory(directory)
    }

    /// The growing or converting save: a new file (of the larger slot size, or in format 2), written one slot at a time (other slots copied
    /// from the old file, random fill appended), verified on this slot, renamed over the old one.
    func writeNewFile(_ slot: [UInt8], header newHeader: VaultHeader, from fd: Int32, oldHeader: VaultHeader, target: String) throws {
        try store.commitNewFile(target: target, size: newHeader.fileSize, check: (store.slotOffset(slotIndex, newHeader), slot)) { append in
            try newHeader.encoded().withUnsafeBytes { try append($0) }
            for index in 0..<oldHeader.slotCount {
                if index == slotIndex {
                    try slot.withUnsafeBytes { try append($0) }
                    continue
                }
                var other = try POSIX.readExactly(fd: fd, offset: store.slotOffset(index, oldHeader), count: oldHeader.slotSize, path: target)
                if oldHeader.formatVersion == 1 {
                    // Converting to format 2: the other slots cannot be re-sealed (their keys are not ours), but
                    // format 1's version bytes were never authenticated, so random bytes in their place leave
                    // any vault there opening (with the format-1 layout) and make it look like an unused slot.
                    for offset in SlotCodec.formatOneMarkerOffsets { other[offset] = SecureRandom.bytes(count: 1)[0] }
                }
                try other.withUnsafeBytes { try append($0) }
                if newHeader.slotSize > oldHeader.slotSize {
                    try SecureRandom.bytes(count: newHeader.slotSize - oldHeader.slotSize).withUnsafeBytes { try append($0) }
                }
            }
        }
    }
}

/// Results filled in by two threads, each at its own indices.
private final class ParallelResults: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var results: [Result<[UInt8], Error>?]
    private var sawFailure = false

    init(count: Int) { results = Array(repeating: nil, count: count) }

    var failed: Bool { lock.withLock { sawFailure } }

    func set(_ index: Int, _ result: Result<[UInt8], Error>) {
        lock.withLock {
            results[index] = result
            if case .failure = result { sawFailure = true }
        }
    }

    func values() throws -> [[UInt8]] {
        try lock.withLock {
            for case .failure(let error)? in results { throw error }
            return try results.map { result in
                guard case .success(let chunk)? = result else { throw StoreError.io(operation: "compress", path: "vault payload", errno: 0) }
                return chunk
            }
        }
    }
}
