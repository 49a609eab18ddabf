import Foundation
import PassboxCrypto
import PassboxCurl
import PassboxManifest
import PassboxServerAPI
import PassboxSQL

/// The sharing operations of the server (docs/PROTOCOL.md "Sharing"): the key directory, organisations'
/// member lists and their invitations. The server checks each new list version against the one before with
/// the same rules clients use (so an honest server keeps nothing a client would refuse) and keeps an index of
/// who is in each organisation's newest version to decide who may read it. Clients believe none of that:
/// they verify the whole chain themselves (security.md §6).
struct SharingService: Sendable {
    let pool: ConnectionPool
    /// Mails invitation links when the server was started with `--smtp` (off by default).
    var mailer: SMTPMail?
    /// The server's origin, for the links it mails.
    var origin: OriginHolder?
    var log: @Sendable (String) -> Void = { _ in }

    /// `POST /v1/keys`: the bundle of the account with this email.
    func keys(_ session: AccountService.Session, _ request: KeyLookupRequest) throws -> KeyLookupReply {
        let email = try AccountService.checkedEmail(request.email)
        return try pool.with { db in
            guard let row = try db.rows("SELECT id, keyset FROM accounts WHERE email = ?", [.text(email)]).first, let id = row[0].text,
                let keyset = row[1].blob, keyset.count >= KeyBundle.length
            else { throw ProtocolError(.contactNotFound, ["email": email]) }
            return KeyLookupReply(accountID: id, email: email, bundle: Data(keyset.prefix(KeyBundle.length)))
        }
    }

    /// Every change to one organisation first updates its row here: on PostgreSQL (read committed) that orders
    /// them, so an append, a departure and a vault's grants never interleave. (SQLite has one writer anyway.)
    static func lock(_ db: any SQLConnection, org: String) throws {
        try db.run("INSERT INTO org_locks (org_id, changes) VALUES (?, 1) ON CONFLICT (org_id) DO UPDATE SET changes = org_locks.changes + 1", [.text(org)])
    }

    static func checkedOrg(_ id: String) throws -> String {
        guard SyncIdentifier.isValid(id) else { throw ProtocolError(.badRequest, ["reason": "orgID must be 1 to 64 letters, digits, - or _"]) }
        return id
    }

    /// The caller's role in the newest version the server holds, or `notAMember`.
    static func role(_ db: any SQLConnection, org: String, account: String) throws -> MemberRole {
        guard let raw = try db.rows("SELECT role FROM org_members WHERE org_id = ? AND account_id = ?", [.text(org), .text(account)]).first?[0].integer,
            let role = MemberRole(rawValue: UInt8(clamping: raw))
        else { throw ProtocolError(.notAMember, ["org": org]) }
        return role
    }

    /// The newest list the server holds, when the caller is an active member of it (else `notAMember`).
    static func newest(_ db: any SQLConnection, org: String, account: String) throws -> MemberListVersion {
        guard let head = try db.rows("SELECT MAX(version) FROM org_lists WHERE org_id = ?", [.text(org)]).first?[0].integer,
            let list = try version(db, org: org, number: head), list.member(account)?.state == .active
        else { throw ProtocolError(.notAMember, ["org": org]) }
        return list
    }

    static func version(_ db: any SQLConnection, org: String, number: Int64) throws -> MemberListVersion? {
        guard let body = try db.rows("SELECT body FROM org_lists WHERE org_id = ? AND version = ?", [.text(org), .integer(number)]).first?[0].blob else { return nil }
        return try MemberListVersion(decoding: body)
    }

