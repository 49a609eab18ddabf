import Foundation
import PassboxCore
import PassboxCrypto

/// The layout and cryptography of one slot (docs/FORMATS.md). Format 2, which new files use:
///
/// ```
/// 0    32  slot nonce (HKDF salt of the wrap key)
/// 32   96  key box: XChaCha nonce 24 | sealed(wrap key; data key 32 | body length 8 | generation 8 | wrapped-at ms 8)
/// 128  L   body: XChaCha nonce 24 | sealed(data key; payload version 4 | compression id 4 | compressed length 8 | payload | zeros)
/// ```
/// Compression id 1 is one zlib stream; id 2 (written now) is `ChunkedPayload`, chunks on item boundaries.
/// ```
/// ```
/// Format 1 put an envelope version byte (`0x01`) before each XChaCha nonce, at slot offsets 32 and 129: a
/// constant that told used slots from random ones. Format 2 has no byte in the clear that is not random.
///
/// The wrap key is `HKDF-SHA256(ikm: password key, salt: slot nonce, info: "passbox/v1/vault-slot/wrap")` in
/// both formats. Both sealed parts carry as associated data a label, the header with its slot size zeroed
/// (and so its format version), the slot index (2 bytes) and the slot nonce, so a changed header byte, a
/// moved slot or a swapped box opens nothing.
enum SlotCodec {
    /// Where a slot's parts lie. A format-2 file may still hold format-1 slots: a file converted at a save
    /// keeps the other vaults' slots byte for byte (it has no key to re-seal them) except that their two
    /// version bytes are overwritten with random ones, which format 1 never authenticated. Such a slot opens
    /// with the format-1 layout and associated data (the header as it was, with format version 1), the byte
    /// at each former version position ignored; its own next save rewrites it in format 2.
    enum Layout: Sendable {
        case format1
        case format2

        var keyBoxOffset: Int { self == .format1 ? nonceLength + 1 : nonceLength }
        var bodyOffset: Int { self == .format1 ? 129 : 128 }
        /// Where the body's XChaCha nonce starts.
        var bodyNonceOffset: Int { self == .format1 ? 130 : 128 }
        var keyLabel: String { self == .format1 ? "passbox/v1/vault-slot/key" : "passbox/v2/vault-slot/key" }
        var bodyLabel: String { self == .format1 ? "passbox/v1/vault-slot/body" : "passbox/v2/vault-slot/body" }
        var formatVersion: UInt16 { self == .format1 ? 1 : 2 }
    }

    static let nonceLength = 32
    static let keyBoxPlainLength = 56
    static let sealedOverhead = 24 + 16
    /// Bytes read from the front of a slot to try its key box in either layout.
    static let prefixLength = 129
    /// The slot offsets of format 1's two envelope version bytes.
    static let formatOneMarkerOffsets = [32, 129]
    static let bodyHeaderLength = 16
    static let payloadVersion: UInt32 = 1
    static let compressionNone: UInt32 = 0
    static let compressionDeflate: UInt32 = 1
    /// Independently deflated chunks (`ChunkedPayload`), written since the incremental save.
    static let compressionChunked: UInt32 = 2
    static let wrapInfo = "passbox/v1/vault-slot/wrap"

    /// The layouts to try in a file of `header`'s format, every one for every slot (the work must not depend
    /// on what is found).
    static func layouts(for header: VaultHeader) -> [Layout] {
        switch header.formatVersion {
        case 1: [.format1]
        case VaultHeader.singleSlotVersion: [.format2]  // a one-slot file was never format 1
        default: [.format2, .format1]
        }
    }

    /// The most a payload may inflate to, over all its chunks: more is a decompression bomb.
    static func decompressionLimit(slotSize: Int) -> Int { min(1 << 30, max(64 << 20, 16 * slotSize)) }

    /// The limit for a slot of `header`: a one-slot file's slot is sized to its compressed payload, with no
    /// power-of-two headroom, so a vault that compresses better than 16 to 1 would outgrow the ratio it saved
    /// fine under; its limit is the largest any payload may inflate to. (The body is authenticated before it is
    /// inflated: only a holder of the key could write a bomb there.)
    static func decompressionLimit(_ header: VaultHeader) -> Int {
        header.isSingleSlot ? 1 << 30 : decompressionLimit(slotSize: header.slotSize)
    }

    /// The largest compressed payload a format-2 slot of `slotSize` bytes can hold.
    static func capacity(slotSize: Int) -> Int { slotSize - Layout.format2.bodyOffset - sealedOverhead - bodyHeaderLength }

    static func associatedData(label: String, header: VaultHeader, index: Int, slotNonce: [UInt8]) -> [UInt8] {
        var ad = Array(label.utf8)
        ad.append(0)
        ad += header.associatedData
        ad.appendBigEndian(UInt16(index))
        ad += slotNonce
        return ad
    }

