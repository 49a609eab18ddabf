internal import CCryptoSupport
internal import CSodium

// Ciphers that only other apps' formats use (security.md §2: "imports read what other formats use"). Passbox's
// own formats never call them; a KeePass file written by the export uses them because KeePass readers need them.

/// AES-256-CBC with PKCS#7 padding (KeePass's outer cipher), from libcrypto.
public enum AES256CBC {
    public static let keyLength = 32
    public static let ivLength = 16

    public static func encrypt(_ plaintext: [UInt8], key: [UInt8], iv: [UInt8]) throws -> [UInt8] {
        try run(encrypt: true, plaintext, key: key, iv: iv)
    }

    /// A wrong key shows as bad padding, and is `authenticationFailed` (CBC itself authenticates nothing:
    /// KeePass files carry their own hash or HMAC, checked before this).
    public static func decrypt(_ ciphertext: [UInt8], key: [UInt8], iv: [UInt8]) throws -> [UInt8] {
        guard ciphertext.count % 16 == 0, !ciphertext.isEmpty else { throw CryptoError.authenticationFailed }
        return try run(encrypt: false, ciphertext, key: key, iv: iv)
    }

    private static func run(encrypt: Bool, _ input: [UInt8], key: [UInt8], iv: [UInt8]) throws -> [UInt8] {
        guard key.count == keyLength, iv.count == ivLength else { throw CryptoError.invalidInput("AES-256-CBC needs a 32-byte key and a 16-byte IV") }
        guard CCrypto_available() == 1 else { throw CryptoError.libraryFailure("libcrypto.so.3 is missing") }
        var out = [UInt8](repeating: 0, count: input.count + 16)
        let written = out.withUnsafeMutableBufferPointer { o in
            CCrypto_aes256CBC(encrypt ? 1 : 0, key, iv, input, input.count, o.baseAddress)
        }
        guard written >= 0 else {
            if encrypt { throw CryptoError.libraryFailure("AES-256-CBC failed") }
            throw CryptoError.authenticationFailed
        }
        out.removeSubrange(Int(written)...)
        return out
    }
}

/// AES-256-GCM (Aegis vaults), from libcrypto: opening only.
public enum AES256GCM {
    /// A wrong key and a changed ciphertext are both `authenticationFailed`.
    public static func open(_ ciphertext: [UInt8], key: [UInt8], nonce: [UInt8], tag: [UInt8]) throws -> [UInt8] {
        guard key.count == 32, (1...64).contains(nonce.count), tag.count == 16 else { throw CryptoError.invalidInput("AES-256-GCM needs a 32-byte key, a nonce and a 16-byte tag") }
        guard CCrypto_available() == 1 else { throw CryptoError.libraryFailure("libcrypto.so.3 is missing") }
        var out = [UInt8](repeating: 0, count: max(ciphertext.count, 1))
        let written = out.withUnsafeMutableBufferPointer { o in
            CCrypto_aes256GCMOpen(key, nonce, nonce.count, ciphertext, ciphertext.count, tag, o.baseAddress)
        }
        guard written >= 0 else { throw CryptoError.authenticationFailed }
        out.removeSubrange(Int(written)...)
        return out
    }
}

/// scrypt (Aegis vaults' password slots), from libsodium. Bounded: N up to 2^20, r up to 32, p up to 16, and
/// at most 1 GiB of memory (128 × N × r bytes).
public enum Scrypt {
    public static func derive(password: [UInt8], salt: [UInt8], n: UInt64, r: UInt32, p: UInt32, length: Int = 32) throws -> [UInt8] {
        guard n >= 2, n & (n - 1) == 0, n <= 1 << 20, (1...32).contains(r), (1...16).contains(p), 128 * n * UInt64(r) <= 1 << 30, (16...64).contains(length) else {
            throw CryptoError.invalidInput("scrypt parameters out of range")
        }
        Sodium.ensureInitialised()
        var out = [UInt8](repeating: 0, count: length)
        let result = crypto_pwhash_scryptsalsa208sha256_ll(password, password.count, salt, salt.count, n, r, p, &out, length)
        guard result == 0 else { throw CryptoError.libraryFailure("scrypt ran out of memory") }
        return out
    }
}

