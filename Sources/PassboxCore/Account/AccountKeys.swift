import PassboxCrypto

/// The keys an account's master password and Secret Key make together (two-secret key derivation,
/// security.md §4):
///
///     p = Argon2id(NFC(master password), salt, parameters)          32 bytes
///     s = HKDF(Secret Key, salt = account id, "passbox/v1/secret-key") 32 bytes
///     AUK  = HKDF(p ‖ s, salt = "", "passbox/v1/account-unlock-key")
///     seed = HKDF(p ‖ s, salt = "", "passbox/v1/auth-seed")           the Ed25519 sign-in key's seed
///
/// Neither secret alone gives either key, and the server only ever sees the sign-in key's public half, so
/// nothing it stores lets anyone test a password guess without the Secret Key.
public struct AccountKeys: Sendable {
    /// The account unlock key: it opens the keyset's private halves and the personal vault keys.
    public let accountUnlockKey: SecretBytes
    /// The sign-in key (Ed25519); the server keeps its public key.
    public let signInKey: SigningKey

    /// Runs the derivation. `password` is the master password's NFC UTF-8 bytes; `salt` is the account's
    /// 16-byte salt. Slow by design (Argon2id at `parameters`).
    public static func derive(
        password: UnsafeRawBufferPointer, salt: [UInt8], parameters: Argon2Parameters, secretKey: SecretKey
    ) throws -> AccountKeys {
        let p = try Argon2.derive(password: password, salt: salt, parameters: parameters, length: 32)
        let s = try secretKey.derivedSecret()
        // p ‖ s in locked memory: the input of both HKDF steps.
        let joined = SecretBytes(count: 64) { out in
            p.withUnsafeBytes { out.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: 32) }
            s.withUnsafeBytes { (out.baseAddress! + 32).copyMemory(from: $0.baseAddress!, byteCount: 32) }
        }
        let unlockKey = try HKDF.deriveKey(from: joined, salt: [], info: "passbox/v1/account-unlock-key")
        let seed = try HKDF.deriveKey(from: joined, salt: [], info: "passbox/v1/auth-seed")
        return AccountKeys(accountUnlockKey: unlockKey, signInKey: try SigningKey(seed: seed))
    }
}

/// The floor and memory of key-derivation parameters a client accepts from a server (security.md §4); the
/// parameters themselves are `AccountKDFParameters` (PassboxCrypto), shared with the server.
public enum AccountKDFPolicy {
    /// The most a client will spend (a server cannot make a device run out of memory): 4 GiB, 64 passes,
    /// 16 lanes.
    public static let ceiling = Argon2Parameters(memoryKiB: 4 * 1024 * 1024, passes: 64, lanes: 16)

    /// Checks parameters a server sent against the floor, the ceiling and those this device used last for
    /// the account (a silent change is refused: the user changes them from a device, never the server).
    public static func check(_ offered: Argon2Parameters, lastUsed: Argon2Parameters?, floor: Argon2Parameters = AccountKDFParameters.floor) throws(AccountKDFError) {
        if let lastUsed, lastUsed != offered { throw .changedSinceLastSignIn(last: lastUsed, offered: offered) }
        guard offered.memoryKiB >= floor.memoryKiB, offered.passes >= floor.passes, offered.lanes >= 1 else {
            throw .belowFloor(offered)
        }
        guard offered.memoryKiB <= ceiling.memoryKiB, offered.passes <= ceiling.passes, offered.lanes <= ceiling.lanes else {
            throw .aboveCeiling(offered)
        }
    }
}

/// Why a client refuses a server's key-derivation parameters.
public enum AccountKDFError: Error, Equatable, Sendable {
    /// Weaker than the floor: a hostile server could make guessing cheap.
    case belowFloor(Argon2Parameters)
    /// More than a device should spend.
    case aboveCeiling(Argon2Parameters)
    /// Different from those this device used last for the account, without a change made on a device.
    case changedSinceLastSignIn(last: Argon2Parameters, offered: Argon2Parameters)
}

