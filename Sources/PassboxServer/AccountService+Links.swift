import Foundation
import PassboxServerAPI
import PassboxSQL

/// Device linking's relay (docs/PROTOCOL.md "Device linking", issue 33). A link is a row: opened by a
/// signed-in device under an id derived from a one-time secret the server never sees; one hello from the new
/// device, one reply and one sealed message from the old; gone once the new device took the sealed message,
/// once either side cancels, or 10 minutes after it opened. Every message is opaque here: the devices
/// authenticate them under a key from the secret, so the server can only pass them on, drop or delay them.
extension AccountService {
    static let linkLifetime: Int64 = 600_000
    static let linkMessageLimit = 4096

    static func checkedLinkID(_ id: String) throws -> String {
        guard id.utf8.count == 22, id.utf8.allSatisfy({ $0 == 0x2D || $0 == 0x5F || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
        else { throw ProtocolError(.badRequest, ["reason": "a link id is 16 bytes, base64url"]) }
        return id
    }

    static func checkedLinkMessage(_ message: Data) throws -> Data {
        guard !message.isEmpty, message.count <= linkMessageLimit else { throw ProtocolError(.badRequest, ["reason": "a link message is 1 to \(linkMessageLimit) bytes"]) }
        return message
    }

    /// `POST /v1/link/start`: a signed-in device opens a link (an id already open is `linkNotFound`'s twin,
    /// a conflict: ids are random, so it is a replay). Expired links are cleared on the way.
    func startLink(_ session: Session, _ request: LinkStartRequest) throws -> LinkStartReply {
        let id = try Self.checkedLinkID(request.id)
        let now = milliseconds(Date())
        return try pool.with { db in
            try db.transaction {
                try Self.sweepLinks(db, now: now)
                // One link open per account: a new one ends the earlier (nothing builds up).
                _ = try db.run("DELETE FROM device_links WHERE account_id = ?", [.text(session.accountID)])
                let made = try db.run(
                    "INSERT INTO device_links (id, account_id, created, expires, cancelled) VALUES (?, ?, ?, ?, 0) ON CONFLICT (id) DO NOTHING",
                    [.text(id), .text(session.accountID), .integer(now), .integer(now + Self.linkLifetime)])
                guard made == 1 else { throw ProtocolError(.syncConflict, ["reason": "that link id is taken"]) }
                try Self.record(db, session.accountID, "linkStarted", address: session.address, device: session.deviceName)
            }
            return LinkStartReply(expires: Date(timeIntervalSince1970: Double(now + Self.linkLifetime) / 1000))
        }
    }

    /// Links past their 10 minutes go, messages and all, when a link starts or a hello arrives (a poll only
    /// reads, and sees none of them).
    static func sweepLinks(_ db: any SQLConnection, now: Int64) throws {
        _ = try db.run("DELETE FROM device_links WHERE expires <= ?", [.integer(now)])
    }

    /// `POST /v1/link/hello`: the new device's one message (no session: the id is its credential).
    func linkHello(_ request: LinkMessageRequest, address: String) throws {
        let id = try Self.checkedLinkID(request.id)
        let message = try Self.checkedLinkMessage(request.message)
        try pool.with { db in
            try Self.sweepLinks(db, now: milliseconds(Date()))
            let taken = try db.run(
                "UPDATE device_links SET hello = ?, hello_address = ? WHERE id = ? AND hello IS NULL AND cancelled = 0 AND expires > ?",
                [.blob(Array(message)), .text(address), .text(id), .integer(milliseconds(Date()))])
            guard taken == 1 else { throw ProtocolError(.linkNotFound) }
        }
    }

    /// `POST /v1/link/reply` and `/v1/link/seal`: the old device's messages, each once, on its own account's
    /// link, the reply only after a hello, the seal only after the reply.
    func linkAnswer(_ session: Session, _ request: LinkMessageRequest, seal: Bool) throws {
        let id = try Self.checkedLinkID(request.id)
        let message = try Self.checkedLinkMessage(request.message)
        let sql =
            seal
            ? "UPDATE device_links SET sealed = ? WHERE id = ? AND account_id = ? AND reply IS NOT NULL AND sealed IS NULL AND cancelled = 0 AND expires > ?"
            : "UPDATE device_links SET reply = ? WHERE id = ? AND account_id = ? AND hello IS NOT NULL AND reply IS NULL AND cancelled = 0 AND expires > ?"
        try pool.with { db in
            guard try db.run(sql, [.blob(Array(message)), .text(id), .text(session.accountID), .integer(milliseconds(Date()))]) == 1 else { throw ProtocolError(.linkNotFound) }
            if seal { try Self.record(db, session.accountID, "linkSealed", address: session.address, device: session.deviceName) }
        }
    }

    /// `POST /v1/link/poll`: the old device (its session) sees the hello; the new device sees the reply, then
    /// takes the sealed message, which ends the link.
    func linkPoll(_ session: Session?, _ request: LinkPollRequest) throws -> LinkPollReply {
        let id = try Self.checkedLinkID(request.id)
        let now = milliseconds(Date())
        return try pool.with { db in
            if request.side == "old" {
                guard let session else { throw ProtocolError(.notSignedIn) }
                guard let row = try db.rows(
                    "SELECT hello, hello_address, cancelled FROM device_links WHERE id = ? AND account_id = ? AND expires > ?", [.text(id), .text(session.accountID), .integer(now)]
                ).first else { throw ProtocolError(.linkNotFound) }
                if row[2].integer == 1 { return LinkPollReply(state: "cancelled") }
                return LinkPollReply(hello: row[0].blob.map { Data($0) }, address: row[1].text, state: "open")
            }
            guard request.side == "new" else { throw ProtocolError(.badRequest, ["reason": "side is old or new"]) }
            return try db.transaction {
                guard let row = try db.rows("SELECT reply, sealed, cancelled FROM device_links WHERE id = ? AND expires > ?", [.text(id), .integer(now)]).first
                else { throw ProtocolError(.linkNotFound) }
                if row[2].integer == 1 { return LinkPollReply(state: "cancelled") }
                if let sealed = row[1].blob {
                    // Taken once: the link ends with it.
                    guard try db.run("DELETE FROM device_links WHERE id = ? AND sealed IS NOT NULL", [.text(id)]) == 1 else { throw ProtocolError(.linkNotFound) }
                    return LinkPollReply(reply: row[0].blob.map { Data($0) }, sealed: Data(sealed), state: "done")
                }
                return LinkPollReply(reply: row[0].blob.map { Data($0) }, state: "open")
            }
        }
    }

    /// `POST /v1/link/cancel`: the old device on its own account's link, or the new device by id; nothing is
    /// relayed after it, and what was relayed is dropped (the row stays, empty, so each side learns of it).
    func cancelLink(_ session: Session?, _ request: LinkCancelRequest) throws {
        let id = try Self.checkedLinkID(request.id)
        try pool.with { db in
            let clear = "UPDATE device_links SET cancelled = 1, hello = NULL, hello_address = NULL, reply = NULL, sealed = NULL WHERE id = ?"
            let sql = session == nil ? clear : clear + " AND account_id = ?"
            let values: [Value] = session.map { [.text(id), .text($0.accountID)] } ?? [.text(id)]
            guard try db.run(sql, values) == 1 else { throw ProtocolError(.linkNotFound) }
        }
    }
}
