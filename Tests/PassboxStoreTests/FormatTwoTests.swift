import Foundation
import PassboxCore
import PassboxCrypto
@testable import PassboxStore
import PassboxTestKit
import Testing

/// Puts another vault (its own password, data key and slot nonce) into slot `index` of the file, sealed by
/// the store's own sealer, as a duress vault would be: for tests of files with several used slots.
func addVault(_ dir: TemporaryDirectory, index: Int, password: String, title: String) throws {
    let path = dir.path + "/vault.pbx"
    var file = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    let header = try VaultHeader.decode(Array(file[0..<128]), path: path)
    let key = try Argon2.derive(password: Array(password.utf8), salt: header.salt, parameters: header.kdf)
    let nonce = SecureRandom.bytes(count: SlotCodec.nonceLength)
    var vault = Vault(slotOrder: Array(0..<16))
    try vault.add(Item(category: .login, title: title), now: Date())
    let packed = vault.packed()
    let compressed = try packed.withUnsafeBytes { try Deflate.compress($0) }
    let slot = try SlotCodec.sealSlot(
        header: header, index: index, slotNonce: nonce, wrapKey: try SlotCodec.wrapKey(passwordKey: key, slotNonce: nonce),
        dataKey: .generate(count: 32), generation: 7, compressed: compressed, now: Date())
    file.replaceSubrange((128 + index * header.slotSize)..<(128 + (index + 1) * header.slotSize), with: slot)
    try Data(file).write(to: URL(fileURLWithPath: path))
}

/// A format-1 slot built by hand from docs/FORMATS.md (envelopes with their version byte, associated data
/// over the header with format version 1), for files only an older Passbox could have written.
func formatOneSlot(header: VaultHeader, index: Int, password: String, vault: Vault) throws -> [UInt8] {
    precondition(header.formatVersion == 1)
    let key = try Argon2.derive(password: Array(password.utf8), salt: header.salt, parameters: header.kdf)
    let nonce = SecureRandom.bytes(count: 32)
    let wrap = try HKDF.deriveKey(from: key, salt: nonce, info: "passbox/v1/vault-slot/wrap")
    let data = SecretBytes.generate(count: 32)
    let bodyLength = header.slotSize - 129
    var keyPlain = data.revealBytes()
    keyPlain.appendBigEndian(UInt64(bodyLength))
    keyPlain.appendBigEndian(UInt64(41))
    keyPlain.appendBigEndian(UInt64(1_800_000_000_000))
    func ad(_ label: String) -> [UInt8] {
        Array(label.utf8) + [0] + header.encoded(slotSizeZeroed: true) + [0, UInt8(index)] + nonce
    }
    let packed = vault.packed()
    var body = [UInt8](repeating: 0, count: bodyLength - 41)
    body.replaceSubrange(0..<16, with: [0, 0, 0, 1, 0, 0, 0, 0] + (0..<8).map { UInt8(truncatingIfNeeded: UInt64(packed.count) >> (56 - 8 * $0)) })
    body.replaceSubrange(16..<(16 + packed.count), with: packed)
    let slot = nonce + (try Envelope.seal(keyPlain, key: wrap, associatedData: ad("passbox/v1/vault-slot/key")))
        + (try Envelope.seal(body, key: data, associatedData: ad("passbox/v1/vault-slot/body")))
    precondition(slot.count == header.slotSize && slot[32] == 1 && slot[129] == 1)
    return slot
}

@Suite struct FormatTwoTests {
    static let slotSize = 1 << 20
    /// The slot offsets checked: the front (nonce, key box, start of the body), the middle, the end.
    static let offsets = Array(0..<4096) + Array((slotSize / 2)..<(slotSize / 2 + 256)) + Array((slotSize - 256)..<slotSize)

    func slotBytes(_ file: [UInt8], _ slot: Int) -> [UInt8] {
        FormatTwoTests.offsets.map { file[128 + slot * FormatTwoTests.slotSize + $0] }
    }

    /// The checked slot offsets at which 8 or more of 16 slots share a byte: for uniform bytes the odds of
    /// that at one offset are below 1e-12.
    func sharedOffsets(_ slots: [[UInt8]]) -> [Int] {
        precondition(slots.count == 16)
        return FormatTwoTests.offsets.indices.filter { column in
            var counts = [Int](repeating: 0, count: 256)
            for slot in slots { counts[Int(slot[column])] += 1 }
            return counts.max()! >= 8
        }.map { FormatTwoTests.offsets[$0] }
    }

    /// Pearson's chi-square statistic of a byte histogram against the uniform distribution (255 degrees of
    /// freedom: mean 255, standard deviation about 22.6).
    func chiSquare(_ bytes: [UInt8]) -> Double {
        var counts = [Int](repeating: 0, count: 256)
        for b in bytes { counts[Int(b)] += 1 }
        let expected = Double(bytes.count) / 256
        return counts.reduce(0) { $0 + (Double($1) - expected) * (Double($1) - expected) / expected }
    }

