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
}

/// This account's own security code, and whether the server publishes the same keys ("Check with the
/// server", SHR-19; nil when not asked).
public struct OwnCodeView: Codable, Sendable, Equatable {
    public var email: String
    public var securityCode: String
    public var serverMatches: Bool?
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
}

public struct WaitingView: Codable, Sendable, Equatable {
    public var email: String
    public var role: String
    public var accepted: Date
    public var securityCode: String
}

public struct InvitationView: Codable, Sendable, Equatable {
    public var id: String
    public var email: String
    public var role: String
    public var expires: Date
}

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
}

public struct GroupView: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var members: [String]
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
}

public struct SharingWarningView: Codable, Sendable, Equatable {
    public var kind: String
    public var subject: String
    public var detail: String
    public var seen: Date
}
