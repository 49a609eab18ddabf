internal import CSodium

/// XChaCha20-Poly1305-IETF (libsodium), the only cipher of Passbox's own formats.
public enum XChaCha20Poly1305 {
    public static let keyLength = Int(crypto_aead_xchacha20poly1305_ietf_keybytes())
    public static let nonceLength = Int(crypto_aead_xchacha20poly1305_ietf_npubbytes())
    public static let tagLength = Int(crypto_aead_xchacha20poly1305_ietf_abytes())

    /// Encrypts `plaintext` under `key` and `nonce`; returns ciphertext followed by the 16-byte tag.
    public static func seal(
        _ plaintext: UnsafeRawBufferPointer, key: SecretBytes, nonce: [UInt8], associatedData: [UInt8]
    ) throws -> [UInt8] {
        Sodium.ensureInitialised()
        guard key.count == keyLength else { throw CryptoError.invalidInput("key must be \(keyLength) bytes") }
        guard nonce.count == nonceLength else { throw CryptoError.invalidInput("nonce must be \(nonceLength) bytes") }
        var out = [UInt8](repeating: 0, count: plaintext.count + tagLength)
        var outLength: UInt64 = 0
        let result = key.withUnsafeBytes { k in
            out.withUnsafeMutableBufferPointer { o in
                crypto_aead_xchacha20poly1305_ietf_encrypt(
                    o.baseAddress!, &outLength,
                    plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(CryptoScratch.empty), UInt64(plaintext.count),
                    associatedData, UInt64(associatedData.count), nil, nonce,
                    k.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        try Sodium.check(result, failure: .libraryFailure("encryption failed"))
        return out
    }

    /// Encrypts in place: the first `buffer.count - tagLength` bytes are the plaintext, replaced by the
    /// ciphertext, and the tag is written into the last `tagLength` bytes. For large values (a vault slot)
    /// built where they will be sent, so no second copy of the plaintext or ciphertext is made. libsodium's
    /// AEAD functions allow the ciphertext and the message to be the same address (its documentation says so
    /// for in-place encryption); the result equals `seal`'s, which a test pins.
    public static func sealInPlace(
        _ buffer: UnsafeMutableRawBufferPointer, key: SecretBytes, nonce: [UInt8], associatedData: [UInt8]
    ) throws {
        Sodium.ensureInitialised()
        guard key.count == keyLength else { throw CryptoError.invalidInput("key must be \(keyLength) bytes") }
        guard nonce.count == nonceLength else { throw CryptoError.invalidInput("nonce must be \(nonceLength) bytes") }
        guard buffer.count >= tagLength, let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw CryptoError.invalidInput("the buffer must hold the tag")
        }
        var outLength: UInt64 = 0
        let result = key.withUnsafeBytes { k in
            crypto_aead_xchacha20poly1305_ietf_encrypt(
                base, &outLength, base, UInt64(buffer.count - tagLength), associatedData, UInt64(associatedData.count), nil, nonce,
                k.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        try Sodium.check(result, failure: .libraryFailure("encryption failed"))
    }

    /// Decrypts ciphertext-with-tag; throws `authenticationFailed` if anything does not authenticate.
    /// `body` receives the plaintext in a temporary buffer that is wiped afterwards.
    public static func open<R>(
        _ sealed: UnsafeRawBufferPointer, key: SecretBytes, nonce: [UInt8], associatedData: [UInt8],
        _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R {
        Sodium.ensureInitialised()
        guard key.count == keyLength, nonce.count == nonceLength, sealed.count >= tagLength else {
            throw CryptoError.authenticationFailed
        }
        let plainCount = sealed.count - tagLength
        let plain = UnsafeMutableRawBufferPointer.allocate(byteCount: max(plainCount, 1), alignment: 16)
        defer {
            sodium_memzero(plain.baseAddress!, plain.count)
            plain.deallocate()
        }
        var outLength: UInt64 = 0
        let result = key.withUnsafeBytes { k in
            crypto_aead_xchacha20poly1305_ietf_decrypt(
                plain.baseAddress!.assumingMemoryBound(to: UInt8.self), &outLength, nil,
                sealed.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(sealed.count),
                associatedData, UInt64(associatedData.count), nonce,
                k.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        try Sodium.check(result)
        return try body(UnsafeRawBufferPointer(start: plain.baseAddress, count: plainCount))
    }

    /// Convenience over arrays (tests and small values).
    public static func seal(_ plaintext: [UInt8], key: SecretBytes, nonce: [UInt8], associatedData: [UInt8]) throws
        -> [UInt8]
    {
        try plaintext.withUnsafeBytes { try seal($0, key: key, nonce: nonce, associatedData: associatedData) }
    }

    /// Convenience over arrays (tests and small values).
    public static func open(_ sealed: [UInt8], key: SecretBytes, nonce: [UInt8], associatedData: [UInt8]) throws
        -> [UInt8]
    {
        try sealed.withUnsafeBytes { try open($0, key: key, nonce: nonce, associatedData: associatedData) { Array($0) } }
    }
}

/// The envelope of security.md §3: `version (1) | nonce (24) | ciphertext | tag (16)`.
///
/// The associated data names the kind of value and the ids it belongs to, so a value moved to another
/// place fails to open.
public enum Envelope {
    /// The only envelope version so far.
    public static let version: UInt8 = 1
    /// Bytes an envelope adds around its plaintext.
    public static let overhead = 1 + 24 + 16

    /// Seals `plaintext` with a fresh random nonce.
    public static func seal(_ plaintext: UnsafeRawBufferPointer, key: SecretBytes, associatedData: [UInt8]) throws
        -> [UInt8]
    {
        let nonce = SecureRandom.bytes(count: XChaCha20Poly1305.nonceLength)
        let sealed = try XChaCha20Poly1305.seal(plaintext, key: key, nonce: nonce, associatedData: associatedData)
        var out = [UInt8]()
        out.reserveCapacity(overhead + plaintext.count)
        out.append(version)
        out.append(contentsOf: nonce)
        out.append(contentsOf: sealed)
        return out
    }

    /// Seals an array.
    public static func seal(_ plaintext: [UInt8], key: SecretBytes, associatedData: [UInt8]) throws -> [UInt8] {
        try plaintext.withUnsafeBytes { try seal($0, key: key, associatedData: associatedData) }
    }

    /// Opens an envelope; `body` sees the plaintext in a buffer wiped afterwards.
    public static func open<R>(
        _ envelope: UnsafeRawBufferPointer, key: SecretBytes, associatedData: [UInt8],
        _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R {
        guard envelope.count >= overhead else { throw CryptoError.authenticationFailed }
        guard envelope[0] == version else { throw CryptoError.unsupportedVersion(envelope[0]) }
        let nonce = Array(envelope[1..<25])
        let sealed = UnsafeRawBufferPointer(rebasing: envelope[25...])
        return try XChaCha20Poly1305.open(sealed, key: key, nonce: nonce, associatedData: associatedData, body)
    }

    /// Opens an envelope held in an array.
    public static func open(_ envelope: [UInt8], key: SecretBytes, associatedData: [UInt8]) throws -> [UInt8] {
        try envelope.withUnsafeBytes { try open($0, key: key, associatedData: associatedData) { Array($0) } }
    }
}
