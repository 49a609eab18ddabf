import Foundation

/// What the sharing operations answer: facts for a surface to word (`passbox org …`, `--json`).

/// A contact as this device knows them: the pinned security code, whether it was compared, and the new
/// code when the directory shows other keys now (the pin stays in force until the user accepts them).
public struct ContactView: Codable, Sendable, Equatable {
    public var email: String
    public var accountID: String
    public var securityCode: String
    public var compared: Bool
    /// Set only when the directory now shows other keys than the pinned ones.
    public var newSecurityCode: String?
    /// The first time this device saw the contact's keys (they were pinned just now).
    public var pinnedNow: Bool
    public init(email: String, accountID: String, securityCode: String, compared: Bool, newSecurityCode: String? = nil, pinnedNow: Bool) {
        self.email = email
        self.accountID = accountID
        self.securityCode = securityCode
        self.compared = compared
        self.newSecurityCode = newSecurityCode
        self.pinnedNow = pinnedNow
    }
}

/// This account's own security code, and whether the server publishes the same keys ("Check with the
/// server", SHR-19; nil when not asked).
public struct OwnCodeView: Codable, Sendable, Equatable {
    public var email: String
    public var securityCode: String
    public var serverMatches: Bool?
    public init(email: String, securityCode: String, serverMatches: Bool? = nil) {
        self.email = email
        self.securityCode = securityCode
        self.serverMatches = serverMatches
    }
}

public struct MemberView: Codable, Sendable, Equatable {
    public var email: String
    public var accountID: String
    public var role: String
    public var state: String
    public var securityCode: String
    /// "compared" (codes compared on this device), "pinned" (keys pinned at first sight), "differs" (the list
    /// holds other keys than this device pinned), "unknown" (never looked up here), "self".
    public var trust: String
    public init(email: String, accountID: String, role: String, state: String, securityCode: String, trust: String) {
        self.email = email
        self.accountID = accountID
        self.role = role
        self.state = state
        self.securityCode = securityCode
        self.trust = trust
    }
}

public struct WaitingView: Codable, Sendable, Equatable {
    public var email: String
    public var role: String
    public var accepted: Date
    public var securityCode: String
    public init(email: String, role: String, accepted: Date, securityCode: String) {
        self.email = email
        self.role = role
        self.accepted = accepted
        self.securityCode = securityCode
    }
}

/// An open invitation as the server lists it to managers (the wire type itself: nothing is checked in it).
public typealias InvitationView = OrgInvitation

public struct OrgView: Codable, Sendable, Equatable {
    public var orgID: String
    public var kind: String
    public var name: String
    public var version: Int64
    public var epoch: Int
    /// This account's role in the verified list (nil: no longer in it).
    public var role: String?
    public var members: [MemberView]
    public var waiting: [WaitingView]
    public var invitations: [InvitationView]
    /// The organisation code of invitation links, when this device knows the list's first version.
    public var code: String?
    /// Whether this device trusts that this is the organisation the user meant (made or joined here, or its code
    /// compared: `passbox org trust`); nothing is signed or sealed on an untrusted one.
    public var trusted: Bool = false
    /// Groups with their members' emails (SHR-22).
    public var groups: [GroupView] = []
    /// Organisation recovery (families): whether this account lets the owners help it back in, and, for owners,
    /// members asking to be let back in with new keys (their new security code, to compare with them).
    public var recoveryAllowed: Bool = false
    public var recoveries: [WaitingView] = []
    /// "member"; "waiting" (this account accepted an invitation and waits for a manager to confirm it);
    /// "removed" (the newest list this device verified no longer holds it); "refused" (the list the server
    /// shows does not verify: a sharing warning says why).
    public var status: String
    public init(orgID: String, kind: String, name: String, version: Int64, epoch: Int, role: String? = nil, members: [MemberView], waiting: [WaitingView], invitations: [InvitationView], code: String? = nil, trusted: Bool = false, groups: [GroupView] = [], recoveryAllowed: Bool = false, recoveries: [WaitingView] = [], status: String) {
        self.orgID = orgID
        self.kind = kind
        self.name = name
        self.version = version
        self.epoch = epoch
        self.role = role
        self.members = members
        self.waiting = waiting
        self.invitations = invitations
        self.code = code
        self.trusted = trusted
        self.groups = groups
        self.recoveryAllowed = recoveryAllowed
        self.recoveries = recoveries
        self.status = status
    }
}

public struct GroupView: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var members: [String]
    public init(id: String, name: String, members: [String]) {
        self.id = id
        self.name = name
        self.members = members
    }
}

public struct InvitationPreview: Codable, Sendable, Equatable {
    public var orgID: String
    public var kind: String
    public var name: String
    public var email: String
    public var role: String
    public var expires: Date
    public var members: Int
    public var owners: [String]
    public init(orgID: String, kind: String, name: String, email: String, role: String, expires: Date, members: Int, owners: [String]) {
        self.orgID = orgID
        self.kind = kind
        self.name = name
        self.email = email
        self.role = role
        self.expires = expires
        self.members = members
        self.owners = owners
    }
}

public struct SharingWarningView: Codable, Sendable, Equatable {
    public var kind: String
    public var subject: String
    public var detail: String
    public var seen: Date
    public init(kind: String, subject: String, detail: String, seen: Date) {
        self.kind = kind
        self.subject = subject
        self.detail = detail
        self.seen = seen
    }
}

/// A shared vault as this account sees it.
public struct SharedVaultView: Codable, Sendable, Equatable {
    public var vaultID: String
    /// The name, when this account holds the vault's key (nil: no grant, or a grant that was refused).
    public var name: String?
    public var epoch: Int
    /// This account's access in the verified list (nil: none).
    public var access: String?
    /// The vault's key is older than the list's epoch: someone left or lost access since, and a manager has
    /// not renewed it yet (SHR-16).
    public var rotationPending: Bool
    /// Who can see it: every member the list gives access, with that access (SHR-6).
    public var seenBy: [SeenBy]
    /// Members the list gives access who hold no key at this epoch yet (a manager renews).
    public var waitingForKey: [String]

    public struct SeenBy: Codable, Sendable, Equatable {
        public var email: String
        public var access: String
        public init(email: String, access: String) {
            self.email = email
            self.access = access
        }
    }
    public init(vaultID: String, name: String? = nil, epoch: Int, access: String? = nil, rotationPending: Bool, seenBy: [SeenBy], waitingForKey: [String]) {
        self.vaultID = vaultID
        self.name = name
        self.epoch = epoch
        self.access = access
        self.rotationPending = rotationPending
        self.seenBy = seenBy
        self.waitingForKey = waitingForKey
    }
}