    /// `POST /v1/orgs/append`.
    func append(_ session: AccountService.Session, _ request: OrgAppendRequest) throws -> OrgAppendReply {
        let org = try Self.checkedOrg(request.orgID)
        guard request.version.count <= 8 << 20 else { throw ProtocolError(.badRequest, ["reason": "a member list version is at most 8 MiB"]) }
        let next: MemberListVersion
        do { next = try MemberListVersion(decoding: Array(request.version)) } catch { throw ProtocolError(.badRequest, ["reason": "the member list version does not decode"]) }
        guard next.orgID == org, next.signer == session.accountID else {
            throw ProtocolError(.badRequest, ["reason": "the version is of another organisation or signed by another account"])
        }
        return try pool.with { db in
            try db.transaction {
                try Self.lock(db, org: org)
                let head = try db.rows("SELECT MAX(version) FROM org_lists WHERE org_id = ?", [.text(org)]).first?[0].integer
                let previous: MemberListVersion?
                if let head {
                    guard try Self.role(db, org: org, account: session.accountID).managesMembers else { throw ProtocolError(.notAMember, ["org": org]) }
                    guard next.version == head + 1 else { throw ProtocolError(.syncConflict, ["vault": org]) }
                    previous = try Self.version(db, org: org, number: head)
                } else {
                    guard next.version == 1 else { throw ProtocolError(.syncConflict, ["vault": org]) }
                    // The creator's keys must be the ones the account published.
                    guard let keyset = try db.rows("SELECT keyset FROM accounts WHERE id = ?", [.text(session.accountID)]).first?[0].blob,
                        let bundle = try? KeyBundle(keyset, accountID: session.accountID), next.member(session.accountID)?.keys == bundle.keys
                    else { throw ProtocolError(.badRequest, ["reason": "the creator's keys are not the account's published keys"]) }
                    previous = nil
                }
                do { try MemberListChain.checkStep(from: previous, to: next) } catch let error as SharingError {
                    throw ProtocolError(.badRequest, ["reason": "the member list version does not follow the one before (\(error))"])
                }
                do {
                    try db.run(
                        "INSERT INTO org_lists (org_id, version, body, created) VALUES (?, ?, ?, ?)",
                        [.text(org), .integer(next.version), .blob(Array(request.version)), .integer(milliseconds(Date()))])
                } catch let error as SQLEngineError where error.isUniqueViolation {
                    throw ProtocolError(.syncConflict, ["vault": org])
                }
                try db.run("DELETE FROM org_members WHERE org_id = ?", [.text(org)])
                for member in next.members {
                    // Only accounts of this server are indexed; a list may name none other (they were looked up here).
                    try db.run(
                        "INSERT INTO org_members (org_id, account_id, role) SELECT ?, id, ? FROM accounts WHERE id = ?",
                        [.text(org), .integer(Int64(member.role.rawValue)), .text(member.accountID)])
                    // Confirmed: the invitation it accepted is done.
                    try db.run("DELETE FROM org_invitations WHERE org_id = ? AND accepted_by = ?", [.text(org), .text(member.accountID)])
                }
                // Who left and is still listed stays out of the index; who is no longer listed is no longer "departed".
                try db.run(
                    "DELETE FROM org_members WHERE org_id = ? AND account_id IN (SELECT account_id FROM org_departures WHERE org_id = ?)", [.text(org), .text(org)])
                let listed = Set(next.members.map(\.accountID))
                for row in try db.rows("SELECT account_id FROM org_departures WHERE org_id = ?", [.text(org)]) {
                    if let id = row[0].text, !listed.contains(id) {
                        try db.run("DELETE FROM org_departures WHERE org_id = ? AND account_id = ?", [.text(org), .text(id)])
                    }
                }
                // Grants of those no longer in the list go (they could not fetch them any more anyway).
                try db.run(
                    "DELETE FROM org_grants WHERE org_id = ? AND account_id NOT IN (SELECT account_id FROM org_members WHERE org_id = ?)", [.text(org), .text(org)])
                // Someone no longer in the list no longer lets its owners help them back in.
                try db.run(
                    "DELETE FROM org_recovery_optins WHERE org_id = ? AND account_id NOT IN (SELECT account_id FROM org_members WHERE org_id = ?)", [.text(org), .text(org)])
                return OrgAppendReply(version: next.version)
            }
        }
    }

