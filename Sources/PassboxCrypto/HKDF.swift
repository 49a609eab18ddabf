#if canImport(Glibc)
    import Glibc
#endif
internal import CCrypto

/// HKDF-SHA256 (RFC 5869) through OpenSSL's `EVP_KDF` "HKDF".
public enum HKDF {
    /// OSSL_PARAM keeps a pointer to its name, so names must outlive the call: static C strings, never freed.
    private enum ParameterName {
        nonisolated(unsafe) static let digest = UnsafePointer(strdup("digest")!)
        nonisolated(unsafe) static let key = UnsafePointer(strdup("key")!)
        nonisolated(unsafe) static let salt = UnsafePointer(strdup("salt")!)
        nonisolated(unsafe) static let info = UnsafePointer(strdup("info")!)
    }

    /// The largest output HKDF-SHA256 can produce (255 blocks).
    public static let maximumLength = 255 * 32

    /// Derives `length` bytes; each use passes its own `info` label.
    public static func deriveKey(
        inputKeyMaterial: UnsafeRawBufferPointer, salt: [UInt8], info: [UInt8], length: Int = 32
    ) throws -> SecretBytes {
        guard length > 0, length <= maximumLength else {
            throw CryptoError.invalidInput("HKDF output must be 1 to \(maximumLength) bytes")
        }
        guard let kdf = EVP_KDF_fetch(nil, "HKDF", nil) else { throw CryptoError.libraryFailure("HKDF unavailable") }
        defer { EVP_KDF_free(kdf) }
        guard let context = EVP_KDF_CTX_new(kdf) else { throw CryptoError.libraryFailure("HKDF context") }
        defer { EVP_KDF_CTX_free(context) }
        // OpenSSL refuses an empty key; RFC 5869 allows it. HMAC pads keys with zeros to the block size, so
        // one zero byte is the same key as none (a test with Wycheproof's empty-IKM cases pins this).
        var saltCopy = salt
        var infoCopy = info
        var digest = Array("SHA256".utf8CString)
        return try SecretBytes(count: length) { out in
            let result: Int32 = digest.withUnsafeMutableBufferPointer { d in
                saltCopy.withUnsafeMutableBytes { s in
                    infoCopy.withUnsafeMutableBytes { i in
                        let keyPointer = UnsafeMutableRawPointer(mutating: inputKeyMaterial.baseAddress) ?? UnsafeMutableRawPointer(CryptoScratch.empty)
                        let keyLength = inputKeyMaterial.count > 0 ? inputKeyMaterial.count : 1
                        var params = [
                            OSSL_PARAM_construct_utf8_string(ParameterName.digest, d.baseAddress, 0),
                            OSSL_PARAM_construct_octet_string(ParameterName.key, keyPointer, keyLength),
                            OSSL_PARAM_construct_octet_string(ParameterName.salt, s.baseAddress ?? UnsafeMutableRawPointer(CryptoScratch.empty), s.count),
                            OSSL_PARAM_construct_octet_string(ParameterName.info, i.baseAddress ?? UnsafeMutableRawPointer(CryptoScratch.empty), i.count),
                            OSSL_PARAM_construct_end(),
                        ]
                        return EVP_KDF_derive(context, out.baseAddress!.assumingMemoryBound(to: UInt8.self), length, &params)
                    }
                }
            }
            guard result == 1 else { throw CryptoError.libraryFailure("HKDF failed") }
        }
    }

    /// Derives from a secret key.
    public static func deriveKey(from key: SecretBytes, salt: [UInt8], info: String, length: Int = 32) throws -> SecretBytes {
        try key.withUnsafeBytes { try deriveKey(inputKeyMaterial: $0, salt: salt, info: Array(info.utf8), length: length) }
    }
}
