import Foundation
import PassboxServerAPI
import PassboxSQL

/// One storage quota per account (issue 28): every item envelope, every manifest with its name envelope, and
/// every blob the account keeps count against it (`passbox server --quota-mib`, 1 GiB by default). A push or a
/// blob that would leave the account past it is refused as `blobQuotaExceeded` (413, the quota and what is
/// used), and nothing of it is kept; a push that frees room is always taken.
struct StorageQuota: Sendable {
    let bytes: Int

    /// What the account keeps now, in bytes (one statement: a snapshot inside the caller's transaction).
    static func used(_ db: any SQLConnection, account: String) throws -> Int64 {
        try db.rows(
            """
            SELECT CAST(COALESCE((SELECT SUM(LENGTH(envelope)) FROM sync_items WHERE account_id = ?), 0) AS BIGINT)
                 + CAST(COALESCE((SELECT SUM(LENGTH(body) + LENGTH(meta)) FROM sync_manifests WHERE account_id = ?), 0) AS BIGINT)
                 + CAST(COALESCE((SELECT SUM(length) FROM sync_blobs WHERE account_id = ?), 0) AS BIGINT)
            """, [.text(account), .text(account), .text(account)]
        ).first?[0].integer ?? 0
    }

    func exceeded(used: Int64) -> ProtocolError {
        ProtocolError(.blobQuotaExceeded, ["quotaMiB": String(bytes >> 20), "usedMiB": String(used >> 20)])
    }

    /// Refuses `after` when it is past the quota and more than `before` (a change that frees room passes).
    func check(before: Int64, after: Int64) throws {
        if after > Int64(bytes), after > before { throw exceeded(used: before) }
    }

    func use(_ db: any SQLConnection, account: String) throws -> StorageUse {
        StorageUse(usedBytes: try Self.used(db, account: account), quotaBytes: Int64(bytes))
    }
}
