import Foundation
import PassboxCrypto

/// What a device keeps of a list it verified: the head's version and hash.
public struct ListHead: Sendable, Equatable, Codable {
    public var version: Int64
    public var hash: [UInt8]
    public init(version: Int64, hash: [UInt8]) {
        self.version = version
        self.hash = hash
    }
}

/// The rules of the member list chain (security.md §6). The server applies `checkStep` before it stores a
/// version (so a honest server keeps no garbage); clients apply all of `verify` to what the server shows and
/// believe nothing the server says of membership otherwise.
public enum MemberListChain {
    /// The organisation's code, named in invitation links after `#org=`: base64url (no padding) of the first
    /// 20 bytes of SHA-256 over `"passbox/v1/organisation|"` and the first version's hash. The first version
    /// holds the org id, kind, name and the creator's keys, so the code names the organisation and its
    /// creator; a server cannot make another first version with the same code.
    public static func organisationCode(_ genesis: MemberListVersion) -> String {
        let digest = Hash.sha256(Array("passbox/v1/organisation|".utf8) + genesis.hash)
        return Data(digest.prefix(20)).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Checks that `next` may follow `previous` (nil: `next` is a first version) and answers `next`'s hash.
    /// `previousHash` is `previous.hash` when the caller has it already (a chain is encoded once per version:
    /// a version of a 1,000-member list is about 95 KiB).
    @discardableResult
    public static func checkStep(from previous: MemberListVersion?, previousHash: [UInt8]? = nil, to next: MemberListVersion) throws -> [UInt8] {
        func fail(_ problem: ListProblem) -> SharingError { .listInvalid(version: next.version, reason: problem) }
        let body = next.body
        func signed(by key: [UInt8]) -> Bool { SigningKey.isValidSignature(next.signature, for: Array("passbox/v1/member-list|".utf8) + body, publicKey: key) }
        let hash = Hash.sha256(body + next.signature)
        // Canonical: strictly ascending (so each once), every vault entry naming a member. Linear.
        let ids = next.members.map(\.accountID)
        guard zip(ids, ids.dropFirst()).allSatisfy({ $0 < $1 }), !ids.contains(where: ListGroup.isGroupID) else { throw fail(.duplicateMember) }
        guard next.epoch >= 1, next.epoch < Int(UInt32.max) else { throw fail(.epochTooLarge) }
        let members = Set(ids)
        let groupIDs = next.groups.map(\.id)
        guard zip(groupIDs, groupIDs.dropFirst()).allSatisfy({ $0 < $1 }), groupIDs.allSatisfy(ListGroup.isGroupID),
            next.groups.allSatisfy({ g in zip(g.members, g.members.dropFirst()).allSatisfy({ $0 < $1 }) && g.members.allSatisfy(members.contains) })
        else { throw fail(.duplicateMember) }
        let principals = members.union(groupIDs)
        guard zip(next.vaults, next.vaults.dropFirst()).allSatisfy({ ($0.vaultID, $0.accountID) < ($1.vaultID, $1.accountID) }),
            next.vaults.allSatisfy({ principals.contains($0.accountID) })
        else { throw fail(.duplicateMember) }
        guard next.members.contains(where: { $0.role == .owner && $0.state == .active }) else { throw fail(.noOwner) }
        guard let previous else {
            guard next.version == 1, next.previous == MemberListVersion.noPrevious else { throw fail(.notNextVersion) }
            guard let creator = next.member(next.signer), creator.role == .owner, next.members.count == 1 else { throw fail(.creatorNotOwner) }
            guard signed(by: creator.keys.signPublicKey) else { throw fail(.notSigned) }
            return hash
        }
        guard next.version == previous.version + 1 else { throw fail(.notNextVersion) }
        guard ConstantTime.equal(next.previous, previousHash ?? previous.hash) else { throw fail(.brokenLink) }
        guard next.orgID == previous.orgID, next.kind == previous.kind else { throw fail(.organisationChanged) }
        // The signer is judged by the version before: a list cannot make its own signer an admin.
        guard let signer = previous.member(next.signer), signer.role.managesMembers, signer.state == .active else { throw fail(.signerNotAllowed) }
        guard signed(by: signer.keys.signPublicKey) else { throw fail(.notSigned) }
        if signer.role == .admin {
            let ownersBefore = previous.members.filter { $0.role == .owner }, ownersAfter = next.members.filter { $0.role == .owner }
            guard ownersBefore == ownersAfter, next.name == previous.name else { throw fail(.adminChangedOwner) }
        }
        guard next.epoch >= previous.epoch else { throw fail(.epochWentBack) }
        // Whoever leaves, or whose keys change, held the vault keys of the old epoch: the keys rotate. (By
        // dictionary: a list of 1,000 members is checked in linear time.)
        if next.epoch == previous.epoch, losesAccess(from: previous, to: next) { throw fail(.epochNotRaised) }
        return hash
    }

    /// Whether someone who could read a vault under `previous` cannot, or only less, under `next`: a member
    /// left or changed keys, or a member's access (their own or through a group) went away or down. Such a
    /// version must raise the epoch.
    public static func losesAccess(from previous: MemberListVersion, to next: MemberListVersion) -> Bool {
        let keys = Dictionary(next.members.map { ($0.accountID, $0.keys) }, uniquingKeysWith: { a, _ in a })
        if previous.members.contains(where: { keys[$0.accountID] != $0.keys }) { return true }
        let after = next.effectiveAccess
        return previous.effectiveAccess.contains { key, level in after[key].map { $0 < level } ?? true }
    }

    /// Verifies `versions` (ascending, each the next of the one before) and returns the head.
    ///
    /// - `from`: the version this device verified before (its bytes, as kept), or nil to verify from version 1.
    ///   With it, the shown versions must continue it.
    /// - `seen`: the head this device saw last; a shown chain that does not hold it is a fork, a shorter one
    ///   went back.
    /// - `organisation`: the code an invitation named (checked against version 1 when `from` is nil).
    public static func verify(_ versions: [MemberListVersion], from: MemberListVersion? = nil, seen: ListHead? = nil, organisation: String? = nil) throws -> MemberListVersion {
        var previous = from
        // Each version is encoded once (its hash carried to the next step).
        let fromHash = from.map(\.hash)
        var previousHash = fromHash
        if from == nil, let organisation {
            guard let first = versions.first, first.version == 1, organisationCode(first) == organisation else { throw SharingError.notTheOrganisation }
        }
        for version in versions {
            // Versions this device has verified already: the one it kept must be the same, older ones are
            // skipped, and a chain that ends before it went back.
            if let from, let fromHash, version.version <= from.version {
                if version.version == from.version, !ConstantTime.equal(version.hash, fromHash) { throw SharingError.listForked(version: from.version) }
                if version.version < from.version, versions.last.map({ $0.version < from.version }) == true {
                    throw SharingError.listWentBack(seen: from.version, shown: versions.last!.version)
                }
                continue
            }
            let hash = try checkStep(from: previous, previousHash: previousHash, to: version)
            if let seen, version.version == seen.version, !ConstantTime.equal(hash, seen.hash) { throw SharingError.listForked(version: seen.version) }
            previous = version
            previousHash = hash
        }
        guard let head = previous, let headHash = previousHash else { throw SharingError.malformed("member list") }
        if let seen {
            if head.version < seen.version { throw SharingError.listWentBack(seen: seen.version, shown: head.version) }
            if head.version == seen.version, !ConstantTime.equal(headHash, seen.hash) { throw SharingError.listForked(version: seen.version) }
        }
        return head
    }
}
