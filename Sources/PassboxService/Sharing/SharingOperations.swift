import Foundation
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxManifest
import PassboxProtocol
import PassboxStore

/// Families and teams for the account of one data directory (security.md §6, docs/PROTOCOL.md "Sharing"):
/// the key directory with pins, security codes, organisations' member lists, invitations and confirmation.
/// Everything the server shows is verified here before it is believed or kept; what does not verify is
/// refused with `sharingRefused` and kept as a sharing warning. Writes (a new list version) need the master
/// password, which opens the account's signing key for the one operation.
public enum SharingOperations {
    // MARK: Identity and contacts

    static func ownBundle(_ record: AccountRecord) throws -> KeyBundle {
        do { return try KeyBundle(Array(record.keyset), accountID: record.accountID) } catch { throw refusal(error, email: record.email) }
    }

    /// This account's security code; with `checkServer`, whether the server's directory publishes the same keys.
    public static func ownCode(dataDirectory: String, checkServer: Bool) throws -> OwnCodeView {
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        let own = try ownBundle(record)
        var matches: Bool?
        if checkServer {
            let shown = try client.keys(email: record.email, token: record.token ?? "")
            matches = shown.accountID == record.accountID && (try? KeyBundle(Array(shown.bundle), accountID: shown.accountID))?.keys == own.keys
        }
        return OwnCodeView(email: record.email, securityCode: own.keys.securityCode.description, serverMatches: matches)
    }

    /// Looks `email` up in the server's directory and holds it to this device's pin: the first keys seen are
    /// pinned; other keys later are kept aside as `pending` with a `keyChanged` warning, the pin staying in
    /// force. `acceptNew` (after the user compared the new code) makes the pending keys the pin.
    public static func contact(_ email: String, acceptNew: Bool = false, markCompared: Bool = false, dataDirectory: String) throws -> ContactView {
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        let normalized = SignInTranscript.normalizedEmail(email)
        let shown = try client.keys(email: normalized, token: record.token ?? "")
        var file = try SharingFile.load(dataDirectory)
        let bundle: KeyBundle
        do {
            guard SignInTranscript.normalizedEmail(shown.email) == normalized else { throw SharingError.bundleInvalid }
            bundle = try KeyBundle(Array(shown.bundle), accountID: shown.accountID)
        } catch {
            file.warn(warning("bundleInvalid", record, subject: normalized, detail: "the directory's keys for \(normalized) are not signed by their own key"))
            try file.save(dataDirectory)
            throw refusal(error, email: normalized)
        }
        let now = Date()
        guard var pin = file.contact(server: record.server, email: normalized) else {
            let pin = SharingFile.Contact(
                server: record.server, email: normalized, accountID: bundle.accountID, bundle: Data(bundle.encoded), pinned: now, compared: markCompared)
            file.set(pin)
            try file.save(dataDirectory)
            return ContactView(email: normalized, accountID: bundle.accountID, securityCode: bundle.keys.securityCode.description, compared: markCompared, pinnedNow: true)
        }
        let pinned = try KeyBundle(Array(pin.bundle), accountID: pin.accountID)
        if pinned.keys == bundle.keys, pinned.accountID == bundle.accountID {
            if pin.pending != nil || markCompared {
                pin.pending = nil
                pin.pendingAccountID = nil
                pin.compared = pin.compared || markCompared
                file.set(pin)
                try file.save(dataDirectory)
            }
            return ContactView(email: normalized, accountID: pinned.accountID, securityCode: pinned.keys.securityCode.description, compared: pin.compared, pinnedNow: false)
        }
        // Accepting takes the keys the user compared: the pending ones. Other keys shown now become the
        // pending ones instead (the server cannot swap keys between the comparison and the acceptance).
        if acceptNew, let pending = pin.pending, pending == Data(bundle.encoded), pin.pendingAccountID == bundle.accountID {
            pin = SharingFile.Contact(server: record.server, email: normalized, accountID: bundle.accountID, bundle: Data(bundle.encoded), pinned: now, compared: true)
            file.set(pin)
            file.warnings.removeAll { $0.kind == "keyChanged" && $0.server == record.server && $0.subject == normalized }
            try file.save(dataDirectory)
            return ContactView(email: normalized, accountID: bundle.accountID, securityCode: bundle.keys.securityCode.description, compared: true, pinnedNow: true)
        }
        pin.pending = Data(bundle.encoded)
        pin.pendingAccountID = bundle.accountID
        file.set(pin)
        file.warn(warning("keyChanged", record, subject: normalized, detail: "pinned \(pinned.keys.securityCode) · shown now \(bundle.keys.securityCode)"))
        try file.save(dataDirectory)
        return ContactView(
            email: normalized, accountID: pinned.accountID, securityCode: pinned.keys.securityCode.description, compared: pin.compared,
            newSecurityCode: bundle.keys.securityCode.description, pinnedNow: false)
    }