    /// Files with 1, 3 and 16 used slots, pooled until at least 16 used slots are seen: at no checked offset
    /// do used slots share a byte more often than chance allows (format 1 had `0x01` at 32 and 129 in every
    /// used slot), and the bytes of used slots, like those of unused ones, pass a chi-square test.
    @Test(arguments: [1, 3, 16])
    func usedSlotsAreIndistinguishableFromUnusedOnes(_ used: Int) throws {
        var usedSlots = [[UInt8]]()
        var unusedSlots = [[UInt8]]()
        while usedSlots.count < 16 {
            let dir = try TemporaryDirectory()
            let (_, opened) = try makeVault(dir, items: 3)
            var occupied = [opened.slotIndex]
            for index in (0..<16).filter({ $0 != opened.slotIndex }).shuffled().prefix(used - 1) {
                try addVault(dir, index: index, password: "password of slot \(index)", title: "Vault \(index)")
                occupied.append(index)
            }
            let file = Array(try Data(contentsOf: dir.file("vault.pbx")))
            #expect(file[9] == 2)
            for slot in 0..<16 {
                if occupied.contains(slot) { usedSlots.append(slotBytes(file, slot)) } else { unusedSlots.append(slotBytes(file, slot)) }
            }
            if used > 1 {
                // The added vaults open with their own passwords, and the first one still does.
                let other = try #require(occupied.last)
                #expect(try VaultStore(directory: dir.path).unlock(password: "password of slot \(other)").vault.items.map(\.title) == ["Vault \(other)"])
                #expect(try VaultStore(directory: dir.path).unlock(password: password).vault.items.count == 3)
            }
        }
        for (group, pooled) in [("used", usedSlots), ("unused", unusedSlots)] where !pooled.isEmpty {
            #expect(sharedOffsets(Array(pooled.prefix(16))) == [], "\(group) slots")
            // The 1e-8 tail of chi-square with 255 degrees of freedom is about 390.
            let statistic = chiSquare(pooled.flatMap { $0 })
            #expect(statistic < 400, "\(group) slots: chi-square \(statistic)")
        }
    }

    /// The column test finds what format 1 had: a version byte at slot offsets 32 and 129 of every used slot.
    @Test func theColumnTestCatchesFormatOne() throws {
        let header = VaultHeader(slotSize: FormatTwoTests.slotSize, kdf: cheapKDF, salt: SecureRandom.bytes(count: 32), formatVersion: 1)
        let slots = try (0..<16).map { index in
            let slot = try formatOneSlot(header: header, index: index, password: "password \(index)", vault: Vault())
            return FormatTwoTests.offsets.map { slot[$0] }
        }
        #expect(sharedOffsets(slots) == [32, 129])
    }

    /// A format-1 file with two vaults (A, B): both open; A's next save rewrites the whole file in format 2
    /// (its own slot re-sealed, the other fifteen copied with their two former version bytes replaced), after
    /// which B still opens, B's own save converts its slot in turn, and both keep opening.
    @Test func aFormatOneFileIsConvertedAtItsNextSaveAndOtherVaultsKeepOpening() throws {
        let dir = try TemporaryDirectory()
        let header = VaultHeader(slotSize: FormatTwoTests.slotSize, kdf: cheapKDF, salt: SecureRandom.bytes(count: 32), formatVersion: 1)
        var vaultA = Vault(slotOrder: Array(0..<16))
        try vaultA.add(Item(category: .login, title: "In A"), now: Date())
        var vaultB = Vault(slotOrder: Array(0..<16))
        try vaultB.add(Item(category: .secureNote, title: "In B"), now: Date())
        var file = header.encoded()
        for slot in 0..<16 {
            switch slot {
            case 3: file += try formatOneSlot(header: header, index: 3, password: "password of vault A", vault: vaultA)
            case 11: file += try formatOneSlot(header: header, index: 11, password: "password of vault B", vault: vaultB)
            default: file += SecureRandom.bytes(count: FormatTwoTests.slotSize)
            }
        }
        try Data(file).write(to: dir.file("vault.pbx"))
        let store = VaultStore(directory: dir.path)
        let a = try store.unlock(password: "password of vault A")
        #expect(a.vault.items.map(\.title) == ["In A"])
        #expect(try store.unlock(password: "password of vault B").vault.items.map(\.title) == ["In B"])

        var changed = a.vault
        try changed.add(Item(category: .login, title: "Added by A"), now: Date())
        try a.save(changed)
        let converted = Array(try Data(contentsOf: dir.file("vault.pbx")))
        #expect(converted.count == file.count)
        var expectedHeader = header
        expectedHeader.formatVersion = 2
        #expect(Array(converted[0..<128]) == expectedHeader.encoded())
        for slot in 0..<16 where slot != 3 {
            let base = 128 + slot * FormatTwoTests.slotSize
            let differing = (0..<FormatTwoTests.slotSize).lazy.filter { converted[base + $0] != file[base + $0] }
            #expect(Set(differing).isSubset(of: [32, 129]), "slot \(slot)")
        }
        // In the old layout the marker of A's slot is gone too: A's slot is now format 2.
        #expect(converted[(128 + 3 * FormatTwoTests.slotSize)..<(128 + 4 * FormatTwoTests.slotSize)] != file[(128 + 3 * FormatTwoTests.slotSize)..<(128 + 4 * FormatTwoTests.slotSize)])

        let b = try store.unlock(password: "password of vault B")
        #expect(b.vault.items.map(\.title) == ["In B"])
        var changedB = b.vault
        try changedB.add(Item(category: .login, title: "Added by B"), now: Date())
        try b.save(changedB)
        #expect(Set(try store.unlock(password: "password of vault A").vault.items.map(\.title)) == ["In A", "Added by A"])
        #expect(Set(try store.unlock(password: "password of vault B").vault.items.map(\.title)) == ["In B", "Added by B"])
        // A vault still in the old layout and a changed header: the format byte is bound for both layouts.
        var downgraded = Array(try Data(contentsOf: dir.file("vault.pbx")))
        downgraded[9] = 1
        try Data(downgraded).write(to: dir.file("vault.pbx"))
        #expect(throws: StoreError.wrongPassword) { try VaultStore(directory: dir.path).unlock(password: "password of vault A") }
    }
}
