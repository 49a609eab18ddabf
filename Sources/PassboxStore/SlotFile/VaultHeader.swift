import PassboxCrypto

/// The 128-byte plaintext header of a vault file (docs/FORMATS.md). Integers are big-endian.
///
/// ```
/// 0   8  magic "PBXVAULT"
/// 8   2  format version (2; 3 for an account's one-slot file; format 1 is still read and converted)
/// 10  2  slot count (16; 1 in format 3)
/// 12  4  slot size in bytes (1 MiB × 2^k with sixteen slots; a multiple of 4 KiB with one)
/// 16  2  KDF id (1 = Argon2id v1.3)
/// 18  4  Argon2 memory in KiB
/// 22  4  Argon2 passes
/// 26  1  Argon2 lanes
/// 27  5  zero
/// 32  32 salt
/// 64  64 zero (reserved)
/// ```
public struct VaultHeader: Equatable, Sendable {
    public static let length = 128
    public static let magic = Array("PBXVAULT".utf8)
    /// The format new files are written in.
    public static let currentVersion: UInt16 = 2
    /// The oldest format still read.
    public static let oldestVersion: UInt16 = 1
    /// An account's one-slot file: format 2's slot in a file of one slot (issue 30). A version of its own, so a
    /// build from before says "needs a newer Passbox" instead of calling the file damaged.
    public static let singleSlotVersion: UInt16 = 3
    /// The newest format this build reads.
    public static let newestVersion: UInt16 = singleSlotVersion
    /// The slots of a local vault's file, which may hide one another (duress vaults).
    public static let slotCount = 16
    /// The slot of an account's vault file: the server knows the account's vaults, so the file has nothing
    /// to deny, and one slot sized to its vault makes a save write its vault once instead of twice (issue 30).
    public static let singleSlot = 1
    /// A one-slot file's slot size is a multiple of this (so the file's size tells little more than the
    /// server already knows, and a page is written whole).
    public static let singleSlotGranule = 4096
    public static let minimumSlotSize = 1 << 20
    public static let maximumSlotSize = 1 << 30
    public static let kdfArgon2id: UInt16 = 1

    /// The file format: 1 (envelopes with a version byte inside the slots) or 2 (no clear byte in a slot).
    public var formatVersion: UInt16
    /// 16 (a local vault's file) or 1 (an account's).
    public var slotCount: Int
    public var slotSize: Int
    public var kdf: Argon2Parameters
    public var salt: [UInt8]

    public init(
        slotSize: Int, kdf: Argon2Parameters, salt: [UInt8], formatVersion: UInt16 = VaultHeader.currentVersion, slotCount: Int = VaultHeader.slotCount
    ) {
        self.formatVersion = formatVersion
        self.slotCount = slotCount
        self.slotSize = slotSize
        self.kdf = kdf
        self.salt = salt
    }

    /// Size of the whole file for this header.
    public var fileSize: Int { VaultHeader.length + slotCount * slotSize }

    /// Whether this is an account vault's one-slot file.
    public var isSingleSlot: Bool { slotCount == VaultHeader.singleSlot }

    /// The slot size of a one-slot file whose vault's compressed payload is `compressedLength` bytes: the
    /// smallest multiple of 4 KiB that holds it.
    public static func singleSlotSize(forCompressedLength compressedLength: Int) -> Int {
        let needed = compressedLength + (SlotCodec.Layout.format2.bodyOffset + SlotCodec.sealedOverhead + SlotCodec.bodyHeaderLength)
        return (needed + singleSlotGranule - 1) / singleSlotGranule * singleSlotGranule
    }

    /// The 128 header bytes.
    public func encoded(slotSizeZeroed: Bool = false) -> [UInt8] {
        var out = VaultHeader.magic
        out.appendBigEndian(formatVersion)
        out.appendBigEndian(UInt16(slotCount))
        out.appendBigEndian(slotSizeZeroed ? UInt32(0) : UInt32(slotSize))
        out.appendBigEndian(VaultHeader.kdfArgon2id)
        out.appendBigEndian(kdf.memoryKiB)
        out.appendBigEndian(kdf.passes)
        out.append(kdf.lanes)
        out.append(contentsOf: [UInt8](repeating: 0, count: 5))
        out.append(contentsOf: salt)
        out.append(contentsOf: [UInt8](repeating: 0, count: 64))
        precondition(out.count == VaultHeader.length)
        return out
    }

    /// The header with the slot size zeroed: associated data of every slot, so growing the slot size
    /// leaves the other vaults' slots valid while any other header change makes every slot fail.
    public var associatedData: [UInt8] { encoded(slotSizeZeroed: true) }