    /// `POST /v1/orgs/fetch`.
    func fetch(_ session: AccountService.Session, _ request: OrgFetchRequest) throws -> OrgFetchReply {
        let org = try Self.checkedOrg(request.orgID)
        return try pool.with { db in
            let role = try Self.role(db, org: org, account: session.accountID)
            let (versions, more) = try Self.page(db, org: org, since: request.since)
            let now = milliseconds(Date())
            let waiting = !role.managesMembers ? [] : try db.rows(
                """
                SELECT i.accepted_by, i.email, i.role, a.keyset, i.accepted FROM org_invitations i JOIN accounts a ON a.id = i.accepted_by
                WHERE i.org_id = ? AND i.accepted_by IS NOT NULL ORDER BY i.accepted, i.id
                """, [.text(org)]
            ).compactMap { row -> WaitingMember? in
                guard let id = row[0].text, let email = row[1].text, let raw = row[2].integer, let r = MemberRole(rawValue: UInt8(clamping: raw)),
                    let keyset = row[3].blob, keyset.count >= KeyBundle.length
                else { return nil }
                return WaitingMember(accountID: id, email: email, role: r.name, bundle: Data(keyset.prefix(KeyBundle.length)), accepted: date(milliseconds: row[4].integer ?? 0))
            }
            let invitations =
                role.managesMembers
                ? try db.rows(
                    "SELECT id, email, role, expires FROM org_invitations WHERE org_id = ? AND accepted_by IS NULL AND expires > ? ORDER BY created, id", [.text(org), .integer(now)]
                ).compactMap { row -> OrgInvitation? in
                    guard let id = row[0].text, let email = row[1].text, let raw = row[2].integer, let r = MemberRole(rawValue: UInt8(clamping: raw)) else { return nil }
                    return OrgInvitation(id: id, email: email, role: r.name, expires: date(milliseconds: row[3].integer ?? 0))
                } : []
            let grants = try db.rows(
                "SELECT vault_id, body FROM org_grants WHERE org_id = ? AND account_id = ? ORDER BY vault_id, epoch", [.text(org), .text(session.accountID)])
            let holders = try db.rows(
                "SELECT g.vault_id, g.account_id FROM org_grants g JOIN org_vaults v ON v.org_id = g.org_id AND v.vault_id = g.vault_id AND v.epoch = g.epoch WHERE g.org_id = ?",
                [.text(org)])
            let vaults = try db.rows("SELECT vault_id, epoch, meta FROM org_vaults WHERE org_id = ? ORDER BY vault_id", [.text(org)]).compactMap { row -> SharedVaultRecord? in
                guard let id = row[0].text, let epoch = row[1].integer, let meta = row[2].blob else { return nil }
                let mine = grants.filter { $0[0].text == id }.compactMap { $0[1].blob.map { Data($0) } }
                let granted = holders.filter { $0[0].text == id }.compactMap { $0[1].text }.sorted()
                return SharedVaultRecord(vaultID: id, epoch: Int(epoch), meta: Data(meta), grants: mine, granted: granted)
            }
            let departed = try db.rows("SELECT account_id FROM org_departures WHERE org_id = ? ORDER BY account_id", [.text(org)]).compactMap { $0[0].text }
            var reply = OrgFetchReply(
                versions: versions, more: more, waiting: waiting, invitations: invitations, vaults: vaults, departed: departed)
            // Organisation recovery: the requests owners see, and whether the caller allows it.
            if role == .owner { reply.recoveries = try Self.recoveries(db, org: org) }
            reply.recoveryAllowed = try !db.rows("SELECT 1 FROM org_recovery_optins WHERE org_id = ? AND account_id = ?", [.text(org), .text(session.accountID)]).isEmpty
            return reply
        }
    }

    /// The versions after `since`: at most `OrgFetchRequest.pageLimit`, and no more once `pageBytes` are
    /// reached (at least one), so a page of a large organisation's list stays a few MiB.
    static func page(_ db: any SQLConnection, org: String, since: Int64) throws -> ([Data], Bool) {
        let rows = try db.rows(
            "SELECT body FROM org_lists WHERE org_id = ? AND version > ? ORDER BY version LIMIT ?",
            [.text(org), .integer(max(0, since)), .integer(Int64(OrgFetchRequest.pageLimit + 1))])
        var versions: [Data] = []
        var bytes = 0
        for row in rows.prefix(OrgFetchRequest.pageLimit) {
            guard let body = row[0].blob else { continue }
            if !versions.isEmpty, bytes + body.count > OrgFetchRequest.pageBytes { return (versions, true) }
            versions.append(Data(body))
            bytes += body.count
        }
        return (versions, rows.count > OrgFetchRequest.pageLimit)
    }

