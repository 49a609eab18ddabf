internal import CCryptoSupport

/// HMAC through OpenSSL's libcrypto. SHA-1 and SHA-512 are for TOTP/HOTP only (security.md §2).
public enum HMAC {
    public enum Algorithm: String, Sendable, CaseIterable, Codable {
        case sha1 = "SHA1"
        case sha256 = "SHA256"
        case sha512 = "SHA512"

        /// Output length in bytes.
        public var length: Int {
            switch self {
            case .sha1: 20
            case .sha256: 32
            case .sha512: 64
            }
        }
    }

    /// The MAC of `message` under `key`.
    public static func authenticationCode(
        _ algorithm: Algorithm, key: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer
    ) -> [UInt8] {
        let number: Int32 =
            switch algorithm {
            case .sha1: 1
            case .sha256: 2
            case .sha512: 3
            }
        var out = [UInt8](repeating: 0, count: 64)
        let outLength = out.withUnsafeMutableBufferPointer { o in
            CCrypto_hmac(number, key.baseAddress, key.count, message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count, o.baseAddress)
        }
        precondition(outLength == algorithm.length, "HMAC failed in libcrypto (is libcrypto.so.3 installed?)")
        return Array(out.prefix(Int(outLength)))
    }

    /// The MAC over arrays.
    public static func authenticationCode(_ algorithm: Algorithm, key: [UInt8], message: [UInt8]) -> [UInt8] {
        key.withUnsafeBytes { k in message.withUnsafeBytes { m in authenticationCode(algorithm, key: k, message: m) } }
    }

    /// The MAC under a secret key.
    public static func authenticationCode(_ algorithm: Algorithm, key: SecretBytes, message: [UInt8]) -> [UInt8] {
        key.withUnsafeBytes { k in message.withUnsafeBytes { m in authenticationCode(algorithm, key: k, message: m) } }
    }

    /// Checks a (possibly truncated) tag in constant time.
    public static func isValid(
        _ tag: [UInt8], algorithm: Algorithm, key: [UInt8], message: [UInt8]
    ) -> Bool {
        guard !tag.isEmpty, tag.count <= algorithm.length else { return false }
        let full = authenticationCode(algorithm, key: key, message: message)
        return ConstantTime.equal(Array(full.prefix(tag.count)), tag)
    }
}
