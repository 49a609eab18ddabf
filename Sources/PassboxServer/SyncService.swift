import Foundation
import PassboxCrypto
import PassboxServerAPI
import PassboxSQL
import PassboxManifest

/// The sync operations of the server (docs/PROTOCOL.md "Sync"): it keeps each account's vaults as the
/// devices wrote them (wrapped keys, sealed names, item envelopes, signed manifests) and accepts a write
/// only on top of a vault's current manifest. Every push takes the account's next revision; a pull hands out
/// what changed after a revision.
struct SyncService: Sendable {
    let pool: ConnectionPool
    let hub: SyncHub
    let isPostgres: Bool
    /// The account's storage quota: a push that would leave it past the quota is refused whole.
    var quota = StorageQuota(bytes: 1024 << 20)
    /// The most items one push may carry.
    static let pushItemLimit = 1_000
    /// A page of a pull stops at a revision boundary once it holds this many envelope bytes.
    static let pageBytes = 2 << 20
    /// A device that has not pulled for this long no longer holds back the compaction of manifest history:
    /// three times a session's idle lifetime.
    static let manifestRetention = ManifestHistory.retention

    static func checkedID(_ id: String, _ name: String) throws -> String {
        guard SyncIdentifier.isValid(id) else { throw ProtocolError(.badRequest, ["reason": "\(name) must be 1 to 64 letters, digits, - or _"]) }
        return id
    }

    func push(_ session: AccountService.Session, _ request: SyncPushRequest) throws -> SyncPushReply {
        let opID = try Self.checkedID(request.opID, "opID")
        guard !request.vaults.isEmpty, request.vaults.count <= 64 else { throw ProtocolError(.badRequest, ["reason": "a push writes 1 to 64 vaults"]) }
        guard request.vaults.reduce(0, { $0 + $1.items.count }) <= Self.pushItemLimit else {
            throw ProtocolError(.badRequest, ["reason": "a push carries at most \(Self.pushItemLimit) items"])
        }
        guard Set(request.vaults.map(\.vaultID)).count == request.vaults.count else { throw ProtocolError(.badRequest, ["reason": "a vault is written twice"]) }
        let declared = try BlobService.checkedDeclared(request.blobs)
        let account = session.accountID
        let realm = try request.orgID.map { SyncRealm(org: try SharingService.checkedOrg($0)) } ?? SyncRealm(account: account)
        let (reply, members): (SyncPushReply, [String]) = try pool.with { db in
            try db.transaction {
                // An organisation's push first takes the row every change to the organisation updates (on
                // PostgreSQL that orders it after a removal or a renewal that committed), then checks each vault
                // is one the newest list lets the caller edit, at its current epoch.
                var epochs: [String: Int] = [:]
                if realm.isOrg {
                    try SharingService.lock(db, org: realm.owner)
                    epochs = try Self.writable(db, org: realm.owner, account: account, vaults: request.vaults)
                }
                if let done = try db.rows(realm.sql("SELECT revision FROM sync_operations WHERE account_id = ? AND op_id = ?"), [.text(realm.owner), .text(opID)]).first {
                    return (SyncPushReply(revision: done[0].integer ?? 0, replayed: true), [])
                }
                guard let keyset = try db.rows("SELECT keyset FROM accounts WHERE id = ?", [.text(account)]).first?[0].blob, keyset.count >= 65 else {
                    throw ProtocolError(.notSignedIn)
                }
                let signer = Array(keyset[33..<65])
                // The owner's row of revisions is the one all its pushes update first: on PostgreSQL it orders
                // them, so two pushes never both pass the manifest checks below.
                let revision = try db.rows(
                    realm.sql(
                        """
                        INSERT INTO sync_accounts (account_id, revision) VALUES (?, 1)
                        ON CONFLICT (account_id) DO UPDATE SET revision = sync_accounts.revision + 1 RETURNING revision
                        """), [.text(realm.owner)]
                ).first?[0].integer ?? 0
                // Blobs are the account's own: a shared vault's items are checked without them (docs/PROTOCOL.md).
                let missing = realm.isOrg ? [] : try BlobService.missing(db, account: account, ids: declared)
                guard missing.isEmpty else { throw ProtocolError(.blobsMissing, ["ids": missing.joined(separator: ",")]) }
                let before = realm.isOrg ? 0 : try StorageQuota.used(db, account: account)
                for write in request.vaults {
                    try apply(db, write, realm: realm, signer: (account, signer), epoch: epochs[write.vaultID], revision: revision)
                }
                if !realm.isOrg {
                    try compact(db, account: account, vaults: request.vaults.map(\.vaultID))
                    // Items and manifests count against the account's quota with its blobs (issue 28: before, one
                    // account could push 41 MiB of items on a server whose quota was 1 MiB).
                    try quota.check(before: before, after: try StorageQuota.used(db, account: account))
                }
                try db.run(
                    realm.sql("INSERT INTO sync_operations (account_id, op_id, revision, created) VALUES (?, ?, ?, ?)"),
                    [.text(realm.owner), .text(opID), .integer(revision), .integer(milliseconds(Date()))])
                // Kept a day: a device retries a lost answer within minutes.
                if SecureRandom.uniform(64) == 0 {
                    try db.run(realm.sql("DELETE FROM sync_operations WHERE account_id = ? AND created < ?"), [.text(realm.owner), .integer(milliseconds(Date()) - 86_400_000)])
                }
                // An organisation's members' live waits are woken (they sync; their own revisions did not move).
                let members = realm.isOrg ? try db.rows("SELECT account_id FROM org_members WHERE org_id = ?", [.text(realm.owner)]).compactMap { $0[0].text } : []
                if isPostgres {
                    if realm.isOrg {
                        for member in members { try db.run("SELECT pg_notify('passbox_sync', ?)", [.text("\(member):shared")]) }
                    } else {
                        try db.run("SELECT pg_notify('passbox_sync', ?)", [.text("\(account):\(revision)")])
                    }
                }
                return (SyncPushReply(revision: revision, replayed: false), members)
            }
        }
        if !reply.replayed {
            if realm.isOrg { hub.nudge(accounts: members) } else { hub.notify(account: account, revision: reply.revision) }
        }
        return reply
    }