    /// The pinned keys of a contact for sealing or confirming: looked up (pinned at first sight), and refused
    /// with `contactKeyChanged` while the directory shows other keys than the pin.
    static func pinnedKeys(_ email: String, dataDirectory: String) throws -> (accountID: String, keys: IdentityKeys) {
        let view = try contact(email, dataDirectory: dataDirectory)
        guard view.newSecurityCode == nil else { throw ProtocolError(.contactKeyChanged, ["email": view.email]) }
        let (record, _) = try AccountOperations.signedIn(dataDirectory)
        guard let pin = try SharingFile.load(dataDirectory).contact(server: record.server, email: view.email) else { throw ProtocolError(.contactNotFound, ["email": email]) }
        return (pin.accountID, try KeyBundle(Array(pin.bundle), accountID: pin.accountID).keys)
    }

    public static func warnings(dataDirectory: String) throws -> [SharingWarningView] {
        let record = try AccountRecord.load(dataDirectory)
        return try SharingFile.load(dataDirectory).warnings.filter { record == nil || $0.server == record?.server }.map {
            SharingWarningView(kind: $0.kind, subject: $0.subject, detail: $0.detail, seen: $0.seen)
        }
    }

    static func warning(_ kind: String, _ record: AccountRecord, subject: String, detail: String) -> SharingFile.Warning {
        SharingFile.Warning(kind: kind, server: record.server, subject: subject, detail: detail, seen: Date())
    }

    /// A refusal as the error surfaces word: `sharingRefused` with the problem and its detail.
    static func refusal(_ error: Error, email: String? = nil) -> ProtocolError {
        var facts: [String: String] = [:]
        if let email { facts["email"] = email }
        switch error as? SharingError {
        case .bundleInvalid: facts["problem"] = "bundleInvalid"
        case .newerFormat(let v):
            facts["problem"] = "newerFormat"
            facts["version"] = String(v)
        case .malformed(let what):
            facts["problem"] = "malformed"
            facts["detail"] = what
        case .listInvalid(let version, let reason):
            facts["problem"] = "listInvalid"
            facts["version"] = String(version)
            facts["detail"] = reason.rawValue
        case .listForked(let version):
            facts["problem"] = "listForked"
            facts["version"] = String(version)
        case .listWentBack(let seen, let shown):
            facts["problem"] = "listWentBack"
            facts["version"] = String(shown)
            facts["detail"] = String(seen)
        case .notTheOrganisation: facts["problem"] = "notTheOrganisation"
        case .grantRefused(let problem):
            facts["problem"] = "grantRefused"
            facts["detail"] = problem.rawValue
        case nil:
            if let protocolError = error as? ProtocolError { return protocolError }
            facts["problem"] = "malformed"
            facts["detail"] = String(describing: type(of: error))
        }
        return ProtocolError(.sharingRefused, facts)
    }

    // MARK: Organisations

