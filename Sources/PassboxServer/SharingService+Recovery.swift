import Foundation
import PassboxCrypto
import PassboxManifest
import PassboxServerAPI
import PassboxSQL

/// Organisation recovery (ACC-10, ACC-11; docs/PROTOCOL.md "Organisation recovery"): a member of a family who
/// allowed it, and lost both master password and Secret Key, makes new credentials on a new device; an owner
/// compares the new security code with them, signs a list version holding the new keys, and approves. Only
/// then does the server take the new credentials. The account's own vaults on the server are dropped (their
/// keys came from the lost keyset: nobody can open them any more, the owner neither); the family's vaults
/// reach the new keys through the grants the owner's version renews.
extension SharingService {
    static let recoveryLifetime: Int64 = 86_400_000

    /// `POST /v1/orgs/recovery/allow`: only a family's active members turn it on, for themselves; anyone turns
    /// their own off.
    func allowRecovery(_ session: AccountService.Session, _ request: OrgRecoveryAllowRequest) throws {
        let org = try Self.checkedOrg(request.orgID)
        try pool.with { db in
            if request.allow {
                let list = try Self.newest(db, org: org, account: session.accountID)
                guard list.kind == .family else { throw ProtocolError(.badRequest, ["reason": "organisation recovery is for families"]) }
            }
            if request.allow {
                try db.run(
                    "INSERT INTO org_recovery_optins (org_id, account_id, created) VALUES (?, ?, ?) ON CONFLICT (org_id, account_id) DO NOTHING",
                    [.text(org), .text(session.accountID), .integer(milliseconds(Date()))])
            } else {
                try db.run("DELETE FROM org_recovery_optins WHERE org_id = ? AND account_id = ?", [.text(org), .text(session.accountID)])
            }
            try AccountService.record(db, session.accountID, request.allow ? "familyRecoveryAllowed" : "familyRecoveryStopped", address: session.address, device: session.deviceName)
        }
    }

    /// `POST /v1/recovery/family/start`: every call counts against the recovery limits (per email and per
    /// address). An unknown email and an account that allows no family get an answer of the same shape (an
    /// account id derived from the server's secret, a token that leads nowhere): the reply tells nobody whether
    /// the email has an account or allows recovery.
    func startRecovery(_ request: FamilyRecoveryStartRequest, address: String) throws -> FamilyRecoveryStartReply {
        let email = try AccountService.checkedEmail(request.email)
        return try pool.with { db in
            try RateLimiter.check(db, .recovery, email: email, address: address)
            try db.transaction { _ = try RateLimiter.recordFailure(db, .recovery, email: email, address: address) }
            let secret = try AccountService.serverSecret(db)
            let derived = HMAC.authenticationCode(.sha256, key: secret, message: Array("passbox/v1/family-recovery-id|\(email)".utf8))
            let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
            let fake = String(decoding: derived.prefix(6).map { alphabet[Int($0 % 32)] }, as: UTF8.self)
            let token = AccountService.newToken(bytes: 24)
            let account = try db.rows(
                "SELECT a.id FROM accounts a WHERE a.email = ? AND EXISTS (SELECT 1 FROM org_recovery_optins o WHERE o.account_id = a.id)", [.text(email)]
            ).first?[0].text
            guard let account else { return FamilyRecoveryStartReply(accountID: fake, token: token) }
            let now = milliseconds(Date())
            try db.transaction {
                try db.run(
                    """
                    INSERT INTO org_recovery_requests (account_id, token_hash, credentials, created, expires) VALUES (?, ?, NULL, ?, ?)
                    ON CONFLICT (account_id) DO UPDATE SET token_hash = excluded.token_hash, credentials = NULL, created = excluded.created, expires = excluded.expires
                    """, [.text(account), .blob(Hash.sha256(Array(token.utf8))), .integer(now), .integer(now + Self.recoveryLifetime)])
                try AccountService.record(db, account, "familyRecoveryStarted", address: address, device: "")
            }
            return FamilyRecoveryStartReply(accountID: account, token: token)
        }
    }

