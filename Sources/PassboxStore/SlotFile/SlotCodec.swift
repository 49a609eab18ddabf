import Foundation
import PassboxCore
import PassboxCrypto

/// The layout and cryptography of one slot (docs/FORMATS.md):
///
/// ```
/// 0    32  slot nonce (HKDF salt of the wrap key)
/// 32   97  key box: envelope(wrap key; data key 32 | body length 8 | generation 8 | wrapped-at ms 8)
/// 129  L   body: envelope(data key; payload version 4 | compression id 4 | compressed length 8 | payload | zeros)
/// 129+L    random fill to the slot size
/// ```
/// The wrap key is `HKDF-SHA256(ikm: password key, salt: slot nonce, info: "passbox/v1/vault-slot/wrap")`.
/// Both envelopes carry as associated data a label, the header with its slot size zeroed, the slot index
/// (2 bytes) and the slot nonce, so a changed header byte, a moved slot or a swapped box opens nothing.
enum SlotCodec {
    static let nonceLength = 32
    static let keyBoxPlainLength = 56
    static let keyBoxLength = keyBoxPlainLength + Envelope.overhead
    static let bodyOffset = nonceLength + keyBoxLength
    static let bodyHeaderLength = 16
    static let payloadVersion: UInt32 = 1
    static let compressionNone: UInt32 = 0
    static let compressionDeflate: UInt32 = 1
    static let wrapInfo = "passbox/v1/vault-slot/wrap"

    /// The largest compressed payload a slot of `slotSize` bytes can hold.
    static func capacity(slotSize: Int) -> Int { slotSize - bodyOffset - Envelope.overhead - bodyHeaderLength }

    static func associatedData(label: String, header: VaultHeader, index: Int, slotNonce: [UInt8]) -> [UInt8] {
        var ad = Array(label.utf8)
        ad.append(0)
        ad += header.associatedData
        ad.appendBigEndian(UInt16(index))
        ad += slotNonce
        return ad
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

    /// Opens a slot's key box, or nil when the wrap key is not this slot's.
    static func openKeyBox(slotPrefix: [UInt8], header: VaultHeader, index: Int, wrapKey: SecretBytes) -> KeyBox? {
        let nonce = Array(slotPrefix[0..<nonceLength])
        let ad = associatedData(label: "passbox/v1/vault-slot/key", header: header, index: index, slotNonce: nonce)
        return try? slotPrefix.withUnsafeBytes { raw in
            try Envelope.open(UnsafeRawBufferPointer(rebasing: raw[nonceLength..<bodyOffset]), key: wrapKey, associatedData: ad) { plain in
                guard plain.count == keyBoxPlainLength else { throw CryptoError.authenticationFailed }
                let key = SecretBytes(count: 32) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: plain[0..<32])) }
                return KeyBox(
                    dataKey: key, bodyLength: Int(plain.bigEndianUInt64(at: 32)), generation: plain.bigEndianUInt64(at: 40),
                    wrappedAt: plain.bigEndianUInt64(at: 48))
            }
        }
    }

    /// Builds a whole slot of `header.slotSize` bytes whose body holds `compressed` and fills the slot.
    static func sealSlot(
        header: VaultHeader, index: Int, slotNonce: [UInt8], wrapKey: SecretBytes, dataKey: SecretBytes,
        generation: UInt64, compressed: [UInt8], now: Date
    ) throws -> [UInt8] {
        let bodyLength = header.slotSize - bodyOffset
        let plainLength = bodyLength - Envelope.overhead
        precondition(compressed.count <= plainLength - bodyHeaderLength, "caller must grow the slot first")
        var keyPlain = dataKey.revealBytes()  // revealed only to be sealed into the key box; wiped below
        defer { ConstantTime.wipe(&keyPlain) }
        keyPlain.appendBigEndian(UInt64(bodyLength))
        keyPlain.appendBigEndian(generation)
        keyPlain.appendBigEndian(UInt64(max(0, now.timeIntervalSince1970 * 1000)))
        let keyAD = associatedData(label: "passbox/v1/vault-slot/key", header: header, index: index, slotNonce: slotNonce)
        let keyBox = try Envelope.seal(keyPlain, key: wrapKey, associatedData: keyAD)

        var body = [UInt8](repeating: 0, count: plainLength)
        defer { ConstantTime.wipe(&body) }
        body.withUnsafeMutableBytes { b in
            b.storeBytes(of: payloadVersion.bigEndian, toByteOffset: 0, as: UInt32.self)
            b.storeBytes(of: compressionDeflate.bigEndian, toByteOffset: 4, as: UInt32.self)
            b.storeBytes(of: UInt64(compressed.count).bigEndian, toByteOffset: 8, as: UInt64.self)
            compressed.withUnsafeBytes { c in
                if c.count > 0 { (b.baseAddress! + bodyHeaderLength).copyMemory(from: c.baseAddress!, byteCount: c.count) }
            }
        }
        let bodyAD = associatedData(label: "passbox/v1/vault-slot/body", header: header, index: index, slotNonce: slotNonce)
        let sealedBody = try Envelope.seal(body, key: dataKey, associatedData: bodyAD)
        var slot = slotNonce
        slot.reserveCapacity(header.slotSize)
        slot += keyBox
        slot += sealedBody
        precondition(slot.count == header.slotSize)
        return slot
    }

    /// Opens a slot's body and returns the decompressed payload (JSON). `limit` bounds decompression.
    static func openBody(
        body: UnsafeRawBufferPointer, header: VaultHeader, index: Int, slotNonce: [UInt8], dataKey: SecretBytes, path: String
    ) throws -> [UInt8] {
        let ad = associatedData(label: "passbox/v1/vault-slot/body", header: header, index: index, slotNonce: slotNonce)
        do {
            return try Envelope.open(body, key: dataKey, associatedData: ad) { plain in
                guard plain.count >= bodyHeaderLength else { throw StoreError.damaged(path: path, reason: "the vault body is too short") }
                let version = plain.bigEndianUInt32(at: 0)
                guard version == payloadVersion else {
                    throw version > payloadVersion ? StoreError.newerFormat(version: Int(version)) : StoreError.damaged(path: path, reason: "unknown payload version")
                }
                let compression = plain.bigEndianUInt32(at: 4)
                let length = Int(clamping: plain.bigEndianUInt64(at: 8))
                guard length <= plain.count - bodyHeaderLength else { throw StoreError.damaged(path: path, reason: "the payload length is impossible") }
                let payload = UnsafeRawBufferPointer(rebasing: plain[bodyHeaderLength..<(bodyHeaderLength + length)])
                switch compression {
                case compressionNone: return Array(payload)
                case compressionDeflate: return try Deflate.decompress(payload, limit: min(1 << 30, max(64 << 20, 16 * header.slotSize)))
                default: throw StoreError.newerFormat(version: Int(compression))
                }
            }
        } catch CryptoError.unsupportedVersion(let v) {
            throw StoreError.newerFormat(version: Int(v))
        } catch is CryptoError {
            throw StoreError.damaged(path: path, reason: "the vault's data does not authenticate")
        }
    }
}
