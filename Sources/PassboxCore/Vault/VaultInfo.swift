import Foundation

/// One of the fourteen vault icons (VLT-2).
public enum VaultIcon: String, CaseIterable, Sendable, Codable {
    case house, briefcase, star, heart, lock, key, globe, folder, card, person, people, cloud, code, gift
}

/// One of the ten vault colours (VLT-2).
public enum VaultColour: String, CaseIterable, Sendable, Codable {
    case blue, green, orange, red, purple, pink, teal, yellow, brown, grey
}

/// A vault inside the file or the account: its id, name and look. Items name their vault by id; a file made
/// before vaults existed has none, and its items belong to the first vault made for them.
public struct VaultInfo: Sendable, Equatable {
    /// 26 characters of Crockford base32, made on the device that created the vault.
    public var id: String
    public var name: String
    /// The icon and colour the user chose, or nil for the default (see `shownIcon`, `shownColour`).
    public var icon: VaultIcon?
    public var colour: VaultColour?
    public var created: Date?
    /// When the vault was deleted (LB-2): only in the synced name envelope that tells an account's other
    /// devices; a deleted vault is never in a vault's list.
    public var deleted: Date?
    /// In a shared vault's name envelope: the member list version (and its hash) the writer of the manifest
    /// relied on, so members whose servers showed them different lists find out when their writes meet (issue 32).
    public var listVersion: Int64?
    public var listHash: [UInt8]?
    /// Keys written by a newer Passbox, kept unchanged.
    public var unknown: [String: PackedValue]

    public init(id: String = Identifier.generateItemID(), name: String, icon: VaultIcon? = nil, colour: VaultColour? = nil, created: Date? = nil) {
        self.id = id
        self.name = name
        self.icon = icon
        self.colour = colour
        self.created = created?.storedPrecision
        unknown = [:]
    }

    /// The longest vault name accepted.
    public static let nameLimit = 100

    /// The icon shown: the chosen one, else a house for the first personal vault and a folder for the others.
    public func shownIcon(isFirst: Bool) -> VaultIcon { icon ?? (isFirst ? .house : .folder) }

    /// The colour shown: the chosen one, else blue for the first vault and a colour derived from the id for the
    /// others, the same on every device.
    public func shownColour(isFirst: Bool) -> VaultColour {
        if let colour { return colour }
        if isFirst { return .blue }
        let sum = id.utf8.reduce(0) { ($0 &* 31 &+ Int($1)) & 0xFFFF }
        return VaultColour.allCases[sum % VaultColour.allCases.count]
    }
}

extension Vault {
    /// The vault an item of `vaultID` is in (nil: the first one).
    public func vaultInfo(_ vaultID: String?) -> VaultInfo? {
        guard let vaultID else { return vaults.first }
        return vaults.first { $0.id == vaultID }
    }

    /// Items of one vault (nil: every vault). Items without a vault id belong to the first vault.
    public func items(inVault vaultID: String?) -> [Item] {
        guard let vaultID else { return items }
        let first = vaults.first?.id
        return items.filter { ($0.vaultID ?? first) == vaultID }
    }
}
