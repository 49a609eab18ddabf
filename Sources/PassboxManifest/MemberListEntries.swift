import Foundation

// The parts of a member list version (`MemberListVersion`): kinds, roles, states, access levels, entries.

public enum OrganisationKind: UInt8, Sendable, CaseIterable {
    case family = 1
    case team = 2
    public var name: String { self == .family ? "family" : "team" }
    public init?(name: String) {
        guard let kind = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = kind
    }
}

/// A member's role. Owners and admins manage the list; an admin may not touch an owner's entry or make one.
public enum MemberRole: UInt8, Sendable, CaseIterable, Comparable {
    case owner = 1
    case admin = 2
    case member = 3
    case guest = 4
    public var name: String { ["owner", "admin", "member", "guest"][Int(rawValue) - 1] }
    public init?(name: String) {
        guard let role = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = role
    }
    public var managesMembers: Bool { self == .owner || self == .admin }
    public static func < (a: MemberRole, b: MemberRole) -> Bool { a.rawValue < b.rawValue }
}

public enum MemberState: UInt8, Sendable, CaseIterable {
    case active = 1
    case paused = 2
    public var name: String { self == .active ? "active" : "paused" }
}

public enum VaultAccessLevel: UInt8, Sendable, CaseIterable, Comparable {
    case view = 1
    case edit = 2
    case manage = 3
    public var name: String { ["view", "edit", "manage"][Int(rawValue) - 1] }
    public init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = level
    }
    public static func < (a: VaultAccessLevel, b: VaultAccessLevel) -> Bool { a.rawValue < b.rawValue }
}

public struct ListMember: Sendable, Equatable {
    public var accountID: String
    public var email: String
    public var role: MemberRole
    public var state: MemberState
    public var keys: IdentityKeys
    public init(accountID: String, email: String, role: MemberRole, state: MemberState = .active, keys: IdentityKeys) {
        self.accountID = accountID
        self.email = email
        self.role = role
        self.state = state
        self.keys = keys
    }
}

public struct VaultAccess: Sendable, Equatable {
    public var vaultID: String
    public var accountID: String
    public var access: VaultAccessLevel
    public init(vaultID: String, accountID: String, access: VaultAccessLevel) {
        self.vaultID = vaultID
        self.accountID = accountID
        self.access = access
    }
}

/// A group of members (SHR-22): vault access given to a group reaches each of its members. Group ids begin
/// with `@` (account ids never do), so a vault entry names a member or a group unambiguously.
public struct ListGroup: Sendable, Equatable {
    public var id: String
    public var name: String
    /// Account ids, sorted, each a member of the list.
    public var members: [String]
    public init(id: String, name: String, members: [String]) {
        self.id = id
        self.name = name
        self.members = Array(Set(members)).sorted()
    }
    public static func isGroupID(_ id: String) -> Bool { id.hasPrefix("@") }
}
