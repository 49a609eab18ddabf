import Foundation
import PassboxCrypto

/// The public keys of an account (security.md §4, §6): the Ed25519 key it signs with and the X25519 key
/// vault keys are sealed to. Its fingerprint and security code cover both, in that order, so the code two
/// people compare names exactly the key a grant is sealed to (fingerprint what you encrypt to).
public struct IdentityKeys: Sendable, Equatable, Hashable {
    public let signPublicKey: [UInt8]
    public let boxPublicKey: [UInt8]

    public init(signPublicKey: [UInt8], boxPublicKey: [UInt8]) {
        precondition(signPublicKey.count == 32 && boxPublicKey.count == 32, "public keys are 32 bytes")
        self.signPublicKey = signPublicKey
        self.boxPublicKey = boxPublicKey
    }

    /// SHA-256 over `"passbox/v1/identity|" | sign | box`: what member lists and grants name.
    public var fingerprint: [UInt8] { Hash.sha256(Array("passbox/v1/identity|".utf8) + signPublicKey + boxPublicKey) }

    /// The security code: 60 digits in twelve groups of five. BLAKE2b-512 over
    /// `"passbox/v1/security-code|" | sign | box`; each group is five bytes of it (big-endian) modulo 100,000,
    /// as Signal's safety numbers are made. 40 bits per group keep the modulo bias below 10⁻⁶, and twelve
    /// groups carry about 199 bits: no second key pair can be made to show the same code.
    public var securityCode: SecurityCode {
        let digest = Hash.blake2b(Array("passbox/v1/security-code|".utf8) + signPublicKey + boxPublicKey, length: 64)
        let groups = (0..<12).map { g -> String in
            let value = digest[(g * 5)..<(g * 5 + 5)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } % 100_000
            let text = String(value)
            return String(repeating: "0", count: 5 - text.count) + text
        }
        return SecurityCode(groups: groups)
    }
}

/// A security code as people read it: twelve groups of five digits.
public struct SecurityCode: Sendable, Equatable, CustomStringConvertible {
    public let groups: [String]
    /// `12345 67890 …` in one line.
    public var description: String { groups.joined(separator: " ") }
    /// Three lines of four groups, as a screen shows it large.
    public var lines: [String] { stride(from: 0, to: 12, by: 4).map { groups[$0..<($0 + 4)].joined(separator: " ") } }
}

/// An account's key bundle as the key directory serves it: the public part of the sealed keyset
/// (`AccountKeyset`: `01 | box (32) | sign (32) | self-signature (64)`), the signature over
/// `"passbox/v1/keyset|" + accountID + "|" | box | sign`. The server cannot make one for an account id
/// without its signing key, but it can hand out another account's bundle: that is what pins and security
/// codes are for.
public struct KeyBundle: Sendable, Equatable {
    public static let length = 129
    public let accountID: String
    public let keys: IdentityKeys
    public let selfSignature: [UInt8]

    /// Reads the bundle from its bytes (or from a whole sealed keyset, whose first 129 bytes it is) and checks
    /// its self-signature for `accountID`.
    public init(_ bytes: [UInt8], accountID: String) throws {
        guard bytes.count >= Self.length else { throw SharingError.bundleInvalid }
        guard bytes[0] == 1 else { throw SharingError.newerFormat(Int(bytes[0])) }
        let box = Array(bytes[1..<33]), sign = Array(bytes[33..<65]), signature = Array(bytes[65..<129])
        let bound = Array("passbox/v1/keyset|\(accountID)|".utf8) + box + sign
        guard SigningKey.isValidSignature(signature, for: bound, publicKey: sign) else { throw SharingError.bundleInvalid }
        self.accountID = accountID
        keys = IdentityKeys(signPublicKey: sign, boxPublicKey: box)
        selfSignature = signature
    }

    /// The 129 bytes.
    public var encoded: [UInt8] { [1] + keys.boxPublicKey + keys.signPublicKey + selfSignature }
}

/// Why a client refuses something of sharing. These are facts: each surface words them.
public enum SharingError: Error, Equatable, Sendable {
    /// A key bundle that is not signed by its own key, or is cut short.
    case bundleInvalid
    /// A format newer than this code reads.
    case newerFormat(Int)
    /// A member list version or a grant that does not decode.
    case malformed(String)
    /// A member list that does not verify: `version` is the first one that fails, `reason` says how.
    case listInvalid(version: Int64, reason: ListProblem)
    /// The server showed a list whose version `version` differs from the one this device saw before.
    case listForked(version: Int64)
    /// The server showed an older list than this device saw before.
    case listWentBack(seen: Int64, shown: Int64)
    /// The list's first version is not the organisation the invitation or this device names.
    case notTheOrganisation
    /// A grant that does not verify, or that its granter may not give.
    case grantRefused(GrantProblem)
}

public enum ListProblem: String, Sendable, Equatable {
    case notSigned, brokenLink, notNextVersion, signerNotAllowed, adminChangedOwner, noOwner, organisationChanged
    case epochNotRaised, epochWentBack, creatorNotOwner, duplicateMember, ownKeysDiffer, epochTooLarge
}

public enum GrantProblem: String, Sendable, Equatable {
    case notSigned, granterNotAllowed, notForThisDevice, otherOrganisation, otherVault, keyMalformed, accessNotGranted, recipientPaused
}