    /// The vaults of an organisation a push writes, each with its epoch: the caller must be an active member of
    /// the newest list with edit or manage access to every one (else `viewOnly`), and each must be a vault a
    /// manager made (`org_vaults`).
    static func writable(_ db: any SQLConnection, org: String, account: String, vaults: [SyncVaultWrite]) throws -> [String: Int] {
        let list = try SharingService.newest(db, org: org, account: account)
        var epochs: [String: Int] = [:]
        for write in vaults {
            guard let access = list.access(vault: write.vaultID, account: account), access >= .edit else { throw ProtocolError(.viewOnly, ["vault": write.vaultID]) }
            guard let epoch = try db.rows("SELECT epoch FROM org_vaults WHERE org_id = ? AND vault_id = ?", [.text(org), .text(write.vaultID)]).first?[0].integer else {
                throw ProtocolError(.badRequest, ["reason": "vault \(write.vaultID) is not a shared vault of the organisation"])
            }
            epochs[write.vaultID] = Int(epoch)
        }
        return epochs
    }

    /// One vault's write. In an organisation (`epoch` given) the manifest is the caller's, the vault's key is
    /// the one its grants carry (none is stored here), and a write names the vault's current epoch: the key
    /// moves on with the epoch, never back.
    private func apply(_ db: any SQLConnection, _ write: SyncVaultWrite, realm: SyncRealm, signer: (id: String, key: [UInt8]), epoch: Int?, revision: Int64) throws {
        let vault = try Self.checkedID(write.vaultID, "vaultID")
        let owner = realm.owner
        guard (0..<(Int64.max / 2)).contains(write.baseVersion) else { throw ProtocolError(.badRequest, ["reason": "baseVersion is out of range"]) }
        guard let manifest = try? Manifest(decoding: Array(write.manifest)), manifest.vaultID == vault, manifest.version == write.baseVersion + 1,
            manifest.keyVersion == write.keyVersion, manifest.signer == signer.id, manifest.isSigned(by: signer.key)
        else { throw ProtocolError(.badRequest, ["reason": "the manifest of vault \(vault) is not the next version signed by the account"]) }
        if let epoch, write.keyVersion != epoch { throw ProtocolError(.syncConflict, ["vault": vault]) }
        let current = try db.rows(realm.sql("SELECT manifest_version, key_version FROM sync_vaults WHERE account_id = ? AND vault_id = ?"), [.text(owner), .text(vault)]).first
        let meta: [UInt8]
        if let current {
            guard current[0].integer == write.baseVersion else { throw ProtocolError(.syncConflict, ["vault": vault]) }
            if epoch != nil {
                guard (current[1].integer ?? 0) <= Int64(write.keyVersion) else { throw ProtocolError(.syncConflict, ["vault": vault]) }
            } else {
                guard current[1].integer == Int64(write.keyVersion), write.key == nil else { throw ProtocolError(.badRequest, ["reason": "vault keys change only by rotation"]) }
            }
            if let given = write.meta {
                meta = Array(given)
            } else {
                meta = try db.rows(
                    realm.sql("SELECT meta FROM sync_manifests WHERE account_id = ? AND vault_id = ? AND version = ?"), [.text(owner), .text(vault), .integer(write.baseVersion)]
                ).first?[0].blob ?? []
            }
            try db.run(
                realm.sql("UPDATE sync_vaults SET manifest_version = ?, key_version = ?, revision = ? WHERE account_id = ? AND vault_id = ?"),
                [.integer(manifest.version), .integer(Int64(write.keyVersion)), .integer(revision), .text(owner), .text(vault)])
        } else {
            guard write.baseVersion == 0 else { throw ProtocolError(.syncConflict, ["vault": vault]) }
            guard let given = write.meta, let key = epoch != nil ? Data() : write.key else { throw ProtocolError(.badRequest, ["reason": "a new vault needs its key and name"]) }
            meta = Array(given)
            do {
                try db.run(
                    realm.sql("INSERT INTO sync_vaults (account_id, vault_id, key_version, wrapped_key, manifest_version, revision) VALUES (?, ?, ?, ?, ?, ?)"),
                    [.text(owner), .text(vault), .integer(Int64(write.keyVersion)), .blob(Array(key)), .integer(manifest.version), .integer(revision)])
            } catch let error as SQLEngineError where error.isUniqueViolation {
                throw ProtocolError(.syncConflict, ["vault": vault])
            }
        }
        guard Hash.sha256(meta) == manifest.metaHash else { throw ProtocolError(.badRequest, ["reason": "the manifest of vault \(vault) names another name envelope"]) }
        try db.run(
            realm.sql("INSERT INTO sync_manifests (account_id, vault_id, version, body, meta, revision) VALUES (?, ?, ?, ?, ?, ?)"),
            [.text(owner), .text(vault), .integer(manifest.version), .blob(Array(write.manifest)), .blob(meta), .integer(revision)])
        for item in write.items {
            let id = try Self.checkedID(item.itemID, "itemID")
            try db.run(
                realm.sql(
                    """
                    INSERT INTO sync_items (account_id, vault_id, item_id, revision, envelope) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (account_id, vault_id, item_id) DO UPDATE SET revision = excluded.revision, envelope = excluded.envelope
                    """), [.text(owner), .text(vault), .text(id), .integer(revision), item.envelope.map { .blob(Array($0)) } ?? .null])
        }
    }

