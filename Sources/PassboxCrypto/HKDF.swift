internal import CCryptoSupport

/// HKDF-SHA256 (RFC 5869) through OpenSSL's `EVP_KDF` "HKDF" (libcrypto, loaded on first use).
public enum HKDF {
    /// The largest output HKDF-SHA256 can produce (255 blocks).
    public static let maximumLength = 255 * 32

    /// Derives `length` bytes; each use passes its own `info` label.
    public static func deriveKey(
        inputKeyMaterial: UnsafeRawBufferPointer, salt: [UInt8], info: [UInt8], length: Int = 32
    ) throws -> SecretBytes {
        guard length > 0, length <= maximumLength else {
            throw CryptoError.invalidInput("HKDF output must be 1 to \(maximumLength) bytes")
        }
        return try SecretBytes(count: length) { out in
            let done = CCrypto_hkdfSHA256(
                inputKeyMaterial.baseAddress?.assumingMemoryBound(to: UInt8.self), inputKeyMaterial.count, salt, salt.count, info, info.count,
                out.baseAddress!.assumingMemoryBound(to: UInt8.self), length)
            guard done == 1 else { throw CryptoError.libraryFailure(CCrypto_available() == 1 ? "HKDF failed" : "libcrypto.so.3 could not be loaded") }
        }
    }

    /// Derives from a secret key.
    public static func deriveKey(from key: SecretBytes, salt: [UInt8], info: String, length: Int = 32) throws -> SecretBytes {
        try key.withUnsafeBytes { try deriveKey(inputKeyMaterial: $0, salt: salt, info: Array(info.utf8), length: length) }
    }
}
