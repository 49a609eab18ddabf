internal import CSodium
internal import CCryptoSupport

/// Hash functions: SHA-256 and BLAKE2b (libsodium), SHA-1 (libcrypto; only for the Pwned Passwords range query).
public enum Hash {
    public static func sha256(_ data: [UInt8]) -> [UInt8] {
        Sodium.ensureInitialised()
        var out = [UInt8](repeating: 0, count: 32)
        _ = crypto_hash_sha256(&out, data, UInt64(data.count))
        return out
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