    /// Drops manifest history no device needs (issue 28): every version after the oldest place a device of the
    /// account last started a pull from is kept (each device checks the chain from what it holds), and below
    /// it only each vault's newest (a new device's starting point, and the meta a push may reuse). Devices not
    /// seen for `manifestRetention` do not count. Run for the vaults a push wrote, inside its transaction.
    func compact(_ db: any SQLConnection, account: String, vaults: [String]) throws {
        let now = milliseconds(Date())
        let recent = now - Int64(Self.manifestRetention * 1000)
        // A signed-in device that has not pulled since this was built (or not yet) may hold any version: while
        // one does, nothing is dropped.
        let floor = try db.rows(
            """
            SELECT CASE WHEN EXISTS (
                       SELECT 1 FROM sessions s WHERE s.account_id = ? AND s.last_seen >= ?
                          AND NOT EXISTS (SELECT 1 FROM sync_devices d WHERE d.account_id = s.account_id AND d.device_id = s.device_id AND d.seen >= ?))
                   THEN 0
                   ELSE COALESCE((SELECT MIN(pulled) FROM sync_devices WHERE account_id = ? AND seen >= ?),
                                 (SELECT revision FROM sync_accounts WHERE account_id = ?), 0) END
            """,
            [.text(account), .integer(now - Int64(AccountService.sessionIdleLifetime * 1000)), .integer(recent), .text(account), .integer(recent), .text(account)]
        ).first?[0].integer ?? 0
        guard floor > 0 else { return }
        for vault in vaults {
            try db.run(
                """
                DELETE FROM sync_manifests WHERE account_id = ? AND vault_id = ? AND revision <= ?
                  AND version < (SELECT MAX(m.version) FROM sync_manifests m WHERE m.account_id = ? AND m.vault_id = ? AND m.revision <= ?)
                """, [.text(account), .text(vault), .integer(floor), .text(account), .text(vault), .integer(floor)])
        }
    }

