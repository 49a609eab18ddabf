import Foundation
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxManifest
import PassboxProtocol
import PassboxStore

/// Changes to an organisation: making it, trusting it, and every change a manager signs (confirm, remove,
/// roles, pausing), and leaving.
extension SharingOperations {
    /// The id of a family's own vault, made with it: every device knows it from the org id alone.
    static func familyVaultID(_ orgID: String) -> String { "family-" + orgID }

    /// A family starts with its shared vault (named `vaultName`, else the family's name), which every member
    /// confirmed later gets with edit access.
    public static func create(kind: OrganisationKind, name: String, vaultName: String? = nil, password: SecretText, dataDirectory: String) throws -> OrgView {
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 100, !trimmed.contains(where: { $0.isNewline }) else {
            throw ProtocolError(.invalidValue, ["label": "name", "reason": "orgName"])
        }
        let keyset = try keyset(password, record: record, dataDirectory: dataDirectory)
        let orgID = SecureRandom.bytes(count: 12).map { String(format: "%02x", $0) }.joined()
        let me = ListMember(
            accountID: record.accountID, email: record.email, role: .owner, keys: IdentityKeys(signPublicKey: keyset.signPublicKey, boxPublicKey: keyset.boxPublicKey))
        var genesis = MemberListVersion.genesis(orgID: orgID, kind: kind, name: trimmed, creator: me)
        let familyVault = kind == .family ? familyVaultID(orgID) : nil
        if let familyVault { genesis.set(vault: familyVault, account: record.accountID, .manage) }
        genesis.sign(with: keyset.signingKey)
        _ = try client.appendList(orgID: orgID, version: genesis.encoded, token: record.token ?? "")
        var file = try SharingFile.load(dataDirectory)
        file.keep(server: record.server, orgID: orgID, head: Data(genesis.encoded), code: MemberListChain.organisationCode(genesis), trusted: true)
        try file.save(dataDirectory)
        if let familyVault {
            let vaultTitle = (vaultName?.trimmingCharacters(in: .whitespacesAndNewlines)).flatMap { $0.isEmpty ? nil : String($0.prefix(VaultInfo.nameLimit)) } ?? trimmed
            try putVault(familyVault, name: vaultTitle, key: .generate(count: 32), list: genesis, record: record, keyset: keyset, client: client, dataDirectory: dataDirectory)
        }
        return try view(orgID, record: record, client: client, dataDirectory: dataDirectory)
    }

    /// Refuses to sign or seal anything on an organisation this device first saw through the server alone.
    static func requireTrusted(_ orgID: String, record: AccountRecord, dataDirectory: String) throws {
        let kept = try SharingFile.load(dataDirectory).lists.first { $0.server == record.server && $0.orgID == orgID }
        guard kept?.trusted == true else { throw ProtocolError(.sharingRefused, ["problem": "unverifiedOrganisation", "detail": orgID]) }
    }

    /// Trusts an organisation first seen through the server once the user compared its code with a device that
    /// knows it (`org show` there prints it). Another code is `notTheOrganisation`, and nothing changes.
    public static func trust(_ reference: String, code: String, dataDirectory: String) throws -> OrgView {
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        let orgID = try resolve(reference, record: record, dataDirectory: dataDirectory)
        _ = try refreshed(orgID, record: record, client: client, dataDirectory: dataDirectory)
        var file = try SharingFile.load(dataDirectory)
        guard let kept = file.lists.first(where: { $0.server == record.server && $0.orgID == orgID }), let known = kept.code,
            ConstantTime.equal(Array(known.utf8), Array(code.trimmingCharacters(in: .whitespaces).utf8))
        else { throw ProtocolError(.sharingRefused, ["problem": "notTheOrganisation"]) }
        file.keep(server: record.server, orgID: orgID, head: kept.head, code: known, trusted: true)
        try file.save(dataDirectory)
        return try view(orgID, record: record, client: client, dataDirectory: dataDirectory)
    }