    /// The verified member list of `orgID`: the versions after the kept head, verified from it (or from
    /// version 1 when this device keeps none), the new head kept. A list that does not verify is refused,
    /// kept as a warning, and the kept head stays as it was.
    static func refreshed(_ orgID: String, record: AccountRecord, client: AccountClient, dataDirectory: String) throws -> (head: MemberListVersion, reply: OrgFetchReply) {
        var file = try SharingFile.load(dataDirectory)
        let kept = try file.list(server: record.server, orgID: orgID).map { try MemberListVersion(decoding: Array($0)) }
        var since = kept?.version ?? 0
        var versions: [MemberListVersion] = []
        var last: OrgFetchReply
        do {
            var pages = 0, bytes = 0
            repeat {
                last = try client.fetchList(orgID: orgID, since: since, token: record.token ?? "")
                let page = try last.versions.map { try MemberListVersion(decoding: Array($0)) }
                // Each page must continue where the last one ended (a server that repeats or skips is refused),
                // and a list is read in at most 1,000 pages.
                if let first = page.first, first.version > since + 1 || (kept == nil && first.version != since + 1) {
                    throw SharingError.listInvalid(version: first.version, reason: .notNextVersion)
                }
                // Versions at or below the kept one stay in: `verify` tells a fork or a step back from them.
                versions += page
                bytes += last.versions.reduce(0) { $0 + $1.count }
                since = page.last.map { max($0.version, since) } ?? since
                pages += 1
                guard pages <= 1_000, bytes <= 512 << 20 else { throw SharingError.malformed("a member list of more than 1,000 pages or 512 MiB") }
            } while last.more && !last.versions.isEmpty
            let head = try MemberListChain.verify(versions, from: kept, seen: kept.map { ListHead(version: $0.version, hash: $0.hash) })
            guard head.orgID == orgID else { throw SharingError.notTheOrganisation }
            var code = file.lists.first { $0.server == record.server && $0.orgID == orgID }?.code
            if kept == nil, let first = versions.first { code = MemberListChain.organisationCode(first) }
            // This account's own entry must hold its own keys (else the server shows a list where someone else is "me").
            if let me = head.member(record.accountID), me.keys != (try ownBundle(record)).keys {
                throw SharingError.listInvalid(version: head.version, reason: .ownKeysDiffer)
            }
            file.keep(server: record.server, orgID: orgID, head: Data(head.encoded), code: code, trusted: kept == nil ? false : nil)
            // Members whose keys in the list differ from the keys this device pinned for them.
            for member in head.members where member.accountID != record.accountID {
                if let pin = file.contact(server: record.server, email: member.email), let pinned = try? KeyBundle(Array(pin.bundle), accountID: pin.accountID),
                    pinned.keys != member.keys
                {
                    file.warn(warning("keysDiffer", record, subject: member.email, detail: "\(head.name): the list holds \(member.keys.securityCode); pinned \(pinned.keys.securityCode)"))
                }
            }
            try file.save(dataDirectory)
            return (head, last)
        } catch let error as SharingError {
            file.warn(warning(refusal(error).facts["problem"] ?? "listInvalid", record, subject: orgID, detail: String(describing: error)))
            try file.save(dataDirectory)
            throw refusal(error)
        }
    }

    /// The organisation a user names (its id, or its name in any case) among those this device keeps.
    /// One this device does not keep yet (another device made or joined it) is looked for among those the
    /// server lists, each verified from its first version and kept as first seen (untrusted).
    static func resolve(_ reference: String, record: AccountRecord, dataDirectory: String) throws -> String {
        func match() throws -> [String] {
            let mine = try SharingFile.load(dataDirectory).lists.filter { $0.server == record.server }
            if mine.contains(where: { $0.orgID == reference }) { return [reference] }
            return mine.filter { (try? MemberListVersion(decoding: Array($0.head)))?.name.lowercased() == reference.lowercased() }.map(\.orgID)
        }
        var found = try match()
        if found.isEmpty {
            let (_, client) = try AccountOperations.signedIn(dataDirectory)
            let kept = Set(try SharingFile.load(dataDirectory).lists.filter { $0.server == record.server }.map(\.orgID))
            for head in try client.orgs(token: record.token ?? "").orgs where SyncIdentifier.isValid(head.orgID) && !kept.contains(head.orgID) {
                _ = try? refreshed(head.orgID, record: record, client: client, dataDirectory: dataDirectory)
            }
            found = try match()
        }
        guard found.count == 1 else { throw ProtocolError(.organisationNotFound, ["name": reference]) }
        return found[0]
    }

    /// Every organisation the server says this account is in, each verified.
    public static func organisations(dataDirectory: String) throws -> [OrgView] {
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        let listed = try client.orgs(token: record.token ?? "").orgs.filter { SyncIdentifier.isValid($0.orgID) }
        var views = try listed.map { try view($0.orgID, record: record, client: client, dataDirectory: dataDirectory) }
        // Lists this device keeps that the server does not name: an accepted invitation not confirmed yet
        // ("waiting"), or a list that held this account ("removed", or the server withholds it).
        let known = Set(listed.map(\.orgID))
        for kept in try SharingFile.load(dataDirectory).lists where kept.server == record.server && !known.contains(kept.orgID) {
            guard let head = try? MemberListVersion(decoding: Array(kept.head)) else { continue }
            views.append(
                OrgView(
                    orgID: kept.orgID, kind: head.kind.name, name: head.name, version: head.version, epoch: head.epoch, role: nil, members: [], waiting: [], invitations: [],
                    code: kept.code, trusted: kept.trusted == true, status: head.member(record.accountID) == nil ? "waiting" : "removed"))
        }
        return views
    }

