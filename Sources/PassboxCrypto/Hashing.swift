internal import CSodium
internal import CCryptoSupport

/// Hash functions: SHA-256 (libsodium, or libcrypto for large inputs), BLAKE2b (libsodium), SHA-1 (libcrypto;
/// only for the Pwned Passwords range query).
public enum Hash {
    /// Inputs from this size on are hashed by libcrypto, whose SHA-256 uses the processor's SHA extensions
    /// where it has them (1.4 GB/s on the project's machine against libsodium's portable 0.2 GB/s: the save
    /// journal's checksum over a 16 MiB slot took 80 ms). Smaller ones stay with libsodium, which is loaded
    /// anyway, so a command that hashes a few bytes never pays for loading libcrypto.
    static let largeInput = 1 << 16

    public static func sha256(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        if data.count >= largeInput, CCrypto_sha256(data, data.count, &out) == 1 { return out }
        Sodium.ensureInitialised()
        _ = crypto_hash_sha256(&out, data, UInt64(data.count))
        return out
    }

    /// SHA-256 as 64 lower-case hex characters (fingerprints compared as text: the clipboard's and PRIMARY's
    /// helpers, a catalogue's version).
    public static func sha256Hex(_ data: [UInt8]) -> String {
        sha256(data).map { String(format: "%02x", $0) }.joined()
    }

    public static func blake2b(_ data: [UInt8], length: Int = 32) -> [UInt8] {
        Sodium.ensureInitialised()
        var out = [UInt8](repeating: 0, count: length)
        _ = crypto_generichash(&out, length, data, UInt64(data.count), nil, 0)
        return out
    }

    public static func sha1(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 20)
        let done = CCrypto_sha1(data, data.count, &out)
        precondition(done == 1, "SHA-1 failed in libcrypto (is libcrypto.so.3 installed?)")
        return out
    }
}

/// ISO/IEC 7816-4 padding (libsodium's `sodium_pad`): the plaintext, 0x80, then zeros up to the block size.
public enum Padding {
    /// Pads to the next multiple of `blockSize` (always adding at least one byte).
    public static func pad(_ bytes: [UInt8], blockSize: Int) -> [UInt8] {
        precondition(blockSize > 0)
        var out = bytes
        out.append(contentsOf: [UInt8](repeating: 0, count: blockSize - bytes.count % blockSize))
        var padded = 0
        let result = out.withUnsafeMutableBufferPointer { buffer in
            sodium_pad(&padded, buffer.baseAddress!, bytes.count, blockSize, buffer.count)
        }
        precondition(result == 0 && padded == out.count, "sodium_pad")
        return out
    }

    /// The plaintext without its padding, or nil when the padding is malformed.
    public static func unpad(_ bytes: [UInt8], blockSize: Int) -> [UInt8]? {
        guard blockSize > 0, !bytes.isEmpty, bytes.count % blockSize == 0 else { return nil }
        var length = 0
        let result = bytes.withUnsafeBufferPointer { sodium_unpad(&length, $0.baseAddress!, bytes.count, blockSize) }
        return result == 0 ? Array(bytes[0..<length]) : nil
    }
}

/// Lower-case hexadecimal (libsodium's `sodium_bin2hex`, which runs in constant time): tokens, digests and
/// the test kit's `Hex.string`.
public enum Base16 {
    public static func encode(_ bytes: [UInt8]) -> String {
        var out = [CChar](repeating: 0, count: bytes.count * 2 + 1)
        _ = sodium_bin2hex(&out, out.count, bytes, bytes.count)
        return String(decoding: out.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
