import Foundation
import PassboxCrypto
internal import CLinux

/// The journal of an in-place save, `vault.pbx.journal` beside the vault file (docs/FORMATS.md):
///
/// ```
/// 0    8   magic "PBXJOURN"
/// 8    2   journal version (1)
/// 10   2   slot index
/// 12   4   zero
/// 16   8   offset of the slot in the vault file (128 + index × S)
/// 24   8   length of the slot, S
/// 32   32  SHA-256 of the vault file's 128-byte header the slot belongs to
/// 64   S   the new slot's bytes
/// 64+S 32  SHA-256(bytes 0..<64 ‖ SHA-256(slot bytes))
/// ```
/// A save writes and syncs the journal before it writes a byte of the slot, so whatever a crash leaves, the
/// old slot is intact (no complete journal yet) or the journal holds the whole new slot (replayed at the next
/// open). The closing checksum makes a torn journal (a crash while it was written) detectable.
enum SaveJournal {
    static let magic = Array("PBXJOURN".utf8)
    static let version: UInt16 = 1
    static let headerLength = 64
    static let checksumLength = 32

    /// The 64 bytes before the slot.
    static func header(index: Int, offset: Int, length: Int, vaultHeader: [UInt8]) -> [UInt8] {
        var out = magic
        out.appendBigEndian(version)
        out.appendBigEndian(UInt16(index))
        out.append(contentsOf: [0, 0, 0, 0])
        out.appendBigEndian(UInt64(offset))
        out.appendBigEndian(UInt64(length))
        out += Hash.sha256(vaultHeader)
        precondition(out.count == headerLength)
        return out
    }

    /// The closing checksum; hashing the slot on its own first avoids copying it next to the header.
    static func checksum(header: [UInt8], slot: [UInt8]) -> [UInt8] {
        Hash.sha256(header + Hash.sha256(slot))
    }

    /// A journal read back: what to write, and where.
    struct Entry {
        let index: Int
        let offset: Int
        let slot: [UInt8]
        let vaultHeaderHash: [UInt8]
    }

    enum Reading {
        case complete(Entry)
        /// Torn or not a journal at all: the in-place write had not begun, the old slot is intact.
        case invalid
    }

    /// Parses a journal file; a journal of a newer version is refused rather than discarded, since only a
    /// newer Passbox knows whether its slot must still be written.
    static func read(_ bytes: [UInt8]) throws -> Reading {
        guard bytes.count >= headerLength + checksumLength, Array(bytes[0..<8]) == magic else { return .invalid }
        let journalVersion = bytes.bigEndianUInt16(at: 8)
        if journalVersion > version {
            // Only a complete journal counts: a torn one cannot have been committed to by anyone.
            throw StoreError.newerFormat(version: Int(journalVersion))
        }
        guard journalVersion == version, bytes[12..<16].allSatisfy({ $0 == 0 }) else { return .invalid }
        let index = Int(bytes.bigEndianUInt16(at: 10))
        let offset = bytes.bigEndianUInt64(at: 16)
        let length = bytes.bigEndianUInt64(at: 24)
        guard index < VaultHeader.slotCount, length <= UInt64(VaultHeader.maximumSlotSize), offset <= UInt64(Int.max),
            UInt64(bytes.count) == UInt64(headerLength + checksumLength) + length
        else { return .invalid }
        let slot = Array(bytes[headerLength..<(headerLength + Int(length))])
        let head = Array(bytes[0..<headerLength])
        guard ConstantTime.equal(checksum(header: head, slot: slot), Array(bytes[(headerLength + Int(length))...])) else { return .invalid }
        return .complete(Entry(index: index, offset: Int(offset), slot: slot, vaultHeaderHash: Array(bytes[32..<64])))
    }
}