    public static func organisation(_ reference: String, dataDirectory: String) throws -> OrgView {
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        return try view(try resolve(reference, record: record, dataDirectory: dataDirectory), record: record, client: client, dataDirectory: dataDirectory)
    }

    static func view(_ orgID: String, record: AccountRecord, client: AccountClient, dataDirectory: String) throws -> OrgView {
        let (head, reply) = try refreshed(orgID, record: record, client: client, dataDirectory: dataDirectory)
        let file = try SharingFile.load(dataDirectory)
        let departed = Set(reply.departed ?? [])
        let members = head.members.map { member -> MemberView in
            var trust = "unknown"
            if member.accountID == record.accountID {
                trust = "self"
            } else if let pin = file.contact(server: record.server, email: member.email), let pinned = try? KeyBundle(Array(pin.bundle), accountID: pin.accountID) {
                trust = pinned.keys != member.keys ? "differs" : pin.compared ? "compared" : "pinned"
            }
            return MemberView(
                email: member.email, accountID: member.accountID, role: member.role.name, state: departed.contains(member.accountID) ? "left" : member.state.name,
                securityCode: member.keys.securityCode.description, trust: trust)
        }
        let waiting = reply.waiting.compactMap { w -> WaitingView? in
            guard let bundle = try? KeyBundle(Array(w.bundle), accountID: w.accountID) else { return nil }
            return WaitingView(email: w.email, role: w.role, accepted: w.accepted, securityCode: bundle.keys.securityCode.description)
        }
        return OrgView(
            orgID: orgID, kind: head.kind.name, name: head.name, version: head.version, epoch: head.epoch, role: head.member(record.accountID)?.role.name,
            members: members, waiting: waiting, invitations: reply.invitations.map { InvitationView(id: $0.id, email: $0.email, role: $0.role, expires: $0.expires) },
            code: file.lists.first { $0.server == record.server && $0.orgID == orgID }?.code,
            trusted: file.lists.first { $0.server == record.server && $0.orgID == orgID }?.trusted == true,
            groups: head.groups.map { g in GroupView(id: g.id, name: g.name, members: g.members.compactMap { head.member($0)?.email }) },
            status: head.member(record.accountID) == nil ? "removed" : "member")
    }

    /// The account's keyset for one command: opened with the master password the first time it is needed
    /// (one Argon2id derivation, one counted attempt), then reused by every step of the command.
    final class Keys {
        let password: SecretText
        let dataDirectory: String
        private var opened: AccountKeyset?
        init(_ password: SecretText, dataDirectory: String) {
            self.password = password
            self.dataDirectory = dataDirectory
        }
        func keyset(_ record: AccountRecord) throws -> AccountKeyset {
            if let opened { return opened }
            let keyset = try SharingOperations.keyset(password, record: record, dataDirectory: dataDirectory)
            opened = keyset
            return keyset
        }
    }

    /// Opens the account's keyset with the master password (counted as unlock attempts are).
    static func keyset(_ password: SecretText, record: AccountRecord, dataDirectory: String) throws -> AccountKeyset {
        let secretKey = try SecretKey(parsing: record.secretKey)
        return try AccountOperations.countingAttempts(dataDirectory, password: password) {
            let keys = try password.withUnsafeBytes { try AccountKeys.derive(password: $0, salt: Array(record.salt), parameters: record.parameters, secretKey: secretKey) }
            guard let keyset = try? AccountKeyset(opening: Array(record.keyset), accountID: record.accountID, unlockKey: keys.accountUnlockKey) else {
                throw ProtocolError(.wrongPassword)
            }
            return keyset
        }
    }

    /// Makes a family or team with this account as its owner; answers its view (with the code of its links).
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