    /// `POST /v1/recovery/family/keys`: the new credentials, kept with the request until an owner approves.
    /// The new credentials must be signed by the new keyset's own signing key (so they cannot be paired with
    /// anyone else's keys); they are kept without the token or the email.
    func recoveryKeys(_ request: FamilyRecoveryKeysRequest, address: String) throws {
        let email = try AccountService.checkedEmail(request.email)
        try AccountService.checkCredentials(salt: request.salt, signInPublicKey: request.signInPublicKey, keyset: request.keyset, kdf: request.kdf)
        guard request.keyset.count >= KeyBundle.length, request.token.utf8.count <= 128 else { throw ProtocolError(.badRequest, ["reason": "keyset or token"]) }
        try pool.with { db in
            try RateLimiter.check(db, .recovery, email: email, address: address)
            guard let account = try db.rows(
                "SELECT r.account_id FROM org_recovery_requests r JOIN accounts a ON a.id = r.account_id WHERE a.email = ? AND r.token_hash = ? AND r.expires > ?",
                [.text(email), .blob(Hash.sha256(Array(request.token.utf8))), .integer(milliseconds(Date()))]
            ).first?[0].text,
                let bundle = try? KeyBundle(Array(request.keyset.prefix(KeyBundle.length)), accountID: account),
                SigningKey.isValidSignature(
                    Array(request.signature),
                    for: FamilyRecoveryKeysRequest.transcript(accountID: account, signInPublicKey: request.signInPublicKey, salt: request.salt, kdf: request.kdf, keyset: request.keyset),
                    publicKey: bundle.keys.signPublicKey)
            else {
                try db.transaction { _ = try RateLimiter.recordFailure(db, .recovery, email: email, address: address) }
                throw ProtocolError(.signInFailed)
            }
            var kept = request
            (kept.token, kept.email) = ("", "")
            try db.run("UPDATE org_recovery_requests SET credentials = ? WHERE account_id = ?", [.blob(Array(try ProtocolCoding.wireEncode(kept))), .text(account)])
        }
    }

    /// The requests an owner of `org` sees: members who allowed this family and sent new keys.
    static func recoveries(_ db: any SQLConnection, org: String) throws -> [FamilyRecoveryRequestView] {
        try db.rows(
            """
            SELECT r.account_id, a.email, r.credentials, r.created FROM org_recovery_requests r
            JOIN org_recovery_optins o ON o.account_id = r.account_id AND o.org_id = ? JOIN accounts a ON a.id = r.account_id
            JOIN org_members m ON m.org_id = o.org_id AND m.account_id = r.account_id
            WHERE r.credentials IS NOT NULL AND r.expires > ? ORDER BY r.created
            """, [.text(org), .integer(milliseconds(Date()))]
        ).compactMap { row -> FamilyRecoveryRequestView? in
            guard let id = row[0].text, let email = row[1].text, let body = row[2].blob,
                let keys = try? ProtocolCoding.wireDecode(FamilyRecoveryKeysRequest.self, from: Data(body))
            else { return nil }
            return FamilyRecoveryRequestView(accountID: id, email: email, bundle: Data(keys.keyset.prefix(KeyBundle.length)), created: date(milliseconds: row[3].integer ?? 0))
        }
    }

    /// `POST /v1/orgs/recovery/approve`: an active owner of the newest list, for a member who allowed this
    /// family, once that list holds the member's new keys. The new credentials take effect, every session
    /// ends, two-factor sign-in and the recovery code go (they were the lost keyset's), and the account's own
    /// vaults on the server are dropped.
    func approveRecovery(_ session: AccountService.Session, _ request: OrgRecoveryApproveRequest) throws {
        let org = try Self.checkedOrg(request.orgID)
        let account = try SyncService.checkedID(request.accountID, "accountID")
        try pool.with { db in
            try db.transaction {
                try Self.lock(db, org: org)
                let list = try Self.newest(db, org: org, account: session.accountID)
                guard list.member(session.accountID)?.role == .owner, list.kind == .family else { throw ProtocolError(.notAMember, ["org": org]) }
                guard try !db.rows("SELECT 1 FROM org_recovery_optins WHERE org_id = ? AND account_id = ?", [.text(org), .text(account)]).isEmpty,
                    let body = try db.rows(
                        "SELECT credentials FROM org_recovery_requests WHERE account_id = ? AND credentials IS NOT NULL AND expires > ?",
                        [.text(account), .integer(milliseconds(Date()))]
                    ).first?[0].blob,
                    let keys = try? ProtocolCoding.wireDecode(FamilyRecoveryKeysRequest.self, from: Data(body)),
                    let bundle = try? KeyBundle(Array(keys.keyset.prefix(KeyBundle.length)), accountID: account),
                    ConstantTime.equal(bundle.encoded, Array(request.bundle))
                else { throw ProtocolError(.notFound) }
                guard list.member(account)?.keys == bundle.keys else {
                    throw ProtocolError(.badRequest, ["reason": "the newest member list does not hold the member's new keys"])
                }
                try AccountService.replaceCredentials(db, accountID: account, salt: keys.salt, kdf: keys.kdf, signInPublicKey: keys.signInPublicKey, keyset: keys.keyset)
                for table in ["sessions", "remembered_devices", "two_factor", "recovery_codes", "account_recovery", "sync_items", "sync_manifests", "sync_vaults",
                    "sync_operations", "sync_devices", "sync_blob_parts", "sync_blobs", "sync_accounts", "org_recovery_requests"]
                {
                    try db.run("DELETE FROM \(table) WHERE account_id = ?", [.text(account)])
                }
                // Grants to the old keys open nothing any more.
                try db.run("DELETE FROM org_grants WHERE account_id = ? AND epoch < ?", [.text(account), .integer(Int64(list.epoch))])
                try AccountService.record(db, account, "recoveredByFamily", address: session.address, device: session.deviceName)
            }
        }
    }
}
