import Foundation
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxManifest
import PassboxProtocol
import PassboxStore

/// Shared vaults of an organisation (issue 32): their keys reach members as grants (`VaultGrant`), sealed
/// to the keys the verified list holds (and never to keys that differ from this device's pin), signed by the
/// manager who gives them, and checked against the list before they are opened. Items of shared vaults do not
/// travel yet: what is shared is the vault itself (its name, who may use it, its key at each epoch).
extension SharingOperations {
    static func metaData(_ org: String, _ vault: String, _ epoch: Int) -> [UInt8] { Array("passbox/v1/shared-vault-meta|\(org)|\(vault)|\(epoch)".utf8) }

    static func sealName(_ name: String, key: SecretBytes, org: String, vault: String, epoch: Int) throws -> [UInt8] {
        let plain = Array(try JSONEncoder().encode(["name": name]))
        return try Envelope.seal(Padding.pad(plain, blockSize: 256), key: key, associatedData: metaData(org, vault, epoch))
    }

    static func openName(_ meta: [UInt8], key: SecretBytes, org: String, vault: String, epoch: Int) -> String? {
        guard let padded = try? Envelope.open(meta, key: key, associatedData: metaData(org, vault, epoch)), let plain = Padding.unpad(padded, blockSize: 256),
            let fields = try? JSONDecoder().decode([String: String].self, from: Data(plain))
        else { return nil }
        return fields["name"]
    }

    /// The keys of the vaults this account holds a grant for, each opened only after `VaultGrant.open`'s
    /// checks against the verified list; a grant that fails them is a `grantRefused` warning and no key.
    static func openedKeys(
        _ head: MemberListVersion, _ vaults: [SharedVaultRecord], record: AccountRecord, box: BoxKeyPair, dataDirectory: String
    ) -> [String: SecretBytes] {
        let current = Dictionary(vaults.map { ($0.vaultID, $0.epoch) }, uniquingKeysWith: { a, _ in a })
        var keys: [String: SecretBytes] = [:]
        for key in grantedKeys(head, vaults, own: record.accountID, box: box, record: record, dataDirectory: dataDirectory)
        where current[key.vaultID] == key.epoch {
            keys[key.vaultID] = SecretBytes(copying: key.key)
        }
        return keys
    }

    /// The keys a grant is sealed to: the verified list's for the member, refused when they differ from the
    /// keys this device pinned for that email (nothing is sealed to a key the user did not accept).
    static func sealingKeys(_ member: ListMember, record: AccountRecord, file: SharingFile) throws -> IdentityKeys {
        if let pin = file.contact(server: record.server, email: member.email) {
            let pinned = try KeyBundle(Array(pin.bundle), accountID: pin.accountID)
            guard pinned.keys == member.keys, pin.pending == nil else { throw ProtocolError(.contactKeyChanged, ["email": member.email]) }
        }
        return member.keys
    }

    /// Writes a vault's name and grants at the list's epoch for every member the list gives access (or only
    /// `only` of them), sealed with `key`.
    static func putVault(
        _ vaultID: String, name: String, key: SecretBytes, list: MemberListVersion, only: Set<String>? = nil, record: AccountRecord, keyset: AccountKeyset,
        client: AccountClient, dataDirectory: String
    ) throws {
        try requireTrusted(list.orgID, record: record, dataDirectory: dataDirectory)
        let file = try SharingFile.load(dataDirectory)
        var grants: [Data] = []
        for (member, access) in list.members(of: vaultID) where member.state == .active && (only?.contains(member.accountID) ?? true) {
            // A member whose keys are not the ones pinned here gets no key (they show as waiting for one): the
            // others' keys are still renewed.
            guard let keys = member.accountID == record.accountID ? member.keys : try? sealingKeys(member, record: record, file: file) else { continue }
            let grant = try VaultGrant.make(
                key: key, orgID: list.orgID, vaultID: vaultID, epoch: list.epoch, recipient: keys, access: access, granter: record.accountID, signingKey: keyset.signingKey)
            grants.append(Data(grant.encoded))
        }
        let meta = try sealName(name, key: key, org: list.orgID, vault: vaultID, epoch: list.epoch)
        // In requests of at most 500 grants (a request body is at most 1 MiB); each names the same epoch and name.
        var batches = stride(from: 0, to: grants.count, by: 500).map { Array(grants[$0..<min($0 + 500, grants.count)]) }
        if batches.isEmpty { batches = [[]] }
        for batch in batches {
            try client.putVault(SharedVaultPutRequest(orgID: list.orgID, vaultID: vaultID, epoch: list.epoch, meta: Data(meta), grants: batch), token: record.token ?? "")
        }
    }