    /// The associated data of a slot in `layout` inside a file with `header`: a format-1 slot was sealed
    /// under the header as it was before conversion, with format version 1.
    static func associatedData(_ layout: Layout, body: Bool, header: VaultHeader, index: Int, slotNonce: [UInt8]) -> [UInt8] {
        var bound = header
        // A format-1 slot was sealed under the header as it was then (version 1); a format-2 slot under the
        // file's own version (2, or 3 in an account's one-slot file).
        if layout == .format1 || header.formatVersion < Layout.format2.formatVersion { bound.formatVersion = layout.formatVersion }
        return associatedData(label: body ? layout.bodyLabel : layout.keyLabel, header: bound, index: index, slotNonce: slotNonce)
    }

    static func wrapKey(passwordKey: SecretBytes, slotNonce: [UInt8]) throws -> SecretBytes {
        try HKDF.deriveKey(from: passwordKey, salt: slotNonce, info: wrapInfo)
    }

    /// What a key box holds.
    struct KeyBox {
        let dataKey: SecretBytes
        let bodyLength: Int
        let generation: UInt64
        let wrappedAt: UInt64
    }

    /// Opens a slot's key box (`slotPrefix` holds at least `prefixLength` bytes), or nil when the wrap key is
    /// not this slot's. In a format-1 file the version byte must be 1, as format 1 always required; in a
    /// format-2 file it is ignored, since conversion replaced it with a random byte.
    static func openKeyBox(slotPrefix: [UInt8], header: VaultHeader, index: Int, wrapKey: SecretBytes, layout: Layout) -> KeyBox? {
        if layout == .format1, header.formatVersion == 1, slotPrefix[formatOneMarkerOffsets[0]] != Envelope.version { return nil }
        let nonce = Array(slotPrefix[0..<nonceLength])
        let ad = associatedData(layout, body: false, header: header, index: index, slotNonce: nonce)
        let start = layout.keyBoxOffset
        let boxNonce = Array(slotPrefix[start..<(start + 24)])
        return try? slotPrefix.withUnsafeBytes { raw in
            let sealed = UnsafeRawBufferPointer(rebasing: raw[(start + 24)..<(start + 24 + keyBoxPlainLength + 16)])
            return try XChaCha20Poly1305.open(sealed, key: wrapKey, nonce: boxNonce, associatedData: ad) { plain in
                guard plain.count == keyBoxPlainLength else { throw CryptoError.authenticationFailed }
                let key = SecretBytes(count: 32) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: plain[0..<32])) }
                return KeyBox(
                    dataKey: key, bodyLength: Int(clamping: plain.bigEndianUInt64(at: 32)), generation: plain.bigEndianUInt64(at: 40),
                    wrappedAt: plain.bigEndianUInt64(at: 48))
            }
        }
    }

    /// Builds a whole format-2 slot of `header.slotSize` bytes whose body holds `compressed` (one zlib
    /// stream, compression id 1) and fills the slot.
    static func sealSlot(
        header: VaultHeader, index: Int, slotNonce: [UInt8], wrapKey: SecretBytes, dataKey: SecretBytes,
        generation: UInt64, compressed: [UInt8], now: Date
    ) throws -> [UInt8] {
        try sealSlot(
            header: header, index: index, slotNonce: slotNonce, wrapKey: wrapKey, dataKey: dataKey, generation: generation,
            compression: compressionDeflate, compressedLength: compressed.count, now: now
        ) { out in
            compressed.withUnsafeBytes { c in
                if c.count > 0 { out.baseAddress!.copyMemory(from: c.baseAddress!, byteCount: c.count) }
            }
        }
    }

    /// Builds a whole format-2 slot of `header.slotSize` bytes whose body fills the slot and holds a
    /// compressed payload of `compressedLength` bytes under `compression`, which `writeCompressed` writes
    /// into the buffer it is given (exactly that long). The slot is one allocation: the body plaintext is
    /// assembled where its ciphertext goes and sealed in place, so no other copy of the payload is made.
    static func sealSlot(
        header: VaultHeader, index: Int, slotNonce: [UInt8], wrapKey: SecretBytes, dataKey: SecretBytes,
        generation: UInt64, compression: UInt32, compressedLength: Int, now: Date,
        writeCompressed: (UnsafeMutableRawBufferPointer) -> Void
    ) throws -> [UInt8] {
        precondition(header.formatVersion >= Layout.format2.formatVersion, "slots are written in format 2's layout only")
        let layout = Layout.format2
        let bodyLength = header.slotSize - layout.bodyOffset
        let plainLength = bodyLength - sealedOverhead
        precondition(compressedLength <= plainLength - bodyHeaderLength, "caller must grow the slot first")
        // The key box's plaintext is made at its final size and the data key copied in, so no append can
        // reallocate and leave an unwiped copy of the key behind; it is revealed only to be sealed, wiped below.
        var keyPlain = [UInt8](repeating: 0, count: dataKey.count + 24)
        defer { ConstantTime.wipe(&keyPlain) }
        keyPlain.withUnsafeMutableBytes { plain in
            dataKey.withUnsafeBytes { plain.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            plain.storeBytes(of: UInt64(bodyLength).bigEndian, toByteOffset: dataKey.count, as: UInt64.self)
            plain.storeBytes(of: generation.bigEndian, toByteOffset: dataKey.count + 8, as: UInt64.self)
            plain.storeBytes(of: UInt64(max(0, now.timeIntervalSince1970 * 1000)).bigEndian, toByteOffset: dataKey.count + 16, as: UInt64.self)
        }
        let keyAD = associatedData(layout, body: false, header: header, index: index, slotNonce: slotNonce)
        let keyNonce = SecureRandom.bytes(count: XChaCha20Poly1305.nonceLength)
        let keyBox = try XChaCha20Poly1305.seal(keyPlain, key: wrapKey, nonce: keyNonce, associatedData: keyAD)
        let bodyAD = associatedData(layout, body: true, header: header, index: index, slotNonce: slotNonce)
        let bodyNonce = SecureRandom.bytes(count: XChaCha20Poly1305.nonceLength)

        var slot = [UInt8](repeating: 0, count: header.slotSize)
        let sealedStart = layout.bodyOffset + XChaCha20Poly1305.nonceLength
        do {
            try slot.withUnsafeMutableBytes { s in
                var offset = 0
                for part in [slotNonce, keyNonce, keyBox, bodyNonce] {
                    part.withUnsafeBytes { (s.baseAddress! + offset).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                    offset += part.count
                }
                precondition(offset == sealedStart)
                // The body plaintext, in place: header, compressed payload, then the zeros already there.
                let body = UnsafeMutableRawBufferPointer(rebasing: s[sealedStart...])
                body.storeBytes(of: payloadVersion.bigEndian, toByteOffset: 0, as: UInt32.self)
                body.storeBytes(of: compression.bigEndian, toByteOffset: 4, as: UInt32.self)
                body.storeBytes(of: UInt64(compressedLength).bigEndian, toByteOffset: 8, as: UInt64.self)
                writeCompressed(UnsafeMutableRawBufferPointer(rebasing: body[bodyHeaderLength..<(bodyHeaderLength + compressedLength)]))
                try XChaCha20Poly1305.sealInPlace(body, key: dataKey, nonce: bodyNonce, associatedData: bodyAD)
            }
        } catch {
            ConstantTime.wipe(&slot)  // it may hold the plaintext body
            throw error
        }
        return slot
    }

    /// Opens a slot's body (`body` starts at `layout.bodyOffset`, its length from the key box) and returns
    /// the decompressed payload; for the chunked layout, with `keepingChunks`, also each chunk's compressed
    /// bytes and where its inflated bytes end in the payload.
    static func openBody(
        body: UnsafeRawBufferPointer, header: VaultHeader, index: Int, slotNonce: [UInt8], dataKey: SecretBytes, layout: Layout, path: String,
        keepingChunks: Bool = false
    ) throws -> ChunkedPayload.Inflated {
        let ad = associatedData(layout, body: true, header: header, index: index, slotNonce: slotNonce)
        let skip = layout.bodyNonceOffset - layout.bodyOffset
        if layout == .format1, header.formatVersion == 1, let marker = body.first, marker != Envelope.version {
            throw StoreError.newerFormat(version: Int(marker))
        }
        guard body.count >= skip + sealedOverhead else { throw StoreError.damaged(path: path, reason: "the vault's data does not authenticate") }
        let nonce = Array(body[skip..<(skip + 24)])
        do {
            return try XChaCha20Poly1305.open(UnsafeRawBufferPointer(rebasing: body[(skip + 24)...]), key: dataKey, nonce: nonce, associatedData: ad) { plain in
                guard plain.count >= bodyHeaderLength else { throw StoreError.damaged(path: path, reason: "the vault body is too short") }
                let version = plain.bigEndianUInt32(at: 0)
                guard version == payloadVersion else {
                    throw version > payloadVersion ? StoreError.newerFormat(version: Int(version)) : StoreError.damaged(path: path, reason: "unknown payload version")
                }
                let compression = plain.bigEndianUInt32(at: 4)
                let length = Int(clamping: plain.bigEndianUInt64(at: 8))
                guard length <= plain.count - bodyHeaderLength else { throw StoreError.damaged(path: path, reason: "the payload length is impossible") }
                let payload = UnsafeRawBufferPointer(rebasing: plain[bodyHeaderLength..<(bodyHeaderLength + length)])
                let limit = decompressionLimit(header)
                switch compression {
                case compressionNone: return ChunkedPayload.Inflated(payload: Array(payload), chunks: [])
                case compressionDeflate: return ChunkedPayload.Inflated(payload: try Deflate.decompress(payload, limit: limit), chunks: [])
                case compressionChunked: return try ChunkedPayload.decompress(payload, limit: limit, keepingChunks: keepingChunks)
                default: throw StoreError.newerFormat(version: Int(compression))
                }
            }
        } catch is CryptoError {
            throw StoreError.damaged(path: path, reason: "the vault's data does not authenticate")
        }
    }
}
