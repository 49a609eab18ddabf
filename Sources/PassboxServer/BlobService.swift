import Foundation
import PassboxServerAPI
import PassboxSQL

/// The server's store of attachments' blobs (docs/PROTOCOL.md "Blobs"): ciphertext a device made, kept in
/// the database in parts of 512 KiB (`sync_blob_parts`, SQLite or PostgreSQL alike), per account, within the
/// account's quota. The server never has a key: it sees a blob's id, its padded length and when it came.
/// A blob is readable once all its parts came and the device said it is complete; an upload cut off half way
/// is finished by sending the missing parts again (each `PUT` is idempotent).
struct BlobService: Sendable {
    let pool: ConnectionPool
    /// The account's storage quota, blobs counted with its items and manifests (`--quota-mib`).
    let quota: StorageQuota
    /// A part's length; every part but the last has exactly this many bytes.
    static let partLength = BlobTransfer.partLength

    /// The longest blob there can be (an attachment of the largest size).
    static let maximumLength = BlobTransfer.maximumLength

    static func checkedID(_ id: String) throws -> String {
        guard BlobTransfer.isValidID(id) else { throw ProtocolError(.badRequest, ["reason": "a blob id is 32 lower-case hex digits"]) }
        return id
    }

    /// `PUT /v1/blobs/{id}/{part}` with the blob's whole length in `X-Passbox-Blob-Length`.
    func put(account: String, id: String, part: Int, length: Int, body: [UInt8]) throws {
        let id = try Self.checkedID(id)
        guard length > 0, length <= Self.maximumLength else { throw ProtocolError(.badRequest, ["reason": "a blob's length is 1 to \(Self.maximumLength) bytes"]) }
        let parts = BlobTransfer.parts(length)
        guard part >= 0, part < parts else { throw ProtocolError(.badRequest, ["reason": "the blob has parts 0 to \(parts - 1)"]) }
        guard body.count == BlobTransfer.partRange(part, length: length).count else {
            throw ProtocolError(.badRequest, ["reason": "part \(part) of this blob is \(BlobTransfer.partRange(part, length: length).count) bytes"])
        }
        try pool.with { db in
            try db.transaction {
                let existing = try db.rows("SELECT length, complete FROM sync_blobs WHERE account_id = ? AND blob_id = ?", [.text(account), .text(id)]).first
                if let existing {
                    guard existing[0].integer == Int64(length) else { throw ProtocolError(.badRequest, ["reason": "this blob was begun with another length"]) }
                    if existing[1].integer == 1 { return }
                } else {
                    // The account's row first, as a push takes it: a push and an upload at once on PostgreSQL
                    // cannot both pass the quota check.
                    try db.run(
                        "INSERT INTO sync_accounts (account_id, revision) VALUES (?, 0) ON CONFLICT (account_id) DO UPDATE SET revision = sync_accounts.revision",
                        [.text(account)])
                    let used = try StorageQuota.used(db, account: account)
                    guard used + Int64(length) <= Int64(quota.bytes) else { throw quota.exceeded(used: used) }
                    try db.run(
                        "INSERT INTO sync_blobs (account_id, blob_id, length, complete, created) VALUES (?, ?, ?, 0, ?)",
                        [.text(account), .text(id), .integer(Int64(length)), .integer(milliseconds(Date()))])
                }
                try db.run("DELETE FROM sync_blob_parts WHERE account_id = ? AND blob_id = ? AND part = ?", [.text(account), .text(id), .integer(Int64(part))])
                try db.run(
                    "INSERT INTO sync_blob_parts (account_id, blob_id, part, body) VALUES (?, ?, ?, ?)",
                    [.text(account), .text(id), .integer(Int64(part)), .blob(body)])
            }
        }
    }

    /// `POST /v1/blobs/{id}/complete`: the blob becomes readable once every part is there.
    func complete(account: String, id: String) throws {
        let id = try Self.checkedID(id)
        try pool.with { db in
            try db.transaction {
                guard let row = try db.rows("SELECT length FROM sync_blobs WHERE account_id = ? AND blob_id = ?", [.text(account), .text(id)]).first,
                    let length = row[0].integer
                else { throw ProtocolError(.notFound, ["route": "blob"]) }
                let have = try db.rows("SELECT COUNT(*) FROM sync_blob_parts WHERE account_id = ? AND blob_id = ?", [.text(account), .text(id)]).first?[0].integer ?? 0
                let parts = BlobTransfer.parts(Int(length))
                guard have == Int64(parts) else { throw ProtocolError(.badRequest, ["reason": "the blob has \(have) of its \(parts) parts"]) }
                try db.run("UPDATE sync_blobs SET complete = 1 WHERE account_id = ? AND blob_id = ?", [.text(account), .text(id)])
            }
        }
    }