    static func views(_ head: MemberListVersion, _ vaults: [SharedVaultRecord], keys: [String: SecretBytes], record: AccountRecord) -> [SharedVaultView] {
        vaults.map { vault in
            let readers = head.members(of: vault.vaultID)
            let seen = readers.map { SharedVaultView.SeenBy(email: $0.0.email, access: $0.1.name) }
            let granted = Set(vault.granted ?? [])
            let waiting = vault.epoch == head.epoch ? readers.filter { $0.0.state == .active && !granted.contains($0.0.accountID) }.map(\.0.email) : []
            return SharedVaultView(
                vaultID: vault.vaultID, name: keys[vault.vaultID].flatMap { openName(Array(vault.meta), key: $0, org: head.orgID, vault: vault.vaultID, epoch: vault.epoch) },
                epoch: vault.epoch, access: head.access(vault: vault.vaultID, account: record.accountID)?.name, rotationPending: vault.epoch < head.epoch, seenBy: seen,
                waitingForKey: waiting)
        }
    }

    /// The organisation's shared vaults with their names (the master password opens this account's key to its grants).
    public static func sharedVaults(_ reference: String, password: SecretText, dataDirectory: String) throws -> [SharedVaultView] {
        try sharedVaults(reference, keys: Keys(password, dataDirectory: dataDirectory), dataDirectory: dataDirectory)
    }

    static func sharedVaults(_ reference: String, keys: Keys, dataDirectory: String) throws -> [SharedVaultView] {
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        let orgID = try resolve(reference, record: record, dataDirectory: dataDirectory)
        let keyset = try keys.keyset(record)
        let (head, reply) = try refreshed(orgID, record: record, client: client, dataDirectory: dataDirectory)
        let vaults = reply.vaults ?? []
        return views(head, vaults, keys: openedKeys(head, vaults, record: record, box: keyset.boxKeyPair, dataDirectory: dataDirectory), record: record)
    }

    /// The vault a user names in an organisation (its id, or its name among those this account can open).
    static func resolveVault(_ reference: String, _ views: [SharedVaultView]) throws -> SharedVaultView {
        if let byID = views.first(where: { $0.vaultID == reference }) { return byID }
        let named = views.filter { $0.name?.lowercased() == reference.lowercased() }
        guard named.count == 1 else { throw ProtocolError(.vaultNotFound, ["reference": reference]) }
        return named[0]
    }

    /// Makes a shared vault with a new random key: a list version gives this account manage access, then its
    /// name and grant are written (owners and admins; SHR-4).
    public static func createVault(_ reference: String, name: String, password: SecretText, dataDirectory: String) throws -> SharedVaultView {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= VaultInfo.nameLimit, !trimmed.contains(where: \.isNewline) else {
            throw ProtocolError(.vaultNameInvalid, ["reason": trimmed.isEmpty ? "empty" : "tooLong"])
        }
        let vaultID = Identifier.generateItemID()
        let keys = Keys(password, dataDirectory: dataDirectory)
        _ = try amend(reference, keys: keys, dataDirectory: dataDirectory) { next, _, record in
            next.set(vault: vaultID, account: record.accountID, .manage)
        }
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        let orgID = try resolve(reference, record: record, dataDirectory: dataDirectory)
        let keyset = try keys.keyset(record)
        let (head, _) = try refreshed(orgID, record: record, client: client, dataDirectory: dataDirectory)
        try putVault(vaultID, name: trimmed, key: .generate(count: 32), list: head, record: record, keyset: keyset, client: client, dataDirectory: dataDirectory)
        return try resolveVault(vaultID, try sharedVaults(orgID, keys: keys, dataDirectory: dataDirectory))
    }