    /// Notes where a device starts a pull (a pull's first page: later pages name `until`), which holds back
    /// the compaction of the manifests after it: its `since`, moved on over the revisions right after it that
    /// are its own pushes (which it skips, holding them already). Written at most once a minute for an
    /// unchanged place.
    func notePull(_ session: AccountService.Session, since: Int64, own: [Int64]) throws {
        let now = milliseconds(Date())
        let skipped = Set(own)
        var since = since
        while skipped.contains(since + 1) { since += 1 }
        _ = try pool.with { db in
            try db.run(
                """
                INSERT INTO sync_devices (account_id, device_id, pulled, seen) VALUES (?, ?, ?, ?)
                ON CONFLICT (account_id, device_id) DO UPDATE SET pulled = excluded.pulled, seen = excluded.seen
                WHERE sync_devices.pulled <> excluded.pulled OR sync_devices.seen < excluded.seen - 60000
                """, [.text(session.accountID), .text(session.deviceID), .integer(max(0, since)), .integer(now)])
        }
    }

    func pull(_ session: AccountService.Session, _ request: SyncPullRequest) throws -> SyncPullReply {
        let account = session.accountID
        let realm = try request.orgID.map { SyncRealm(org: try SharingService.checkedOrg($0)) } ?? SyncRealm(account: account)
        if request.until == nil, !realm.isOrg { try notePull(session, since: request.since, own: request.skip ?? []) }
        // A page holds at least one whole push.
        let limit = min(max(request.limit ?? SyncPullRequest.pageLimit, Self.pushItemLimit), SyncPullRequest.pageLimit)
        return try pool.with { db in
            try db.transaction {
                // One snapshot for every query of the pull (SQLite's transaction is one already): a push that
                // commits meanwhile is in the next pull, not half in this one.
                if isPostgres { try db.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", []) }
                // In an organisation, only the vaults the newest list gives the caller (an active member) access to.
                let (only, onlyValues) = try realm.isOrg ? Self.readable(db, org: realm.owner, account: account) : ("", [])
                let current = try db.rows(realm.sql("SELECT revision FROM sync_accounts WHERE account_id = ?"), [.text(realm.owner)]).first?[0].integer ?? 0
                // A pull that named where it stops gets nothing past it (pushes made since wait for the next pull).
                let latest = max(0, min(current, request.until ?? current))
                let since = max(0, min(request.since, latest))
                // The device's own writes it already holds are left out.
                let skip = Array(Set(request.skip ?? []).filter { $0 > since }.sorted().prefix(SyncPullRequest.skipLimit))
                let notSkipped = skip.isEmpty ? "" : " AND revision NOT IN (" + Array(repeating: "?", count: skip.count).joined(separator: ", ") + ")"
                let skipped = skip.map { Value.integer($0) }
                let rows = try db.rows(
                    realm.sql("SELECT vault_id, item_id, revision, envelope FROM sync_items WHERE account_id = ? AND revision > ? AND revision <= ?\(notSkipped)\(only) ORDER BY revision LIMIT ?"),
                    [.text(realm.owner), .integer(since), .integer(latest)] + skipped + onlyValues + [.integer(Int64(limit + 1))])
                // The page ends at a revision boundary: past `limit` items or `pageBytes` bytes, the revision that
                // crosses the line waits for the next page (one push is never split).
                var upto = latest
                var more = false
                var bytes = 0
                var lastRevision: Int64 = since
                for (i, row) in rows.enumerated() {
                    let r = row[2].integer ?? 0
                    if r != lastRevision, i >= limit || bytes > Self.pageBytes {
                        upto = lastRevision
                        more = true
                        break
                    }
                    lastRevision = r
                    bytes += row[3].blob?.count ?? 0
                }
                if !more && rows.count > limit {
                    // The last revision fetched may go on past the rows fetched: it waits for the next page.
                    upto = (rows.last?[2].integer ?? since) - 1
                    more = true
                }
                let items = rows.compactMap { row -> SyncItemRecord? in
                    guard let r = row[2].integer, r <= upto else { return nil }
                    return SyncItemRecord(vaultID: row[0].text ?? "", itemID: row[1].text ?? "", revision: r, envelope: row[3].blob.map { Data($0) })
                }
                let manifests = try db.rows(
                    realm.sql("SELECT vault_id, version, body, meta FROM sync_manifests WHERE account_id = ? AND revision > ? AND revision <= ?\(notSkipped)\(only) ORDER BY vault_id, version"),
                    [.text(realm.owner), .integer(since), .integer(upto)] + skipped + onlyValues
                ).map { SyncManifestRecord(vaultID: $0[0].text ?? "", version: $0[1].integer ?? 0, manifest: Data($0[2].blob ?? []), meta: Data($0[3].blob ?? [])) }
                // The vaults as of `latest`: when the pull stops before the account's revision, each vault's newest
                // manifest up to there (a vault made after it is not listed yet).
                let vaultRows =
                    latest == current
                    ? try db.rows(
                        realm.sql("SELECT vault_id, key_version, wrapped_key, manifest_version FROM sync_vaults WHERE account_id = ?\(only) ORDER BY vault_id"), [.text(realm.owner)] + onlyValues)
                    : try db.rows(
                        realm.sql(
                        """
                        SELECT v.vault_id, v.key_version, v.wrapped_key,
                               (SELECT MAX(m.version) FROM sync_manifests m WHERE m.account_id = v.account_id AND m.vault_id = v.vault_id AND m.revision <= ?)
                        FROM sync_vaults v WHERE v.account_id = ?
                          AND EXISTS (SELECT 1 FROM sync_manifests m WHERE m.account_id = v.account_id AND m.vault_id = v.vault_id AND m.revision <= ?)\(only.replacingOccurrences(of: "vault_id", with: "v.vault_id"))
                        ORDER BY v.vault_id
                        """), [.integer(latest), .text(realm.owner), .integer(latest)] + onlyValues)
                let vaults = vaultRows.map {
                    SyncVaultRecord(vaultID: $0[0].text ?? "", keyVersion: Int($0[1].integer ?? 0), key: Data($0[2].blob ?? []), manifestVersion: $0[3].integer ?? 0)
                }
                return SyncPullReply(revision: upto, more: more, vaults: vaults, items: items, manifests: manifests, latest: latest)
            }
        }
    }

    /// The vaults of an organisation the caller may read: a filter (`AND vault_id IN (…)`) and its values. An
    /// active member with access to none gets a filter that matches nothing.
    static func readable(_ db: any SQLConnection, org: String, account: String) throws -> (String, [Value]) {
        let list = try SharingService.newest(db, org: org, account: account)
        let vaults = Set(list.vaults.map(\.vaultID)).filter { list.access(vault: $0, account: account) != nil }.sorted()
        guard !vaults.isEmpty else { return (" AND 1 = 0", []) }
        return (" AND vault_id IN (" + Array(repeating: "?", count: vaults.count).joined(separator: ", ") + ")", vaults.map { .text($0) })
    }

    func revision(account: String) throws -> Int64 {
        try pool.with { db in try db.rows("SELECT revision FROM sync_accounts WHERE account_id = ?", [.text(account)]).first?[0].integer ?? 0 }
    }
}

/// Where a push or a pull reads and writes: the account's own vaults, or an organisation's shared vaults
/// (issue 32), whose tables (`org_sync_*`) have the same shape with the organisation in place of the account.
struct SyncRealm {
    let owner: String
    let isOrg: Bool
    init(account: String) { (owner, isOrg) = (account, false) }
    init(org: String) { (owner, isOrg) = (org, true) }

    /// A statement written for the account's tables, for this realm's.
    func sql(_ text: String) -> String {
        guard isOrg else { return text }
        return text.replacingOccurrences(of: "sync_", with: "org_sync_").replacingOccurrences(of: "org_sync_accounts", with: "org_sync_heads")
            .replacingOccurrences(of: "account_id", with: "org_id")
    }
}