    /// `GET /v1/blobs/{id}/{part}`: a part of a complete blob.
    func get(account: String, id: String, part: Int) throws -> [UInt8] {
        let id = try Self.checkedID(id)
        return try pool.with { db in
            let rows = try db.rows(
                """
                SELECT p.body FROM sync_blob_parts p JOIN sync_blobs b ON b.account_id = p.account_id AND b.blob_id = p.blob_id
                WHERE p.account_id = ? AND p.blob_id = ? AND p.part = ? AND b.complete = 1
                """, [.text(account), .text(id), .integer(Int64(part))])
            guard let body = rows.first?[0].blob else { throw ProtocolError(.notFound, ["route": "blob"]) }
            return body
        }
    }

    /// `POST /v1/blobs/remove`: removes blobs the device found no item refers to, when the account is still at
    /// the revision the device saw. The account's row of revisions is taken first, as a push takes it: a push
    /// made since moved the revision (refused as `syncConflict`; the device pulls and looks again), and one
    /// that comes after waits for this transaction and then finds the blobs gone (`blobsMissing`).
    func remove(account: String, _ request: BlobRemovalRequest) throws -> BlobRemovalReply {
        guard request.ids.count <= BlobTransfer.removalLimit else {
            throw ProtocolError(.badRequest, ["reason": "a removal names at most \(BlobTransfer.removalLimit) blobs"])
        }
        let ids = Set(try request.ids.map(Self.checkedID))
        return try pool.with { db in
            try db.transaction {
                let revision = try db.rows("UPDATE sync_accounts SET revision = revision WHERE account_id = ? RETURNING revision", [.text(account)]).first?[0].integer ?? 0
                guard revision == request.revision else { throw ProtocolError(.syncConflict, ["vault": ""]) }
                var removed = 0
                for id in ids.sorted() {
                    try db.run("DELETE FROM sync_blob_parts WHERE account_id = ? AND blob_id = ?", [.text(account), .text(id)])
                    removed += try db.run("DELETE FROM sync_blobs WHERE account_id = ? AND blob_id = ?", [.text(account), .text(id)])
                }
                let used = try db.rows("SELECT CAST(COALESCE(SUM(length), 0) AS BIGINT) FROM sync_blobs WHERE account_id = ?", [.text(account)]).first?[0].integer ?? 0
                return BlobRemovalReply(removed: removed, usedBytes: used)
            }
        }
    }

    /// Checks a push's declared blobs (`SyncPushRequest.blobs`) before the transaction.
    static func checkedDeclared(_ ids: [String]?) throws -> [String] {
        guard let ids else { return [] }
        guard ids.count <= BlobTransfer.declaredLimit else { throw ProtocolError(.badRequest, ["reason": "a push declares at most \(BlobTransfer.declaredLimit) blobs"]) }
        return Array(Set(try ids.map(checkedID))).sorted()
    }

    /// Inside a push's transaction, after it took the account's row: the declared blobs the account does not
    /// have whole. The push is refused as `blobsMissing` naming them, so no item refers to a blob the server lacks
    /// while the device that pushes it still has it.
    static func missing(_ db: any SQLConnection, account: String, ids: [String]) throws -> [String] {
        var have = Set<String>()
        var start = 0
        while start < ids.count {
            let slice = Array(ids[start..<min(ids.count, start + 500)])
            start += slice.count
            let marks = Array(repeating: "?", count: slice.count).joined(separator: ", ")
            let rows = try db.rows(
                "SELECT blob_id FROM sync_blobs WHERE account_id = ? AND complete = 1 AND blob_id IN (\(marks))", [.text(account)] + slice.map { .text($0) })
            for row in rows { if let id = row[0].text { have.insert(id) } }
        }
        return ids.filter { !have.contains($0) }
    }
}