    /// Signs and appends the next version made by `change` from the verified head; when another manager
    /// appended first, verifies theirs and makes the change again on top (at most three times).
    static func amend(
        _ reference: String, keys: Keys, dataDirectory: String, _ change: (inout MemberListVersion, MemberListVersion, AccountRecord) throws -> Void
    ) throws -> OrgView {
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        let orgID = try resolve(reference, record: record, dataDirectory: dataDirectory)
        try requireTrusted(orgID, record: record, dataDirectory: dataDirectory)
        let keyset = try keys.keyset(record)
        for attempt in 1...3 {
            let (head, _) = try refreshed(orgID, record: record, client: client, dataDirectory: dataDirectory)
            guard let me = head.member(record.accountID), me.role.managesMembers, me.state == .active else { throw ProtocolError(.notAMember, ["org": head.name]) }
            var next = head.next(signer: record.accountID)
            try change(&next, head, record)
            // Whoever can read less than before (removed, left, access lowered or taken, out of a group): a new epoch.
            if next.epoch == head.epoch, MemberListChain.losesAccess(from: head, to: next) { next.epoch = head.epoch + 1 }
            guard next.epoch < Int(UInt32.max) else { throw ProtocolError(.sharingRefused, ["problem": "listInvalid", "detail": "epochTooLarge", "version": String(next.version)]) }
            next.sign(with: keyset.signingKey)
            // Checked here as every client will check it: a change this account may not make is refused before it is sent.
            do { try MemberListChain.checkStep(from: head, to: next) } catch let error as SharingError {
                if case .listInvalid(_, let reason) = error, reason == .noOwner { throw ProtocolError(.lastOwner, ["org": head.name]) }
                throw ProtocolError(.notAMember, ["org": head.name, "reason": refusal(error).facts["detail"] ?? ""])
            }
            do {
                _ = try client.appendList(orgID: orgID, version: next.encoded, token: record.token ?? "")
            } catch let error as ProtocolError where error.code == .syncConflict && attempt < 3 {
                continue
            }
            var file = try SharingFile.load(dataDirectory)
            file.keep(server: record.server, orgID: orgID, head: Data(next.encoded), code: file.lists.first { $0.server == record.server && $0.orgID == orgID }?.code)
            try file.save(dataDirectory)
            // A new epoch: the vaults this account manages get new keys in the same command.
            if next.epoch > head.epoch { try renewKeys(orgID, keys: keys, dataDirectory: dataDirectory) }
            return try view(orgID, record: record, client: client, dataDirectory: dataDirectory)
        }
        throw ProtocolError(.syncConflict, ["vault": orgID])
    }