    /// `GET /v1/orgs`.
    func orgs(_ session: AccountService.Session) throws -> OrgsReply {
        try pool.with { db in
            let rows = try db.rows(
                """
                SELECT m.org_id, (SELECT MAX(version) FROM org_lists l WHERE l.org_id = m.org_id) FROM org_members m
                WHERE m.account_id = ? ORDER BY m.org_id
                """, [.text(session.accountID)])
            return OrgsReply(orgs: rows.compactMap { row in row[0].text.map { OrgHead(orgID: $0, version: row[1].integer ?? 0) } })
        }
    }

    /// `POST /v1/orgs/vaults/put`: checked against the newest list as clients will check it (the caller may
    /// manage the vault, the epoch is the list's, each grant is the caller's, signed, for a member with the
    /// access the list gives them); clients check every grant again before they open it.
    func putVault(_ session: AccountService.Session, _ request: SharedVaultPutRequest) throws {
        let org = try Self.checkedOrg(request.orgID)
        let vault = try SyncService.checkedID(request.vaultID, "vaultID")
        guard request.meta.count <= 64 << 10, request.grants.count <= MemberListVersion.memberLimit else {
            throw ProtocolError(.badRequest, ["reason": "a vault's name is at most 64 KiB and its grants one per member"])
        }
        try pool.with { db in
            try db.transaction {
                try Self.lock(db, org: org)
                _ = try Self.role(db, org: org, account: session.accountID)
                guard let head = try db.rows("SELECT MAX(version) FROM org_lists WHERE org_id = ?", [.text(org)]).first?[0].integer,
                    let list = try Self.version(db, org: org, number: head), let me = list.member(session.accountID), me.state == .active
                else { throw ProtocolError(.notAMember, ["org": org]) }
                guard me.role.managesMembers || list.access(vault: vault, account: session.accountID) == .manage else { throw ProtocolError(.notAMember, ["org": org]) }
                guard request.epoch == list.epoch else { throw ProtocolError(.syncConflict, ["vault": vault]) }
                var recipients: [String: [UInt8]] = [:]
                for bytes in request.grants {
                    guard let grant = try? VaultGrant(decoding: Array(bytes)), grant.orgID == org, grant.vaultID == vault, grant.epoch == list.epoch,
                        grant.granter == session.accountID, grant.verifies(signer: me.keys),
                        let recipient = list.members.first(where: { $0.keys.fingerprint == grant.recipient }), list.access(vault: vault, account: recipient.accountID) == grant.access
                    else { throw ProtocolError(.badRequest, ["reason": "a grant is not the caller's, for this vault and epoch, to a member with that access"]) }
                    recipients[recipient.accountID] = Array(bytes)
                }
                try db.run(
                    "INSERT INTO org_vaults (org_id, vault_id, epoch, meta) VALUES (?, ?, ?, ?) ON CONFLICT (org_id, vault_id) DO UPDATE SET epoch = excluded.epoch, meta = excluded.meta WHERE org_vaults.epoch <= excluded.epoch",
                    [.text(org), .text(vault), .integer(Int64(list.epoch)), .blob(Array(request.meta))])
                for (account, body) in recipients {
                    try db.run(
                        """
                        INSERT INTO org_grants (org_id, vault_id, epoch, account_id, body) SELECT ?, ?, ?, id, ? FROM accounts WHERE id = ?
                        ON CONFLICT (org_id, vault_id, epoch, account_id) DO UPDATE SET body = excluded.body
                        """, [.text(org), .text(vault), .integer(Int64(list.epoch)), .blob(body), .text(account)])
                }
            }
        }
    }

