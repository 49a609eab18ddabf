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

/// The HOTP value (RFC 4226 §5.3: HMAC over the big-endian counter, dynamic truncation, modulo 10^digits),
/// shared by one-time codes in items and the server's two-factor check.
public enum HOTP {
    public static func code(_ algorithm: HMAC.Algorithm, key: [UInt8], counter: UInt64, digits: Int) -> String {
        var message = [UInt8](repeating: 0, count: 8)
        for i in 0..<8 { message[i] = UInt8((counter >> (56 - 8 * UInt64(i))) & 0xff) }
        let mac = HMAC.authenticationCode(algorithm, key: key, message: message)
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let binary = (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }
}