    /// Parses and checks a header; refuses anything malformed before a key is derived.
    public static func decode(_ bytes: [UInt8], path: String) throws -> VaultHeader {
        guard bytes.count >= 16, Array(bytes[0..<8]) == magic else { throw StoreError.notAVault(path: path) }
        let version = bytes.bigEndianUInt16(at: 8)
        guard (oldestVersion...newestVersion).contains(version) else {
            if version > newestVersion { throw StoreError.newerFormat(version: Int(version)) }
            throw StoreError.damaged(path: path, reason: "unknown format version \(version)")
        }
        guard bytes.count >= length else { throw StoreError.damaged(path: path, reason: "the header is truncated") }
        // Sixteen slots in formats 1 and 2; one in format 3 (an account's vault), and only there.
        let count = Int(bytes.bigEndianUInt16(at: 10))
        guard (count == slotCount && version < singleSlotVersion) || (count == singleSlot && version == singleSlotVersion) else {
            throw StoreError.damaged(path: path, reason: "the header has a wrong slot count")
        }
        let slotSize = Int(bytes.bigEndianUInt32(at: 12))
        let sizeFits =
            count == singleSlot
            ? slotSize >= singleSlotGranule && slotSize <= maximumSlotSize && slotSize % singleSlotGranule == 0
            : slotSize >= minimumSlotSize && slotSize <= maximumSlotSize && slotSize & (slotSize - 1) == 0
        guard sizeFits else {
            throw StoreError.damaged(path: path, reason: "the header has an impossible slot size")
        }
        guard bytes.bigEndianUInt16(at: 16) == kdfArgon2id else {
            throw StoreError.damaged(path: path, reason: "the header names an unknown key derivation")
        }
        let kdf = Argon2Parameters(memoryKiB: bytes.bigEndianUInt32(at: 18), passes: bytes.bigEndianUInt32(at: 22), lanes: bytes[26])
        guard KDFLimits.accepts(kdf) else {
            throw StoreError.damaged(path: path, reason: "the header asks for key-derivation parameters out of range")
        }
        guard bytes[27..<32].allSatisfy({ $0 == 0 }), bytes[64..<128].allSatisfy({ $0 == 0 }) else {
            throw StoreError.damaged(path: path, reason: "reserved header bytes are not zero")
        }
        return VaultHeader(slotSize: slotSize, kdf: kdf, salt: Array(bytes[32..<64]), formatVersion: version, slotCount: count)
    }
}

/// The Argon2id parameters a vault header may hold (the format's range: an account's vault keeps the
/// account's parameters there, up to 4 GiB), and those a local vault's password is derived with.
public enum KDFLimits {
    public static func accepts(_ p: Argon2Parameters) -> Bool {
        (8...4 * 1024 * 1024).contains(p.memoryKiB) && (1...128).contains(p.passes) && [1, 2, 4].contains(p.lanes) && p.memoryKiB >= 8 * UInt32(p.lanes)
    }

    /// What `init` can choose (`Argon2Calibration`): at most 1 GiB, at most 128 passes, and at most 16 GiB ×
    /// passes of work, which calibration would pick only on a machine sixteen times faster than one that
    /// derives 1 GiB a second. A local vault's header asking for more (edited to 4 GiB × 128 passes) is refused
    /// as damaged before deriving instead of deriving for minutes, wrong password or right (issue 28).
    public static let maximumMemoryKiB: UInt32 = 1 << 20
    public static let maximumPasses: UInt32 = 128
    /// Memory × passes, in MiB (`Argon2Parameters.work`).
    public static let maximumWork: Double = 16 * 1024

    public static func initCanChoose(_ p: Argon2Parameters) -> Bool {
        accepts(p) && p.memoryKiB <= maximumMemoryKiB && p.passes <= maximumPasses && p.work <= maximumWork
    }
}

extension [UInt8] {
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }

    func bigEndianUInt16(at offset: Int) -> UInt16 { UInt16(self[offset]) << 8 | UInt16(self[offset + 1]) }

    func bigEndianUInt32(at offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(self[offset + $1]) }
    }

    func bigEndianUInt64(at offset: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(self[offset + $1]) }
    }
}

extension UnsafeRawBufferPointer {
    func bigEndianUInt32(at offset: Int) -> UInt32 { (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(self[offset + $1]) } }
    func bigEndianUInt64(at offset: Int) -> UInt64 { (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(self[offset + $1]) } }
}