    /// `POST /v1/orgs/invite`: owners invite with any role, admins with any but owner.
    func invite(_ session: AccountService.Session, _ request: OrgInviteRequest) throws -> OrgInviteReply {
        let org = try Self.checkedOrg(request.orgID)
        let email = try AccountService.checkedEmail(request.email)
        guard let role = MemberRole(name: request.role) else { throw ProtocolError(.badRequest, ["reason": "role must be owner, admin, member or guest"]) }
        var reply: OrgInviteReply = try pool.with { db in
            try db.transaction {
                let mine = try Self.role(db, org: org, account: session.accountID)
                guard mine.managesMembers, role != .owner || mine == .owner else { throw ProtocolError(.notAMember, ["org": org]) }
                // Expired ones are dropped here (nobody can use or see them); the cap counts the open ones.
                try db.run("DELETE FROM org_invitations WHERE org_id = ? AND accepted_by IS NULL AND expires < ?", [.text(org), .integer(milliseconds(Date()))])
                let open = try db.rows("SELECT COUNT(*) FROM org_invitations WHERE org_id = ? AND accepted_by IS NULL", [.text(org)]).first?[0].integer ?? 0
                guard open < 1_000 else { throw ProtocolError(.badRequest, ["reason": "an organisation has at most 1,000 open invitations"]) }
                let token = AccountService.newToken(bytes: 24), id = AccountService.newToken(bytes: 9)
                let now = Date(), expires = now + OrgInviteReply.lifetime
                try db.run(
                    "INSERT INTO org_invitations (id, token_hash, org_id, email, role, invited_by, created, expires, accepted_by, accepted) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)",
                    [
                        .text(id), .blob(Hash.sha256(Array(token.utf8))), .text(org), .text(email), .integer(Int64(role.rawValue)), .text(session.accountID),
                        .integer(milliseconds(now)), .integer(milliseconds(expires)),
                    ])
                return OrgInviteReply(token: token, id: id, expires: date(milliseconds: milliseconds(expires)))
            }
        }
        guard request.mail == true else { return reply }
        reply.mailed = mail(reply, org: org, email: email, role: role)
        return reply
    }

