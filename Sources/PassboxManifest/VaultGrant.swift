import Foundation
import PassboxCrypto

/// A shared vault's key for one member (security.md §4 "Vault keys", §6): the 32-byte key of a vault and key
/// epoch sealed to the member's X25519 key (`crypto_box_seal`), with the granter's Ed25519 signature over
/// what the grant means. The sealed box alone is anonymous (anyone, the server too, can seal a key to a
/// public key); the signature says who gave it, and the verified member list says whether they may.
///
/// Encoded: `format (1) | orgID | vaultID | u32 epoch | recipient fingerprint (32) | access (1) | granter |
/// u16 length | sealed | signature (64)`; signed is `"passbox/v1/grant|"` and everything before the signature,
/// so the signature covers the sealed bytes themselves: a grant cannot be moved to another vault, epoch,
/// access or member, or carry another key.
public struct VaultGrant: Sendable, Equatable {
    public static let formatVersion: UInt8 = 1
    public var orgID: String
    public var vaultID: String
    public var epoch: Int
    public var recipient: [UInt8]
    public var access: VaultAccessLevel
    public var granter: String
    public var sealed: [UInt8]
    public var signature: [UInt8] = []

    /// Seals `key` to `recipient`'s box key and signs it as `granter`.
    public static func make(
        key: SecretBytes, orgID: String, vaultID: String, epoch: Int, recipient: IdentityKeys, access: VaultAccessLevel, granter: String, signingKey: SigningKey
    ) throws -> VaultGrant {
        let sealed = try key.withUnsafeBytes { try BoxKeyPair.seal(Array($0), to: recipient.boxPublicKey) }
        var grant = VaultGrant(orgID: orgID, vaultID: vaultID, epoch: epoch, recipient: recipient.fingerprint, access: access, granter: granter, sealed: sealed)
        grant.signature = signingKey.signature(for: grant.signedBytes)
        return grant
    }

    init(orgID: String, vaultID: String, epoch: Int, recipient: [UInt8], access: VaultAccessLevel, granter: String, sealed: [UInt8]) {
        self.orgID = orgID
        self.vaultID = vaultID
        self.epoch = epoch
        self.recipient = recipient
        self.access = access
        self.granter = granter
        self.sealed = sealed
    }

    var body: [UInt8] {
        var w = BinaryWriter()
        w.byte(Self.formatVersion)
        w.string(orgID)
        w.string(vaultID)
        w.u32(epoch)
        w.raw(recipient)
        w.byte(access.rawValue)
        w.string(granter)
        w.data(sealed)
        return w.bytes
    }

    var signedBytes: [UInt8] { Array("passbox/v1/grant|".utf8) + body }

    /// Whether the signature is by `signer`'s key (the server's check; a client checks all of `open`).
    public func verifies(signer: IdentityKeys) -> Bool { SigningKey.isValidSignature(signature, for: signedBytes, publicKey: signer.signPublicKey) }
    public var encoded: [UInt8] { body + signature }

    public init(decoding bytes: [UInt8]) throws {
        var r = BinaryReader(bytes, failure: SharingError.malformed("grant"))
        let format = try r.byte()
        guard format == Self.formatVersion else { throw format > Self.formatVersion ? SharingError.newerFormat(Int(format)) : r.failure }
        orgID = try r.string()
        vaultID = try r.string()
        epoch = try r.u32()
        recipient = Array(try r.take(32))
        access = try r.value(VaultAccessLevel.self)
        granter = try r.string()
        sealed = try r.data()
        signature = Array(try r.take(64))
        guard r.isAtEnd else { throw r.failure }
    }

    /// Opens the grant for this device's keys, after checking it against the verified member list `list`:
    /// the grant is for this organisation and `vault` at the list's epoch; it names this device's identity
    /// (`own`, the keys the list holds for it) and the access the list gives it; its granter is an active
    /// owner or admin of the list, or an active member with manage access to the vault; the signature is the
    /// granter's. Only then is the sealed box opened with `box`.
    ///
    /// `epoch` is the vault's key epoch the caller expects (the list's by default; an older one while the
    /// vault's rotation is pending). The checks are always against the newest verified list: a granter or
    /// recipient no longer allowed there is refused, whenever the grant was made.
    public func open(list: MemberListVersion, vault: String, epoch expected: Int? = nil, own accountID: String, box: BoxKeyPair) throws -> SecretBytes {
        guard orgID == list.orgID else { throw SharingError.grantRefused(.otherOrganisation) }
        guard vaultID == vault, epoch == (expected ?? list.epoch), epoch <= list.epoch else { throw SharingError.grantRefused(.otherVault) }
        guard let me = list.member(accountID), me.keys.boxPublicKey == box.publicKey, ConstantTime.equal(recipient, me.keys.fingerprint) else {
            throw SharingError.grantRefused(.notForThisDevice)
        }
        // A paused member uses no shared vault until resumed (an honest client's promise; a key it held before stays known to it).
        guard me.state == .active else { throw SharingError.grantRefused(.recipientPaused) }
        guard let granted = list.access(vault: vault, account: accountID), granted == access else { throw SharingError.grantRefused(.accessNotGranted) }
        guard let giver = list.member(granter), giver.state == .active,
            giver.role.managesMembers || list.access(vault: vault, account: granter) == .manage
        else { throw SharingError.grantRefused(.granterNotAllowed) }
        guard SigningKey.isValidSignature(signature, for: signedBytes, publicKey: giver.keys.signPublicKey) else { throw SharingError.grantRefused(.notSigned) }
        let key = try box.open(sealed: sealed)
        guard key.count == 32 else { throw SharingError.grantRefused(.keyMalformed) }
        return key
    }
}