    /// An invitation link for `email` with `role` (`https://SERVER/invite/TOKEN#org=CODE`).
    public static func invite(_ reference: String, email: String, role: MemberRole, mail: Bool = false, dataDirectory: String) throws -> (link: String, expires: Date, mailed: Bool?) {
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        let orgID = try resolve(reference, record: record, dataDirectory: dataDirectory)
        let (head, _) = try refreshed(orgID, record: record, client: client, dataDirectory: dataDirectory)
        try requireTrusted(orgID, record: record, dataDirectory: dataDirectory)
        guard let code = try SharingFile.load(dataDirectory).lists.first(where: { $0.server == record.server && $0.orgID == orgID })?.code else {
            throw ProtocolError(.sharingRefused, ["problem": "notTheOrganisation"])
        }
        guard head.member(record.accountID)?.role.managesMembers == true else { throw ProtocolError(.notAMember, ["org": head.name]) }
        let normalized = SignInTranscript.normalizedEmail(email)
        let reply = try client.invite(orgID: orgID, email: normalized, role: role.name, mail: mail, token: record.token ?? "")
        return (InvitationLink(server: record.server, token: reply.token, organisation: code).text, reply.expires, mail ? (reply.mailed ?? false) : nil)
    }

    public static func revoke(_ reference: String, invitation id: String, dataDirectory: String) throws {
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        let orgID = try resolve(reference, record: record, dataDirectory: dataDirectory)
        try client.revokeInvitation(orgID: orgID, id: id, token: record.token ?? "")
    }

    /// Reads an invitation link (or a mail holding one) and checks it against this account's server.
    static func link(_ text: String, record: AccountRecord) throws -> InvitationLink {
        let link: InvitationLink
        do { link = try InvitationLink(finding: text) } catch let problem as InvitationLink.Problem {
            throw ProtocolError(.invitationLinkInvalid, ["problem": problem.rawValue])
        }
        // A passbox://invite/TOKEN link names no server: it is for the account's own.
        guard link.server.isEmpty || SignInTranscript.normalizedOrigin(link.server) == record.server else {
            throw ProtocolError(.invitationLinkInvalid, ["problem": "otherServer", "server": link.server])
        }
        return link
    }

    /// What an invitation offers, checked: the list the server shows must verify and be the organisation the
    /// link's code names (else `sharingRefused` notTheOrganisation: a forged invitation).
    public static func preview(_ text: String, dataDirectory: String) throws -> InvitationPreview {
        try previewed(text, dataDirectory: dataDirectory).preview
    }

    static func previewed(_ text: String, dataDirectory: String) throws -> (preview: InvitationPreview, link: InvitationLink, head: MemberListVersion, code: String) {
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        let link = try link(text, record: record)
        let reply = try client.previewInvitation(token: link.token, token: record.token ?? "")
        let head: MemberListVersion
        do {
            let versions = try reply.versions.map { try MemberListVersion(decoding: Array($0)) }
            head = try MemberListChain.verify(versions, organisation: link.organisation)
            guard head.orgID == reply.orgID else { throw SharingError.notTheOrganisation }
            // A list this device keeps already (a second invitation): the shown one must continue it, never
            // take it back to an older version (and so bring back someone removed since).
            let file = try SharingFile.load(dataDirectory)
            if let kept = file.lists.first(where: { $0.server == record.server && $0.orgID == head.orgID }), let keptHead = try? MemberListVersion(decoding: Array(kept.head)) {
                if let code = kept.code, code != link.organisation { throw SharingError.notTheOrganisation }
                _ = try MemberListChain.verify(versions, from: keptHead, seen: ListHead(version: keptHead.version, hash: keptHead.hash))
            }
        } catch {
            var file = try SharingFile.load(dataDirectory)
            file.warn(warning(refusal(error).facts["problem"] ?? "listInvalid", record, subject: reply.orgID, detail: "invitation: \(error)"))
            try file.save(dataDirectory)
            throw refusal(error)
        }
        let preview = InvitationPreview(
            orgID: head.orgID, kind: head.kind.name, name: head.name, email: reply.email, role: reply.role, expires: reply.expires, members: head.members.count,
            owners: head.members.filter { $0.role == .owner }.map(\.email))
        return (preview, link, head, link.organisation)
    }

    /// Accepts a checked invitation: this account then waits for a manager to confirm it. The list is kept,
    /// so a later list that does not continue it is refused.
    public static func accept(_ text: String, dataDirectory: String) throws -> InvitationPreview {
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        let checked = try previewed(text, dataDirectory: dataDirectory)
        try client.acceptInvitation(token: checked.link.token, token: record.token ?? "")
        var file = try SharingFile.load(dataDirectory)
        file.keep(server: record.server, orgID: checked.head.orgID, head: Data(checked.head.encoded), code: checked.code, trusted: true)
        try file.save(dataDirectory)
        return checked.preview
    }
}
