internal import CSodium

/// Ed25519 signatures (libsodium).
public struct SigningKey: Sendable {
    /// The 64-byte libsodium secret key (seed and public key), in locked memory.
    private let secret: SecretBytes
    /// The 32-byte public key.
    public let publicKey: [UInt8]

    /// A key derived deterministically from a 32-byte seed (for example the authentication seed).
    public init(seed: SecretBytes) throws {
        Sodium.ensureInitialised()
        guard seed.count == 32 else { throw CryptoError.invalidInput("an Ed25519 seed is 32 bytes") }
        var pk = [UInt8](repeating: 0, count: 32)
        secret = try SecretBytes(count: 64) { sk in
            let result = seed.withUnsafeBytes { s in
                crypto_sign_seed_keypair(&pk, sk.baseAddress!.assumingMemoryBound(to: UInt8.self), s.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            try Sodium.check(result, failure: .libraryFailure("Ed25519 key generation"))
        }
        publicKey = pk
    }

    /// A new random key.
    public static func generate() throws -> SigningKey { try SigningKey(seed: .generate(count: 32)) }

    /// The 64-byte detached signature of `message`.
    public func signature(for message: [UInt8]) -> [UInt8] {
        var sig = [UInt8](repeating: 0, count: 64)
        secret.withUnsafeBytes { sk in
            _ = crypto_sign_detached(&sig, nil, message, UInt64(message.count), sk.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return sig
    }

    /// Whether `signature` is a valid Ed25519 signature of `message` by `publicKey` (strict: libsodium rejects
    /// non-canonical and small-order encodings).
    public static func isValidSignature(_ signature: [UInt8], for message: [UInt8], publicKey: [UInt8]) -> Bool {
        Sodium.ensureInitialised()
        guard signature.count == 64, publicKey.count == 32 else { return false }
        return crypto_sign_verify_detached(signature, message, UInt64(message.count), publicKey) == 0
    }
}

/// X25519 key agreement and sealed boxes (libsodium `crypto_box_seal`).
public struct BoxKeyPair: Sendable {
    private let secret: SecretBytes
    public let publicKey: [UInt8]

    /// A key pair from a 32-byte private scalar.
    public init(privateKey: SecretBytes) throws {
        Sodium.ensureInitialised()
        guard privateKey.count == 32 else { throw CryptoError.invalidInput("an X25519 private key is 32 bytes") }
        var pk = [UInt8](repeating: 0, count: 32)
        let result = privateKey.withUnsafeBytes { crypto_scalarmult_base(&pk, $0.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
        try Sodium.check(result, failure: .libraryFailure("X25519 public key"))
        secret = privateKey
        publicKey = pk
    }

    public static func generate() throws -> BoxKeyPair { try BoxKeyPair(privateKey: .generate(count: 32)) }

    /// The raw X25519 shared secret with `peerPublicKey`; a low-order peer key (all-zero result) is refused.
    public func sharedSecret(with peerPublicKey: [UInt8]) throws -> SecretBytes {
        guard peerPublicKey.count == 32 else { throw CryptoError.invalidInput("an X25519 public key is 32 bytes") }
        return try SecretBytes(count: 32) { out in
            let result = secret.withUnsafeBytes { sk in
                crypto_scalarmult(out.baseAddress!.assumingMemoryBound(to: UInt8.self), sk.baseAddress!.assumingMemoryBound(to: UInt8.self), peerPublicKey)
            }
            try Sodium.check(result, failure: .invalidInput("the peer key is of low order"))
        }
    }

    /// Encrypts `message` to `recipientPublicKey` anonymously (ephemeral sender key).
    public static func seal(_ message: [UInt8], to recipientPublicKey: [UInt8]) throws -> [UInt8] {
        Sodium.ensureInitialised()
        guard recipientPublicKey.count == 32 else { throw CryptoError.invalidInput("an X25519 public key is 32 bytes") }
        var out = [UInt8](repeating: 0, count: message.count + Int(crypto_box_sealbytes()))
        try Sodium.check(crypto_box_seal(&out, message, UInt64(message.count), recipientPublicKey), failure: .libraryFailure("sealed box"))
        return out
    }

    /// Opens a sealed box addressed to this key pair.
    public func open(sealed: [UInt8]) throws -> SecretBytes {
        let overhead = Int(crypto_box_sealbytes())
        guard sealed.count >= overhead else { throw CryptoError.authenticationFailed }
        return try SecretBytes(count: sealed.count - overhead) { out in
            let result = secret.withUnsafeBytes { sk in
                crypto_box_seal_open(out.baseAddress!.assumingMemoryBound(to: UInt8.self), sealed, UInt64(sealed.count), publicKey, sk.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            try Sodium.check(result)
        }
    }
}
