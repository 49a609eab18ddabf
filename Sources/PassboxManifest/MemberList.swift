import Foundation
import PassboxCrypto

/// One version of an organisation's member list (security.md §6; docs/FORMATS.md "Member list"): who is in
/// it with which role, state and public keys, who may use which shared vault, and the key epoch, signed by an
/// owner or admin of the version before (the first by its creator). The server keeps and hands out the
/// versions; clients verify every step (`MemberListChain`).
///
/// Encoded (big-endian; strings as `u16 length | UTF-8`): `format (1) | orgID | kind (1) | name |
/// u64 version | previous (32) | u32 epoch | u32 n | n × (accountID | email | role (1) | state (1) | sign (32)
/// | box (32)) | u32 m | m × (vaultID | principal | access (1)) | u32 g | g × (groupID | name | u32 k |
/// k × accountID) | signer | signature (64)`. A principal is a member's account id or a group's id. Members
/// are sorted by account id, vault entries by vault then principal, groups by id and their members by
/// account id, each at most once, so one list has one encoding. Signed is `"passbox/v1/member-list|"`
/// followed by everything before the signature.
public struct MemberListVersion: Sendable, Equatable {
    public static let formatVersion: UInt8 = 1
    public var format: UInt8 = MemberListVersion.formatVersion
    public var orgID: String
    public var kind: OrganisationKind
    public var name: String
    public var version: Int64
    public var previous: [UInt8]
    public var epoch: Int
    public var members: [ListMember]
    public var vaults: [VaultAccess]
    public var groups: [ListGroup] = []
    public var signer: String
    public var signature: [UInt8] = []

    public static let noPrevious = [UInt8](repeating: 0, count: 32)
    /// Bounds a decoder holds to (a hostile server's list cannot make a client allocate without limit).
    /// (5,000 members keep a version under the server's 1 MiB request body, base64 included.)
    public static let memberLimit = 5_000
    public static let vaultEntryLimit = 100_000
    public static let groupLimit = 1_000

    public init(orgID: String, kind: OrganisationKind, name: String, version: Int64, previous: [UInt8], epoch: Int, members: [ListMember], vaults: [VaultAccess], signer: String) {
        self.orgID = orgID
        self.kind = kind
        self.name = name
        self.version = version
        self.previous = previous
        self.epoch = epoch
        self.members = members.sorted { $0.accountID < $1.accountID }
        self.vaults = vaults.sorted { ($0.vaultID, $0.accountID) < ($1.vaultID, $1.accountID) }
        self.signer = signer
    }

    /// The first version: the creator alone, as owner, at epoch 1.
    public static func genesis(orgID: String, kind: OrganisationKind, name: String, creator: ListMember) -> MemberListVersion {
        var owner = creator
        owner.role = .owner
        owner.state = .active
        return MemberListVersion(orgID: orgID, kind: kind, name: name, version: 1, previous: noPrevious, epoch: 1, members: [owner], vaults: [], signer: owner.accountID)
    }

    /// The version after this one, to be changed and signed by `signer`.
    public func next(signer: String) -> MemberListVersion {
        var next = self
        next.version = version + 1
        next.previous = hash
        next.signer = signer
        next.signature = []
        return next
    }

    public func member(_ accountID: String) -> ListMember? { members.first { $0.accountID == accountID } }
    public func group(_ id: String) -> ListGroup? { groups.first { $0.id == id } }

    /// A member's access to a vault: the highest of their own entry and their groups' entries.
    public func access(vault: String, account: String) -> VaultAccessLevel? {
        var best: VaultAccessLevel?
        for entry in vaults where entry.vaultID == vault {
            let applies = entry.accountID == account || (ListGroup.isGroupID(entry.accountID) && group(entry.accountID)?.members.contains(account) == true)
            if applies, best.map({ entry.access > $0 }) ?? true { best = entry.access }
        }
        return best
    }

    /// Every member's access to every vault, groups resolved: "LENGTH:VAULTACCOUNT" → access.
    public var effectiveAccess: [String: VaultAccessLevel] {
        let byGroup = Dictionary(groups.map { ($0.id, $0.members) }, uniquingKeysWith: { a, _ in a })
        var out: [String: VaultAccessLevel] = [:]
        for entry in vaults {
            let accounts = ListGroup.isGroupID(entry.accountID) ? byGroup[entry.accountID] ?? [] : [entry.accountID]
            for account in accounts {
                // Length-prefixed: no pair of ids can make the same key.
                let key = "\(entry.vaultID.utf8.count):" + entry.vaultID + account
                if out[key].map({ entry.access > $0 }) ?? true { out[key] = entry.access }
            }
        }
        return out
    }

    /// The members who may use `vault`, with their access (groups resolved).
    public func members(of vault: String) -> [(ListMember, VaultAccessLevel)] {
        members.compactMap { m in access(vault: vault, account: m.accountID).map { (m, $0) } }
    }