    /// Gives `email` (a member) `access` to a shared vault, or (nil) takes it away. Taking access away, or
    /// lowering it, raises the epoch: every vault this account can renew gets a new key (SHR-15, SHR-16).
    /// `principal` is a member's email or a group's name after `@` (`@Sales`).
    public static func share(_ reference: String, vault: String, email principal: String, access: VaultAccessLevel?, password: SecretText, dataDirectory: String) throws -> SharedVaultView {
        let keys = Keys(password, dataDirectory: dataDirectory)
        let shared = try resolveVault(vault, try sharedVaults(reference, keys: keys, dataDirectory: dataDirectory))
        guard shared.name != nil else { throw ProtocolError(.sharingRefused, ["problem": "grantRefused", "detail": "noKey"]) }
        _ = try amend(reference, keys: keys, dataDirectory: dataDirectory) { next, head, record in
            let id = try principalID(principal, in: head)
            // Refused before anything is signed when someone it reaches has keys other than the ones pinned here.
            if access != nil {
                let file = try SharingFile.load(dataDirectory)
                let reached = ListGroup.isGroupID(id) ? (head.group(id)?.members ?? []) : [id]
                for account in reached where account != record.accountID {
                    if let member = head.member(account) { _ = try sealingKeys(member, record: record, file: file) }
                }
            }
            next.set(vault: shared.vaultID, account: id, access)
        }
        // A lowered or taken access raised the epoch (amend): the vaults this account manages have new keys;
        // otherwise whoever just got access gets a key now.
        try renewKeys(reference, keys: keys, dataDirectory: dataDirectory)
        return try resolveVault(shared.vaultID, try sharedVaults(reference, keys: keys, dataDirectory: dataDirectory))
    }

    /// A member (by email) or a group (`@NAME`, by name in any case or by id) of the list.
    static func principalID(_ principal: String, in head: MemberListVersion) throws -> String {
        if principal.hasPrefix("@") {
            let name = String(principal.dropFirst()).lowercased()
            guard let group = head.groups.first(where: { $0.id == principal || $0.name.lowercased() == name }) else {
                throw ProtocolError(.memberNotFound, ["email": principal, "org": head.name])
            }
            return group.id
        }
        let normalized = SignInTranscript.normalizedEmail(principal)
        guard let member = head.members.first(where: { $0.email == normalized }) else { throw ProtocolError(.memberNotFound, ["email": normalized, "org": head.name]) }
        return member.accountID
    }

    /// Groups (SHR-22): make one, add or remove a member, or delete it. Taking someone out of a group that
    /// gave them vault access raises the epoch like any lost access.
    public enum GroupChange: Sendable {
        case create(String)
        case add(String)
        case remove(String)
        case delete
    }

    public static func changeGroup(_ reference: String, group: String?, _ change: GroupChange, password: SecretText, dataDirectory: String) throws -> OrgView {
        let keys = Keys(password, dataDirectory: dataDirectory)
        return try amend(reference, keys: keys, dataDirectory: dataDirectory) { next, head, _ in
            if case .create(let name) = change {
                let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
                guard !trimmed.isEmpty, trimmed.count <= 100, !trimmed.contains(where: \.isNewline) else { throw ProtocolError(.invalidValue, ["label": "name", "reason": "orgName"]) }
                guard !head.groups.contains(where: { $0.name.lowercased() == trimmed.lowercased() }) else {
                    throw ProtocolError(.invalidValue, ["label": "name", "reason": "groupExists"])
                }
                let id = "@" + SecureRandom.bytes(count: 8).map { String(format: "%02x", $0) }.joined()
                next.set(group: id, ListGroup(id: id, name: trimmed, members: []))
                return
            }
            guard var found = head.groups.first(where: { "@" + $0.name.lowercased() == (group ?? "").lowercased() || $0.id == group || $0.name.lowercased() == (group ?? "").lowercased() }) else {
                throw ProtocolError(.memberNotFound, ["email": group ?? "", "org": head.name])
            }
            switch change {
            case .create: break
            case .add(let email), .remove(let email):
                let id = try principalID(email, in: head)
                if case .add = change { found.members = Array(Set(found.members + [id])).sorted() } else { found.members.removeAll { $0 == id } }
                next.set(group: found.id, found)
            case .delete:
                next.set(group: found.id, nil)
            }
        }
    }