    /// Confirms someone who accepted an invitation: their keys as the directory shows them must be the keys
    /// this device pinned for their email (a changed key is `contactKeyChanged`), and the keys the waiting
    /// entry carries must be the same (else the server substituted them: `sharingRefused`). `compared` says the
    /// user compared the security codes; it marks the pin compared.
    /// The role is the confirming user's choice (`role`); without one, the invitation's role when it is member
    /// or guest, else member: the server's word never makes anyone an owner or admin.
    public static func confirm(_ reference: String, email: String, compared: Bool, role chosen: MemberRole? = nil, password: SecretText, dataDirectory: String) throws -> OrgView {
        let normalized = SignInTranscript.normalizedEmail(email)
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        let orgID = try resolve(reference, record: record, dataDirectory: dataDirectory)
        let (head, reply) = try refreshed(orgID, record: record, client: client, dataDirectory: dataDirectory)
        guard let waiting = reply.waiting.first(where: { SignInTranscript.normalizedEmail($0.email) == normalized }) else {
            throw ProtocolError(.memberNotFound, ["email": normalized, "org": head.name])
        }
        let pinned = try pinnedKeys(normalized, dataDirectory: dataDirectory)
        let shown: KeyBundle
        do { shown = try KeyBundle(Array(waiting.bundle), accountID: waiting.accountID) } catch { throw refusal(error, email: normalized) }
        guard shown.keys == pinned.keys, shown.accountID == pinned.accountID else {
            var file = try SharingFile.load(dataDirectory)
            file.warn(warning("keysDiffer", record, subject: normalized, detail: "\(head.name): waiting with \(shown.keys.securityCode); pinned \(pinned.keys.securityCode)"))
            try file.save(dataDirectory)
            throw ProtocolError(.sharingRefused, ["problem": "bundleInvalid", "email": normalized])
        }
        if compared { _ = try contact(normalized, markCompared: true, dataDirectory: dataDirectory) }
        let role = chosen ?? MemberRole(name: waiting.role).flatMap { $0.managesMembers ? nil : $0 } ?? .member
        let keys = Keys(password, dataDirectory: dataDirectory)
        _ = try amend(orgID, keys: keys, dataDirectory: dataDirectory) { next, head, _ in
            next.set(member: pinned.accountID, ListMember(accountID: pinned.accountID, email: normalized, role: role, keys: pinned.keys))
            // In a family, a member gets the family vault, to edit.
            if head.kind == .family, head.vaults.contains(where: { $0.vaultID == familyVaultID(orgID) }) {
                next.set(vault: familyVaultID(orgID), account: pinned.accountID, .edit)
            }
        }
        try renewKeys(orgID, keys: keys, dataDirectory: dataDirectory)
        return try view(orgID, record: record, client: client, dataDirectory: dataDirectory)
    }

    /// Removes a member: a new epoch (the vault keys rotate, security.md §6).
    public static func remove(_ reference: String, email: String, password: SecretText, dataDirectory: String) throws -> OrgView {
        let normalized = SignInTranscript.normalizedEmail(email)
        // The epoch rises and the keys of the vaults this account manages are renewed at once (amend); the
        // others show rotationPending.
        return try amend(reference, keys: Keys(password, dataDirectory: dataDirectory), dataDirectory: dataDirectory) { next, head, _ in
            guard let member = head.members.first(where: { $0.email == normalized }) else { throw ProtocolError(.memberNotFound, ["email": normalized, "org": head.name]) }
            next.set(member: member.accountID, nil)
        }
    }

    /// Changes a member's role, or pauses or resumes them (a paused member keeps their entry but may not manage).
    public static func change(_ reference: String, email: String, role: MemberRole?, state: MemberState?, password: SecretText, dataDirectory: String) throws -> OrgView {
        let normalized = SignInTranscript.normalizedEmail(email)
        return try amend(reference, keys: Keys(password, dataDirectory: dataDirectory), dataDirectory: dataDirectory) { next, head, _ in
            guard var member = head.members.first(where: { $0.email == normalized }) else { throw ProtocolError(.memberNotFound, ["email": normalized, "org": head.name]) }
            if let role { member.role = role }
            if let state { member.state = state }
            next.set(member: member.accountID, member)
        }
    }

    /// Leaves an organisation (owners cannot: they make someone else owner first). The server stops serving
    /// this account the list and its grants at once; the next version a manager signs removes it and raises
    /// the epoch. This device keeps the list it verified, shown as left.
    public static func leave(_ reference: String, dataDirectory: String) throws -> String {
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        let orgID = try resolve(reference, record: record, dataDirectory: dataDirectory)
        let (head, _) = try refreshed(orgID, record: record, client: client, dataDirectory: dataDirectory)
        guard head.member(record.accountID)?.role != .owner else { throw ProtocolError(.lastOwner, ["org": head.name]) }
        do { try client.leave(orgID: orgID, token: record.token ?? "") } catch let error as ProtocolError where error.code == .lastOwner {
            throw ProtocolError(.lastOwner, ["org": head.name])
        }
        return head.name
    }
}