    /// Sets or (nil) removes a group, keeping the canonical order; removing it drops its vault entries.
    public mutating func set(group id: String, _ entry: ListGroup?) {
        groups.removeAll { $0.id == id }
        if let entry { groups.append(entry) }
        groups.sort { $0.id < $1.id }
        if entry == nil { vaults.removeAll { $0.accountID == id } }
    }

    /// Sets or (with nil) removes a member, keeping the canonical order.
    public mutating func set(member accountID: String, _ entry: ListMember?) {
        members.removeAll { $0.accountID == accountID }
        if let entry { members.append(entry) }
        members.sort { $0.accountID < $1.accountID }
        if entry == nil {
            vaults.removeAll { $0.accountID == accountID }
            for i in groups.indices { groups[i].members.removeAll { $0 == accountID } }
        }
    }

    public mutating func set(vault: String, account: String, _ access: VaultAccessLevel?) {
        vaults.removeAll { $0.vaultID == vault && $0.accountID == account }
        if let access { vaults.append(VaultAccess(vaultID: vault, accountID: account, access: access)) }
        vaults.sort { ($0.vaultID, $0.accountID) < ($1.vaultID, $1.accountID) }
    }

    var body: [UInt8] {
        // One buffer sized up front: a version of a 1,000-member list is about 95 KiB and is encoded at every
        // step of a verification.
        var w = BinaryWriter(capacity: 128 + name.utf8.count + members.count * 104 + members.reduce(0) { $0 + $1.email.utf8.count } + vaults.count * 40)
        w.byte(format)
        w.string(orgID)
        w.byte(kind.rawValue)
        w.string(name)
        w.u64(version)
        w.raw(previous)
        w.u32(epoch)
        w.u32(members.count)
        for m in members {
            w.string(m.accountID)
            w.string(m.email)
            w.byte(m.role.rawValue)
            w.byte(m.state.rawValue)
            w.raw(m.keys.signPublicKey)
            w.raw(m.keys.boxPublicKey)
        }
        w.u32(vaults.count)
        for v in vaults {
            w.string(v.vaultID)
            w.string(v.accountID)
            w.byte(v.access.rawValue)
        }
        w.u32(groups.count)
        for g in groups {
            w.string(g.id)
            w.string(g.name)
            w.u32(g.members.count)
            for m in g.members { w.string(m) }
        }
        w.string(signer)
        return w.bytes
    }

    var signedBytes: [UInt8] { Array("passbox/v1/member-list|".utf8) + body }

    public mutating func sign(with key: SigningKey) { signature = key.signature(for: signedBytes) }
    public func isSigned(by publicKey: [UInt8]) -> Bool { SigningKey.isValidSignature(signature, for: signedBytes, publicKey: publicKey) }

    public var encoded: [UInt8] { body + signature }
    /// What the next version names as its previous one, and what members keep and compare.
    public var hash: [UInt8] { Hash.sha256(encoded) }

    public init(decoding bytes: [UInt8]) throws {
        var r = BinaryReader(bytes, failure: SharingError.malformed("member list"))
        let format = try r.byte()
        guard format == Self.formatVersion else {
            throw format > Self.formatVersion ? SharingError.newerFormat(Int(format)) : SharingError.malformed("member list")
        }
        self.format = format
        orgID = try r.string()
        kind = try r.value(OrganisationKind.self)
        name = try r.string()
        version = try r.u64()
        previous = Array(try r.take(32))
        epoch = try r.u32()
        // Counts are held to the limits and to what the bytes left could hold, before anything is allocated.
        let n = try r.u32()
        guard n <= Self.memberLimit, n * 70 <= r.remaining else { throw r.failure }
        members = try (0..<n).map { _ in
            let id = try r.string(), email = try r.string(), role = try r.value(MemberRole.self), state = try r.value(MemberState.self)
            let sign = Array(try r.take(32)), box = Array(try r.take(32))
            return ListMember(accountID: id, email: email, role: role, state: state, keys: IdentityKeys(signPublicKey: sign, boxPublicKey: box))
        }
        let m = try r.u32()
        guard m <= Self.vaultEntryLimit, m * 5 <= r.remaining else { throw r.failure }
        vaults = try (0..<m).map { _ in VaultAccess(vaultID: try r.string(), accountID: try r.string(), access: try r.value(VaultAccessLevel.self)) }
        let g = try r.u32()
        guard g <= Self.groupLimit, g * 8 <= r.remaining else { throw r.failure }
        groups = try (0..<g).map { _ in
            let id = try r.string(), name = try r.string(), k = try r.u32()
            guard k <= Self.memberLimit, k * 2 <= r.remaining else { throw r.failure }
            // Kept as read (not re-sorted): a version that is not canonical must fail the step check, not be mended.
            var group = ListGroup(id: id, name: name, members: [])
            group.members = try (0..<k).map { _ in try r.string() }
            return group
        }
        signer = try r.string()
        signature = Array(try r.take(64))
        guard r.isAtEnd, version >= 1 else { throw r.failure }
    }
}
