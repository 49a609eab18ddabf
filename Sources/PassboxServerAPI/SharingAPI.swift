import Foundation

// The sharing routes of `passbox server` (docs/PROTOCOL.md "Sharing"). The server keeps the signed member
// list versions, the key directory and invitations; clients verify everything it shows (security.md §6).

/// `POST /v1/keys`: an account's key bundle by email (signed-in accounts only).
public struct KeyLookupRequest: Codable, Sendable {
    public var email: String
    public init(email: String) { self.email = email }
}

public struct KeyLookupReply: Codable, Sendable, Equatable {
    public var accountID: String
    public var email: String
    /// The 129-byte bundle (`KeyBundle`): the public part of the account's sealed keyset.
    public var bundle: Data
    public init(accountID: String, email: String, bundle: Data) {
        self.accountID = accountID
        self.email = email
        self.bundle = bundle
    }
}

/// `POST /v1/orgs/append`: the next version of an organisation's member list (version 1 makes it), signed
/// by the caller. A version that is not the next one is `syncConflict`.
public struct OrgAppendRequest: Codable, Sendable {
    public var orgID: String
    public var version: Data
    public init(orgID: String, version: Data) {
        self.orgID = orgID
        self.version = version
    }
}

public struct OrgAppendReply: Codable, Sendable, Equatable {
    public var version: Int64
    public init(version: Int64) { self.version = version }
}

/// `POST /v1/orgs/fetch`: the list's versions after `since` (at most `pageLimit` and about `pageBytes`; `more`
/// when others wait),
/// the accepted invitations waiting for a manager's confirmation, and (for managers) the open invitations.
public struct OrgFetchRequest: Codable, Sendable {
    public var orgID: String
    public var since: Int64
    public static let pageLimit = 500
    public static let pageBytes = 8 << 20
    public init(orgID: String, since: Int64) {
        self.orgID = orgID
        self.since = since
    }
}

public struct OrgFetchReply: Codable, Sendable {
    public var versions: [Data]
    public var more: Bool
    public var waiting: [WaitingMember]
    public var invitations: [OrgInvitation]
    /// The organisation's shared vaults, each with the caller's grants (every epoch kept).
    public var vaults: [SharedVaultRecord]?
    /// Members who left (`POST /v1/orgs/leave`) and are still in the newest list: the next version a manager
    /// signs removes them, raising the epoch.
    public var departed: [String]?
    /// For owners of a family: members who allowed it and ask to be let back in with new keys.
    public var recoveries: [FamilyRecoveryRequestView]?
    /// Whether the caller lets this family's owners help them back in.
    public var recoveryAllowed: Bool?
    public init(versions: [Data], more: Bool, waiting: [WaitingMember], invitations: [OrgInvitation], vaults: [SharedVaultRecord]? = nil, departed: [String]? = nil) {
        self.versions = versions
        self.more = more
        self.waiting = waiting
        self.invitations = invitations
        self.vaults = vaults
        self.departed = departed
    }
}

/// A shared vault as the server keeps it: its key epoch, its name sealed under that epoch's key, and grants.
public struct SharedVaultRecord: Codable, Sendable, Equatable {
    public var vaultID: String
    public var epoch: Int
    public var meta: Data
    public var grants: [Data]
    /// The accounts holding a grant at the vault's epoch (so a manager sees whom a grant is missing for).
    public var granted: [String]?
    public init(vaultID: String, epoch: Int, meta: Data, grants: [Data], granted: [String]? = nil) {
        self.vaultID = vaultID
        self.epoch = epoch
        self.meta = meta
        self.grants = grants
        self.granted = granted
    }
}

/// `POST /v1/orgs/vaults/put`: a shared vault's name and grants at the list's epoch (making the vault, sharing it
/// with more members, or rotating its key). Only an owner, an admin or a manager of the vault; each grant by
/// the caller, for a member the newest list gives that access.
public struct SharedVaultPutRequest: Codable, Sendable {
    public var orgID: String
    public var vaultID: String
    public var epoch: Int
    public var meta: Data
    public var grants: [Data]
    public init(orgID: String, vaultID: String, epoch: Int, meta: Data, grants: [Data]) {
        self.orgID = orgID
        self.vaultID = vaultID
        self.epoch = epoch
        self.meta = meta
        self.grants = grants
    }
}

/// Someone who accepted an invitation: not a member until a manager confirms them in a signed version.
public struct WaitingMember: Codable, Sendable, Equatable {
    public var accountID: String
    public var email: String
    public var role: String
    public var bundle: Data
    public var accepted: Date
    public init(accountID: String, email: String, role: String, bundle: Data, accepted: Date) {
        self.accountID = accountID
        self.email = email
        self.role = role
        self.bundle = bundle
        self.accepted = accepted
    }
}

public struct OrgInvitation: Codable, Sendable, Equatable {
    public var id: String
    public var email: String
    public var role: String
    public var expires: Date
    public init(id: String, email: String, role: String, expires: Date) {
        self.id = id
        self.email = email
        self.role = role
        self.expires = expires
    }
}

/// `GET /v1/orgs`: the organisations whose newest list holds the caller, with the newest version number.
public struct OrgsReply: Codable, Sendable {
    public var orgs: [OrgHead]
    public init(orgs: [OrgHead]) { self.orgs = orgs }
}

public struct OrgHead: Codable, Sendable, Equatable {
    public var orgID: String
    public var version: Int64
    public init(orgID: String, version: Int64) {
        self.orgID = orgID
        self.version = version
    }
}

/// `POST /v1/orgs/invite`: a manager invites an email with a role; the answer's token is shown once.
public struct OrgInviteRequest: Codable, Sendable {
    public var orgID: String
    public var email: String
    public var role: String
    /// Ask the server to mail the link too (when it was started with `--smtp`).
    public var mail: Bool?
    public init(orgID: String, email: String, role: String, mail: Bool? = nil) {
        self.orgID = orgID
        self.email = email
        self.role = role
        self.mail = mail
    }
}

