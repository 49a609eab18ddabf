import Foundation
import PassboxCrypto

/// An account's keyset (security.md §4): an X25519 key pair (receiving vault keys) and an Ed25519 key pair
/// (signing what it shares). The public halves travel in the clear with a self-signature; the private
/// halves are sealed under the account unlock key, bound to the account id and the public keys.
///
/// Sealed form, version 1 (docs/FORMATS.md): `01 | boxPublicKey (32) | signPublicKey (32) |
/// selfSignature (64) | envelope(boxPrivateKey ‖ signSeed)`, the envelope's associated data
/// `"passbox/v1/keyset" | accountID | boxPublicKey | signPublicKey`.
public struct AccountKeyset: Sendable {
    public static let version: UInt8 = 1
    public let boxKeyPair: BoxKeyPair
    public let signingKey: SigningKey
    private let boxPrivate: SecretBytes
    private let signSeed: SecretBytes

    public var boxPublicKey: [UInt8] { boxKeyPair.publicKey }
    public var signPublicKey: [UInt8] { signingKey.publicKey }

    init(boxPrivate: SecretBytes, signSeed: SecretBytes) throws {
        self.boxPrivate = boxPrivate
        self.signSeed = signSeed
        boxKeyPair = try BoxKeyPair(privateKey: boxPrivate)
        signingKey = try SigningKey(seed: signSeed)
    }

    /// New random key pairs.
    public static func generate() throws -> AccountKeyset {
        try AccountKeyset(boxPrivate: .generate(count: 32), signSeed: .generate(count: 32))
    }

    static func publicPart(_ accountID: String, _ box: [UInt8], _ sign: [UInt8]) -> [UInt8] {
        Array("passbox/v1/keyset|\(accountID)|".utf8) + box + sign
    }

    /// The sealed form for the server and the account record.
    public func sealed(accountID: String, unlockKey: SecretBytes) throws -> [UInt8] {
        let bound = Self.publicPart(accountID, boxPublicKey, signPublicKey)
        // The two private halves in locked memory, sealed in place of a Swift array.
        let joined = SecretBytes(count: 64) { out in
            boxPrivate.withUnsafeBytes { out.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: 32) }
            signSeed.withUnsafeBytes { (out.baseAddress! + 32).copyMemory(from: $0.baseAddress!, byteCount: 32) }
        }
        let envelope = try joined.withUnsafeBytes { try Envelope.seal($0, key: unlockKey, associatedData: bound) }
        return [Self.version] + boxPublicKey + signPublicKey + signingKey.signature(for: bound) + envelope
    }

    /// The key of the account's personal vault on this device: HKDF over the keyset's private halves with
    /// the account id as salt. Every device that opens the keyset derives the same key, and a new master
    /// password (a new seal) or a recovery (the same halves under a new seal) leaves it as it is.
    public func derivePersonalVaultKey(accountID: String) throws -> SecretBytes {
        let joined = SecretBytes(count: 64) { out in
            boxPrivate.withUnsafeBytes { out.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: 32) }
            signSeed.withUnsafeBytes { (out.baseAddress! + 32).copyMemory(from: $0.baseAddress!, byteCount: 32) }
        }
        return try HKDF.deriveKey(from: joined, salt: Array(accountID.utf8), info: "passbox/v1/personal-vault")
    }

    /// What a device keeps to sync the account's vaults: the box private key (it opens shared vaults' grants), the signing seed (manifests are signed with it) and
    /// the key that wraps personal vault keys (HKDF over the private halves, label
    /// `"passbox/v1/vault-key-wrap"`), so any device that opens the keyset opens the vault keys, and a new
    /// master password or a recovery leaves them as they are.
    public func syncState(accountID: String) throws -> SyncState {
        let joined = SecretBytes(count: 64) { out in
            boxPrivate.withUnsafeBytes { out.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: 32) }
            signSeed.withUnsafeBytes { (out.baseAddress! + 32).copyMemory(from: $0.baseAddress!, byteCount: 32) }
        }
        let wrap = try HKDF.deriveKey(from: joined, salt: Array(accountID.utf8), info: "passbox/v1/vault-key-wrap")
        var state = SyncState(accountID: accountID, signSeed: signSeed.revealBytes(), wrapKey: wrap.revealBytes(), signPublicKey: signPublicKey)
        state.boxKey = Data(boxPrivate.revealBytes())
        return state
    }

    /// Opens a sealed keyset. A wrong unlock key (a wrong master password or Secret Key), another account's
    /// keyset or changed public keys fail as `CryptoError.authenticationFailed`; a newer version says so.
    public init(opening sealed: [UInt8], accountID: String, unlockKey: SecretBytes) throws {
        guard let version = sealed.first else { throw AccountKeysetError.malformed }
        guard version == Self.version else { throw AccountKeysetError.newerVersion(Int(version)) }
        guard sealed.count > 1 + 32 + 32 + 64 else { throw AccountKeysetError.malformed }
        let box = Array(sealed[1..<33]), sign = Array(sealed[33..<65]), signature = Array(sealed[65..<129])
        let bound = Self.publicPart(accountID, box, sign)
        guard SigningKey.isValidSignature(signature, for: bound, publicKey: sign) else { throw CryptoError.authenticationFailed }
        // The private halves go from the decrypted buffer straight into locked memory.
        let halves = try Array(sealed[129...]).withUnsafeBytes { envelope in
            try Envelope.open(envelope, key: unlockKey, associatedData: bound) { plain -> (SecretBytes, SecretBytes)? in
                plain.count == 64 ? (SecretBytes(copying: plain[0..<32]), SecretBytes(copying: plain[32..<64])) : nil
            }
        }
        guard let halves else { throw AccountKeysetError.malformed }
        try self.init(boxPrivate: halves.0, signSeed: halves.1)
        guard boxPublicKey == box, signPublicKey == sign else { throw CryptoError.authenticationFailed }
    }
}

public enum AccountKeysetError: Error, Equatable, Sendable {
    case malformed
    case newerVersion(Int)
}
