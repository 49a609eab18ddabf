import Foundation
import PassboxCrypto
import PassboxServerAPI
import PassboxSQL

/// Two-factor sign-in's operations (the codes themselves are in `TwoFactor`).
extension AccountService {
    func twoFactorStatus(_ session: Session) throws -> TwoFactorStatus {
        try pool.with { db in
            let left = try db.rows("SELECT count(*) FROM recovery_codes WHERE account_id = ? AND used IS NULL", [.text(session.accountID)]).first?[0].integer ?? 0
            return TwoFactorStatus(enabled: try TwoFactor.enabled(db, session.accountID), recoveryCodesLeft: Int(left))
        }
    }

    /// A new pending secret (replacing a pending one; refused while two-factor sign-in is on), after a fresh
    /// proof of the sign-in key: a stolen session token alone cannot bind the account to its thief's app.
    func enrolTwoFactor(_ session: Session, _ proof: FreshProof) throws -> TwoFactorEnrolReply {
        let secret = SecureRandom.bytes(count: 20)
        try pool.with { db in
            try verifyFreshProof(db, session, challengeID: proof.challengeID, signature: proof.signature, label: SignInTranscript.twoFactorOnLabel)
            try db.transaction {
                if try TwoFactor.enabled(db, session.accountID) { throw ProtocolError(.badRequest, ["reason": "two-factor sign-in is on already"]) }
                try db.run(
                    "INSERT INTO two_factor (account_id, secret, enabled, last_step) VALUES (?, ?, 0, 0) ON CONFLICT (account_id) DO UPDATE SET secret = excluded.secret, enabled = 0, last_step = 0",
                    [.text(session.accountID), .blob(secret)])
            }
        }
        return TwoFactorEnrolReply(secret: Data(secret))
    }

    /// Turns two-factor sign-in on with a code for the pending secret; answers the ten recovery codes.
    func confirmTwoFactor(_ session: Session, code: String) throws -> RecoveryCodesReply {
        try pool.with { db in
            try db.transaction {
                guard try TwoFactor.acceptCode(db, session.accountID, code, pending: true) else { throw ProtocolError(.twoFactorCodeWrong) }
                try db.run("UPDATE two_factor SET enabled = 1 WHERE account_id = ?", [.text(session.accountID)])
                let codes = try TwoFactor.newRecoveryCodes(db, session.accountID)
                try Self.record(db, session.accountID, "twoFactorOn", address: session.address, device: session.deviceName)
                return RecoveryCodesReply(codes: codes)
            }
        }
    }

    /// Turns two-factor sign-in off, after a fresh proof of the sign-in key.
    func disableTwoFactor(_ session: Session, _ proof: FreshProof) throws {
        try pool.with { db in
            try verifyFreshProof(db, session, challengeID: proof.challengeID, signature: proof.signature, label: SignInTranscript.twoFactorOffLabel)
            try db.transaction {
                try db.run("DELETE FROM two_factor WHERE account_id = ?", [.text(session.accountID)])
                try db.run("DELETE FROM remembered_devices WHERE account_id = ?", [.text(session.accountID)])
                try db.run("DELETE FROM recovery_codes WHERE account_id = ?", [.text(session.accountID)])
                try Self.record(db, session.accountID, "twoFactorOff", address: session.address, device: session.deviceName)
            }
        }
    }
}
