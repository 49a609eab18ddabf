// Fuzz target: one slot of a vault file (PassboxStore's slot codec), past the header.
//
// The input is a 128-byte vault header, a 129-byte slot prefix and the plaintext of a slot body. The key boxes
// are tried with a fixed wrap key (random bytes cannot authenticate, but every offset is exercised); the body
// is then sealed here with a fixed data key, so what the codec does after authentication (body header,
// payload length, inflate, MessagePack) sees the fuzzer's bytes.
import PassboxCrypto
@testable import PassboxStore

let fixedKey = SecretBytes(copying: [UInt8](repeating: 0x5a, count: 32))
let fallbackHeader = VaultHeader(
    slotSize: VaultHeader.minimumSlotSize, kdf: Argon2Parameters(memoryKiB: 64, passes: 1, lanes: 1), salt: [UInt8](repeating: 7, count: 32))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    var header = (try? VaultHeader.decode(Array(bytes.prefix(VaultHeader.length)), path: "fuzz")) ?? fallbackHeader
    // The inflate limit grows with the slot size (up to 1 GiB): keep it at the smallest slot's 64 MiB here.
    header.slotSize = VaultHeader.minimumSlotSize
    let rest = Array(bytes.dropFirst(VaultHeader.length))
    var prefix = Array(rest.prefix(SlotCodec.prefixLength))
    prefix += [UInt8](repeating: 0, count: SlotCodec.prefixLength - prefix.count)
    let body = Array(rest.dropFirst(SlotCodec.prefixLength))
    let nonce = Array(prefix[0..<SlotCodec.nonceLength])
    for layout in SlotCodec.layouts(for: header) {
        _ = SlotCodec.openKeyBox(slotPrefix: prefix, header: header, index: 3, wrapKey: fixedKey, layout: layout)
        let ad = SlotCodec.associatedData(layout, body: true, header: header, index: 3, slotNonce: nonce)
        let bodyNonce = [UInt8](repeating: 1, count: XChaCha20Poly1305.nonceLength)
        guard let sealed = try? XChaCha20Poly1305.seal(body, key: fixedKey, nonce: bodyNonce, associatedData: ad) else { continue }
        let skip = layout.bodyNonceOffset - layout.bodyOffset
        let stored = [UInt8](repeating: 1, count: skip) + bodyNonce + sealed
        let payload = try? stored.withUnsafeBytes {
            try SlotCodec.openBody(body: $0, header: header, index: 3, slotNonce: nonce, dataKey: fixedKey, layout: layout, path: "fuzz")
        }
        if let payload { _ = try? PayloadCodec.decode(payload.payload, path: "fuzz") }
    }
    return 0
}
