internal import CCryptoSupport

/// ECDSA P-256 with SHA-256 ("ES256", COSE algorithm -7) for passkeys, through OpenSSL's libcrypto
/// (security.md §2: what WebAuthn sites accept). A private key travels as PKCS#8 DER, the form KeePassXC
/// and Bitwarden keep passkeys in.
public enum P256 {
    /// The DER prefix of a P-256 SubjectPublicKeyInfo before its 65-byte uncompressed point.
    static let publicKeyPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d,
        0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]

    /// A new key: its PKCS#8 DER (secret) and public point (0x04 | x | y).
    public static func generate() throws -> (privateKey: SecretBytes, publicPoint: [UInt8]) {
        var point = [UInt8](repeating: 0, count: 65)
        var buffer = [UInt8](repeating: 0, count: 256)
        defer { buffer.withUnsafeMutableBytes { for i in $0.indices { $0[i] = 0 } } }
        let length = CCrypto_p256Generate(&buffer, buffer.count, &point)
        guard length > 0 else { throw CryptoError.libraryFailure(CCrypto_available() == 1 ? "P-256 key generation failed" : "libcrypto.so.3 could not be loaded") }
        return (SecretBytes(copying: buffer[0..<Int(length)]), point)
    }

    /// The public point of a PKCS#8 key; throws when the bytes are not a P-256 private key.
    public static func publicPoint(of privateKey: SecretBytes) throws -> [UInt8] {
        var point = [UInt8](repeating: 0, count: 65)
        let ok = privateKey.withUnsafeBytes { key in
            CCrypto_p256PublicKey(key.baseAddress?.assumingMemoryBound(to: UInt8.self), key.count, &point)
        }
        guard ok == 1 else { throw CryptoError.invalidInput("not a P-256 private key") }
        return point
    }

    /// The DER signature of SHA-256(`message`) (WebAuthn's ES256 form).
    public static func signature(for message: [UInt8], privateKey: SecretBytes) throws -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: 80)
        let length = privateKey.withUnsafeBytes { key in
            CCrypto_p256Sign(key.baseAddress?.assumingMemoryBound(to: UInt8.self), key.count, message, message.count, &signature)
        }
        guard length > 0 else { throw CryptoError.invalidInput("not a P-256 private key") }
        return Array(signature[0..<Int(length)])
    }

    /// The SubjectPublicKeyInfo DER of an uncompressed point.
    public static func subjectPublicKeyInfo(_ point: [UInt8]) -> [UInt8] { publicKeyPrefix + point }

    /// Whether `signature` (DER) is the point's signature over `message`.
    public static func isValidSignature(_ signature: [UInt8], for message: [UInt8], publicPoint: [UInt8]) -> Bool {
        guard publicPoint.count == 65, publicPoint[0] == 4 else { return false }
        let spki = subjectPublicKeyInfo(publicPoint)
        return CCrypto_p256Verify(spki, spki.count, message, message.count, signature, signature.count) == 1
    }
}