    /// Renew Key Now (SHR-16): every vault this account may manage and holds the key of gets a new key at the
    /// list's epoch when its own is older, and grants for whoever the list gives access and holds none yet.
    /// Answers how many vaults got a new key.
    @discardableResult
    public static func renewKeys(_ reference: String, password: SecretText, dataDirectory: String) throws -> Int {
        try renewKeys(reference, keys: Keys(password, dataDirectory: dataDirectory), dataDirectory: dataDirectory)
    }

    @discardableResult
    static func renewKeys(_ reference: String, keys: Keys, dataDirectory: String) throws -> Int {
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        let orgID = try resolve(reference, record: record, dataDirectory: dataDirectory)
        let keyset = try keys.keyset(record)
        let (head, reply) = try refreshed(orgID, record: record, client: client, dataDirectory: dataDirectory)
        let vaults = reply.vaults ?? []
        let keys = openedKeys(head, vaults, record: record, box: keyset.boxKeyPair, dataDirectory: dataDirectory)
        guard let me = head.member(record.accountID), me.state == .active else { throw ProtocolError(.notAMember, ["org": head.name]) }
        var rotated = 0
        for vault in vaults {
            guard me.role.managesMembers || head.access(vault: vault.vaultID, account: record.accountID) == .manage, let key = keys[vault.vaultID],
                let name = openName(Array(vault.meta), key: key, org: orgID, vault: vault.vaultID, epoch: vault.epoch)
            else { continue }
            if vault.epoch < head.epoch {
                // A new key: those who lost access never see it. (Items, when they travel, are re-encrypted in the background.)
                try putVault(vault.vaultID, name: name, key: .generate(count: 32), list: head, record: record, keyset: keyset, client: client, dataDirectory: dataDirectory)
                rotated += 1
            } else {
                let granted = Set(vault.granted ?? [])
                let missing = Set(head.members(of: vault.vaultID).filter { $0.0.state == .active && !granted.contains($0.0.accountID) }.map(\.0.accountID))
                if !missing.isEmpty {
                    try putVault(vault.vaultID, name: name, key: key, list: head, only: missing, record: record, keyset: keyset, client: client, dataDirectory: dataDirectory)
                }
            }
        }
        return rotated
    }
}

/// The keys of every epoch, for the shared vaults' sync.
extension SharingOperations {
    /// The keys of the vaults this account holds grants for, at every epoch, each opened only after
    /// `VaultGrant.open`'s checks against the verified list. A grant at a vault's current epoch that fails them
    /// is a `grantRefused` warning; an older one that fails (its granter left since, say) is passed over, and
    /// a key this device learnt before stays known to it.
    static func grantedKeys(_ head: MemberListVersion, _ vaults: [SharedVaultRecord], own: String, box: BoxKeyPair, record: AccountRecord, dataDirectory: String) -> [SharedVaultKey] {
        var keys: [SharedVaultKey] = []
        var warnings: [SharingFile.Warning] = []
        for vault in vaults {
            for bytes in vault.grants {
                guard let grant = try? VaultGrant(decoding: Array(bytes)) else {
                    warnings.append(warning("grantRefused", record, subject: head.name, detail: "vault \(vault.vaultID): \(SharingError.malformed("grant"))"))
                    continue
                }
                guard grant.vaultID == vault.vaultID, grant.epoch <= vault.epoch else { continue }
                do {
                    let key = try grant.open(list: head, vault: vault.vaultID, epoch: grant.epoch, own: own, box: box)
                    keys.append(SharedVaultKey(vaultID: vault.vaultID, epoch: grant.epoch, key: key.revealBytes()))
                } catch SharingError.grantRefused(.recipientPaused) {
                    continue
                } catch {
                    if grant.epoch == vault.epoch { warnings.append(warning("grantRefused", record, subject: head.name, detail: "vault \(vault.vaultID): \(error)")) }
                }
            }
        }
        if !warnings.isEmpty, var file = try? SharingFile.load(dataDirectory) {
            for w in warnings { file.warn(w) }
            try? file.save(dataDirectory)
        }
        return keys
    }
}
