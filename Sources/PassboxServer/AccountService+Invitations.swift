import Foundation
import PassboxCrypto
import PassboxServerAPI
import PassboxSQL

/// Invitations for a server that signs up by invitation only.
extension AccountService {
    /// Marks an invitation used (inside the sign-up's transaction, so a failed sign-up leaves it unused), or
    /// says why it cannot be: missing, unknown, used, expired, or for another email.
    static func useInvitation(_ db: any SQLConnection, _ token: String?, email: String) throws {
        guard let token, !token.isEmpty, token.utf8.count <= 128 else { throw ProtocolError(.invitationInvalid, ["reason": "missing"]) }
        let hash = Hash.sha256(Array(token.utf8))
        guard let row = try db.rows("SELECT email, expires, used FROM invitations WHERE token_hash = ?", [.blob(hash)]).first else {
            throw ProtocolError(.invitationInvalid, ["reason": "unknown"])
        }
        if !row[2].isNull { throw ProtocolError(.invitationInvalid, ["reason": "used"]) }
        if (row[1].integer ?? 0) < milliseconds(Date()) { throw ProtocolError(.invitationInvalid, ["reason": "expired"]) }
        if row[0].text != email { throw ProtocolError(.invitationInvalid, ["reason": "otherEmail"]) }
        // Used at most once, also when two sign-ups race with the same token.
        let changed = try db.run("UPDATE invitations SET used = ? WHERE token_hash = ? AND used IS NULL", [.integer(milliseconds(Date())), .blob(hash)])
        if changed != 1 { throw ProtocolError(.invitationInvalid, ["reason": "used"]) }
    }

    /// A new single-use invitation for `email`, good for `days`; the token is returned once and stored as its
    /// SHA-256 only.
    static func invite(_ db: any SQLConnection, email: String, days: Int) throws -> String {
        let email = try checkedEmail(email)
        let token = newToken(bytes: 24)
        let now = Date()
        try db.run(
            "INSERT INTO invitations (token_hash, email, created, expires, used) VALUES (?, ?, ?, ?, NULL)",
            [.blob(Hash.sha256(Array(token.utf8))), .text(email), .integer(milliseconds(now)), .integer(milliseconds(now + Double(days) * 86_400))])
        return token
    }
}