    /// Mails an invitation's link (the organisation code the server computes from version 1, as the inviter's
    /// client does). A mail is a convenience, not a trusted channel: the inviter is told to send the link over
    /// one too. A failure is logged (without the address or the link) and answered as not mailed.
    func mail(_ reply: OrgInviteReply, org: String, email: String, role: MemberRole) -> Bool {
        guard let mailer, let origin = origin?.current, !origin.isEmpty else { return false }
        guard let genesis = try? pool.with({ db in try Self.version(db, org: org, number: 1) }) else { return false }
        let link = InvitationLink(server: origin, token: reply.token, organisation: MemberListChain.organisationCode(genesis)).text
        let kindEN = genesis.kind == .family ? "family" : "team", kindDE = genesis.kind == .family ? "die Familie" : "das Team"
        let until = ISO8601DateFormatter.string(from: reply.expires, timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withFullDate])
        let body = """
            You are invited to the \(kindEN) "\(genesis.name)" on Passbox, as \(role.name), until \(until).

            Paste this whole link into Passbox (in a terminal: passbox org accept):

                \(link)

            Before you join, Passbox checks that the \(kindEN) the server shows is the one this link names. Then
            compare security codes with the person who invited you. Passbox never asks for your master password or
            Secret Key by mail.

            ---

            Sie sind in \(kindDE) "\(genesis.name)" bei Passbox eingeladen, als \(role.name), bis \(until).

            Fügen Sie diesen ganzen Link in Passbox ein (im Terminal: passbox org accept):

                \(link)

            Vor dem Beitritt prüft Passbox, dass der Server zeigt, was dieser Link nennt. Vergleichen Sie dann die
            Sicherheitscodes mit der Person, die Sie eingeladen hat. Passbox fragt nie per Mail nach Ihrem
            Master-Passwort oder Ihrem Secret Key.
            """
        do {
            try mailer.send(to: email, subject: "Passbox: invitation to \(genesis.name) / Einladung", body: body)
            return true
        } catch let failure as SMTPMail.Failure {
            log("an invitation could not be mailed: \(failure.description.prefix(200))")
            return false
        } catch {
            return false
        }
    }

    /// `POST /v1/orgs/leave`.
    func leave(_ session: AccountService.Session, _ request: OrgLeaveRequest) throws {
        let org = try Self.checkedOrg(request.orgID)
        try pool.with { db in
            try db.transaction {
                try Self.lock(db, org: org)
                guard try Self.role(db, org: org, account: session.accountID) != .owner else { throw ProtocolError(.lastOwner, ["org": org]) }
                try db.run("DELETE FROM org_members WHERE org_id = ? AND account_id = ?", [.text(org), .text(session.accountID)])
                try db.run("DELETE FROM org_grants WHERE org_id = ? AND account_id = ?", [.text(org), .text(session.accountID)])
                try db.run("DELETE FROM org_recovery_optins WHERE org_id = ? AND account_id = ?", [.text(org), .text(session.accountID)])
                try db.run(
                    "INSERT INTO org_departures (org_id, account_id, left_at) VALUES (?, ?, ?) ON CONFLICT (org_id, account_id) DO NOTHING",
                    [.text(org), .text(session.accountID), .integer(milliseconds(Date()))])
            }
        }
    }

    /// `POST /v1/orgs/revoke`.
    func revoke(_ session: AccountService.Session, _ request: OrgRevokeRequest) throws {
        let org = try Self.checkedOrg(request.orgID)
        try pool.with { db in
            guard try Self.role(db, org: org, account: session.accountID).managesMembers else { throw ProtocolError(.notAMember, ["org": org]) }
            guard try db.run("DELETE FROM org_invitations WHERE org_id = ? AND id = ?", [.text(org), .text(request.id)]) == 1 else {
                throw ProtocolError(.invitationInvalid, ["reason": "unknown"])
            }
        }
    }

    /// The invitation of a token, if it can still be used by `email`.
    static func invitation(_ db: any SQLConnection, token: String, email: String) throws -> (org: String, role: MemberRole, expires: Int64, hash: [UInt8]) {
        guard !token.isEmpty, token.utf8.count <= 128 else { throw ProtocolError(.invitationInvalid, ["reason": "missing"]) }
        let hash = Hash.sha256(Array(token.utf8))
        guard let row = try db.rows("SELECT org_id, email, role, expires FROM org_invitations WHERE token_hash = ?", [.blob(hash)]).first,
            let org = row[0].text, let raw = row[2].integer, let role = MemberRole(rawValue: UInt8(clamping: raw))
        else { throw ProtocolError(.invitationInvalid, ["reason": "unknown"]) }
        if (row[3].integer ?? 0) < milliseconds(Date()) { throw ProtocolError(.invitationInvalid, ["reason": "expired"]) }
        if row[1].text != email { throw ProtocolError(.invitationInvalid, ["reason": "otherEmail"]) }
        return (org, role, row[3].integer ?? 0, hash)
    }

    static func email(_ db: any SQLConnection, account: String) throws -> String {
        guard let email = try db.rows("SELECT email FROM accounts WHERE id = ?", [.text(account)]).first?[0].text else { throw ProtocolError(.notSignedIn) }
        return email
    }

    /// `POST /v1/invitations/preview`: for the invited account only; the whole list, for the client to check.
    func preview(_ session: AccountService.Session, _ request: InvitationTokenRequest) throws -> InvitationPreviewReply {
        try pool.with { db in
            let email = try Self.email(db, account: session.accountID)
            let found = try Self.invitation(db, token: request.token, email: email)
            let (versions, more) = try Self.page(db, org: found.org, since: request.since ?? 0)
            return InvitationPreviewReply(orgID: found.org, email: email, role: found.role.name, expires: date(milliseconds: found.expires), versions: versions, more: more)
        }
    }

    /// `POST /v1/invitations/accept`: the account waits for a manager to confirm it.
    func accept(_ session: AccountService.Session, _ request: InvitationTokenRequest) throws {
        try pool.with { db in
            try db.transaction {
                let email = try Self.email(db, account: session.accountID)
                let found = try Self.invitation(db, token: request.token, email: email)
                try Self.lock(db, org: found.org)
                _ = try db.run(
                    "UPDATE org_invitations SET accepted_by = ?, accepted = ? WHERE token_hash = ? AND (accepted_by IS NULL OR accepted_by = ?)",
                    [.text(session.accountID), .integer(milliseconds(Date())), .blob(found.hash), .text(session.accountID)])
                // Someone who left and is invited again is no longer "departed".
                try db.run("DELETE FROM org_departures WHERE org_id = ? AND account_id = ?", [.text(found.org), .text(session.accountID)])
            }
        }
    }
}