public struct OrgInviteReply: Codable, Sendable {
    public var token: String
    public var id: String
    public var expires: Date
    /// Whether the server mailed the link (nil: not asked; false: it sends no mail, or the mail failed).
    public var mailed: Bool?
    public init(token: String, id: String, expires: Date, mailed: Bool? = nil) {
        self.token = token
        self.id = id
        self.expires = expires
        self.mailed = mailed
    }
    /// How long an invitation can be accepted.
    public static let lifetime: TimeInterval = 7 * 86_400
}

/// `POST /v1/orgs/leave`: the caller leaves (owners cannot: they hand ownership over first). The server stops
/// serving them the list and their grants at once.
public struct OrgLeaveRequest: Codable, Sendable {
    public var orgID: String
    public init(orgID: String) { self.orgID = orgID }
}

/// `POST /v1/orgs/revoke`: a manager revokes an open invitation by its id.
public struct OrgRevokeRequest: Codable, Sendable {
    public var orgID: String
    public var id: String
    public init(orgID: String, id: String) {
        self.orgID = orgID
        self.id = id
    }
}

/// `POST /v1/invitations/preview` and `/accept`: an invitation by its token; a preview pages through the list
/// from `since` as a fetch does.
public struct InvitationTokenRequest: Codable, Sendable {
    public var token: String
    public var since: Int64?
    public init(token: String, since: Int64? = nil) {
        self.token = token
        self.since = since
    }
}

/// What an invitee sees before joining: the invitation and the whole list, which the client checks against
/// the organisation code of the link before it believes the kind, name or members.
public struct InvitationPreviewReply: Codable, Sendable {
    public var orgID: String
    public var email: String
    public var role: String
    public var expires: Date
    public var versions: [Data]
    /// Whether later versions wait for another page.
    public var more: Bool?
    public init(orgID: String, email: String, role: String, expires: Date, versions: [Data], more: Bool? = nil) {
        self.orgID = orgID
        self.email = email
        self.role = role
        self.expires = expires
        self.versions = versions
        self.more = more
    }
}

// MARK: Organisation recovery (ACC-10, ACC-11)

/// `POST /v1/orgs/recovery/allow`: a member lets the family's owners help them back in (or stops it).
public struct OrgRecoveryAllowRequest: Codable, Sendable {
    public var orgID: String
    public var allow: Bool
    /// Turning it on: a fresh proof of the sign-in key (`SignInTranscript.familyRecoveryLabel`).
    public var proof: FreshProof?
    public init(orgID: String, allow: Bool, proof: FreshProof? = nil) {
        self.orgID = orgID
        self.allow = allow
        self.proof = proof
    }
}

/// `POST /v1/recovery/family/start` (no session): someone who lost master password and Secret Key asks for
/// their account's id and a token for the next step. Answered only when the account lets a family help.
public struct FamilyRecoveryStartRequest: Codable, Sendable {
    public var email: String
    public init(email: String) { self.email = email }
}

public struct FamilyRecoveryStartReply: Codable, Sendable {
    public var accountID: String
    public var token: String
    public init(accountID: String, token: String) {
        self.accountID = accountID
        self.token = token
    }
}

/// `POST /v1/recovery/family/keys` (no session): the new credentials, made on the member's device (a new
/// Secret Key for the same account id, a new keyset); they take effect only when an owner approves.
public struct FamilyRecoveryKeysRequest: Codable, Sendable {
    public var email: String
    public var token: String
    public var salt: Data
    public var kdf: KDFParameters
    public var signInPublicKey: Data
    public var keyset: Data
    /// Ed25519 by the new keyset's signing key over `transcript`: whoever files credentials with a keyset's
    /// public bundle must hold its private half (nobody can pair someone else's new keys with a sign-in key).
    public var signature: Data
    public init(email: String, token: String, salt: Data, kdf: KDFParameters, signInPublicKey: Data, keyset: Data, signature: Data) {
        self.email = email
        self.token = token
        self.salt = salt
        self.kdf = kdf
        self.signInPublicKey = signInPublicKey
        self.keyset = keyset
        self.signature = signature
    }

    /// What the signature covers: the account, the sign-in key, the salt, the KDF parameters and the sealed keyset.
    public static func transcript(accountID: String, signInPublicKey: Data, salt: Data, kdf: KDFParameters, keyset: Data) -> [UInt8] {
        Array("passbox/v1/family-recovery|\(accountID)|\(kdf.memoryKiB)|\(kdf.passes)|\(kdf.lanes)|".utf8) + Array(signInPublicKey) + Array(salt) + Array(keyset)
    }
}

/// A member asking to be let back in, as owners see it in a fetch: the public part of their new keyset.
public struct FamilyRecoveryRequestView: Codable, Sendable, Equatable {
    public var accountID: String
    public var email: String
    public var bundle: Data
    public var created: Date
    public init(accountID: String, email: String, bundle: Data, created: Date) {
        self.accountID = accountID
        self.email = email
        self.bundle = bundle
        self.created = created
    }
}

/// `POST /v1/orgs/recovery/approve`: an owner lets the member in with their new credentials, once the newest
/// list (signed by the owner) holds the new keys.
public struct OrgRecoveryApproveRequest: Codable, Sendable {
    public var orgID: String
    public var accountID: String
    /// The new public bundle the owner compared: the server refuses when the request holds another.
    public var bundle: Data
    public init(orgID: String, accountID: String, bundle: Data) {
        self.orgID = orgID
        self.accountID = accountID
        self.bundle = bundle
    }
}