/// PBKDF2-HMAC-SHA256 (2FAS exports), from libcrypto. Read only: Passbox's own formats use Argon2id.
public enum PBKDF2 {
    public static func deriveSHA256(password: [UInt8], salt: [UInt8], rounds: UInt32, length: Int) throws -> [UInt8] {
        guard rounds >= 1, rounds <= 10_000_000, (16...64).contains(length) else { throw CryptoError.invalidInput("PBKDF2 parameters out of range") }
        guard CCrypto_available() == 1 else { throw CryptoError.libraryFailure("libcrypto.so.3 is missing") }
        var out = [UInt8](repeating: 0, count: length)
        guard CCrypto_pbkdf2SHA256(password, password.count, salt, salt.count, rounds, &out, length) == 1 else { throw CryptoError.libraryFailure("PBKDF2 failed") }
        return out
    }
}

/// KeePass's AES-KDF: the 32-byte composite key encrypted `rounds` times with AES-256-ECB under the seed,
/// then SHA-256. Slow by rounds, not by memory: read only, never used for Passbox's own formats.
public enum AESKDF {
    public static func transform(_ key: [UInt8], seed: [UInt8], rounds: UInt64) throws -> [UInt8] {
        guard key.count == 32, seed.count == 32 else { throw CryptoError.invalidInput("AES-KDF needs a 32-byte key and seed") }
        guard CCrypto_available() == 1 else { throw CryptoError.libraryFailure("libcrypto.so.3 is missing") }
        var block = key
        defer { ConstantTime.wipe(&block) }
        guard CCrypto_aesKDF(seed, &block, rounds) == 1 else { throw CryptoError.libraryFailure("AES-KDF failed") }
        return Hash.sha256(block)
    }
}

/// A keystream cipher read from a running position (KeePass's ChaCha20 and Salsa20): each call XORs the next
/// bytes of the stream, so values protected in document order are opened (or sealed) in that order.
public final class StreamCipher {
    public enum Kind: Sendable {
        /// ChaCha20 (RFC 8439): 32-byte key, 12-byte nonce, 32-bit block counter from 0.
        case chacha20
        /// Salsa20: 32-byte key, 8-byte nonce.
        case salsa20
    }

    private let kind: Kind
    private var key: [UInt8]
    private let nonce: [UInt8]
    /// Bytes of keystream used so far.
    private var position: UInt64 = 0

    public init(_ kind: Kind, key: [UInt8], nonce: [UInt8]) throws {
        guard key.count == 32, nonce.count == (kind == .chacha20 ? 12 : 8) else { throw CryptoError.invalidInput("stream cipher key or nonce of the wrong length") }
        Sodium.ensureInitialised()
        self.kind = kind
        self.key = key
        self.nonce = nonce
    }

    deinit { ConstantTime.wipe(&key) }

    /// XORs `bytes` with the next `bytes.count` bytes of the keystream.
    public func apply(_ bytes: inout [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        let block = position / 64
        let skip = Int(position % 64)
        if kind == .chacha20, block + UInt64((skip + bytes.count + 63) / 64) > UInt64(UInt32.max) {
            throw CryptoError.invalidInput("ChaCha20's block counter would wrap")
        }
        // The stream from the start of the current block: `skip` bytes already used, then this value's.
        var buffer = [UInt8](repeating: 0, count: skip + bytes.count)
        buffer.withUnsafeMutableBufferPointer { b in
            for i in 0..<bytes.count { b[skip + i] = bytes[i] }
            switch kind {
            case .chacha20: _ = crypto_stream_chacha20_ietf_xor_ic(b.baseAddress!, b.baseAddress!, UInt64(b.count), nonce, UInt32(block), key)
            case .salsa20: _ = crypto_stream_salsa20_xor_ic(b.baseAddress!, b.baseAddress!, UInt64(b.count), nonce, block, key)
            }
        }
        for i in 0..<bytes.count { bytes[i] = buffer[skip + i] }
        ConstantTime.wipe(&buffer)
        position += UInt64(bytes.count)
    }
}

extension Hash {
    public static func sha512(_ data: [UInt8]) -> [UInt8] {
        Sodium.ensureInitialised()
        var out = [UInt8](repeating: 0, count: 64)
        _ = crypto_hash_sha512(&out, data, UInt64(data.count))
        return out
    }
}
