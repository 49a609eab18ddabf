import Foundation
import PassboxCrypto
import PassboxServerAPI
import PassboxSQL

/// Account recovery (security.md §4a): the server keeps the recovery code's public key and the recovery blob
/// (ciphertext it cannot open). A recovery proves the code twice over fresh challenges — once to fetch the
/// blob, once to set new credentials — then every session ends and the used code is revoked.
extension AccountService {
    func recoveryStatus(_ session: Session) throws -> RecoveryStatus {
        try pool.with { db in
            let row = try db.rows("SELECT created FROM account_recovery WHERE account_id = ?", [.text(session.accountID)]).first
            var status = RecoveryStatus(configured: row != nil, created: row.map { date(milliseconds: $0[0].integer ?? 0) })
            // The families whose owners may help this account back in (ACC-11).
            let families = try db.rows("SELECT org_id FROM org_recovery_optins WHERE account_id = ? ORDER BY org_id", [.text(session.accountID)]).compactMap { $0[0].text }
            status.organisations = families.isEmpty ? nil : families
            return status
        }
    }

    func setUpRecovery(_ session: Session, _ request: RecoverySetupRequest) throws {
        guard request.publicKey.count == 32, request.blob.count > 0, request.blob.count <= 64 * 1024 else {
            throw ProtocolError(.badRequest, ["reason": "publicKey or blob has the wrong size"])
        }
        try pool.with { db in
            try verifyFreshProof(db, session, challengeID: request.proof.challengeID, signature: request.proof.signature, label: SignInTranscript.recoverySetupLabel)
            try db.transaction {
                try db.run(
                    "INSERT INTO account_recovery (account_id, public_key, blob, created) VALUES (?, ?, ?, ?) ON CONFLICT (account_id) DO UPDATE SET public_key = excluded.public_key, blob = excluded.blob, created = excluded.created",
                    [.text(session.accountID), .blob(Array(request.publicKey)), .blob(Array(request.blob)), .integer(milliseconds(Date()))])
                try Self.record(db, session.accountID, "recoverySetUp", address: session.address, device: session.deviceName)
            }
        }
    }

    /// Checks a recovery proof (rate-limited like sign-in; a wrong code, no code set up and an unknown email
    /// fail alike); answers the account id and the recovery blob.
    func verifyRecovery(_ db: any SQLConnection, _ proof: RecoveryProof, address: String) throws -> (accountID: String, blob: [UInt8], publicKey: [UInt8]) {
        let email = try Self.checkedEmail(proof.email)
        let device = try Self.checkedDeviceID(proof.deviceID)
        try RateLimiter.check(db, .recovery, email: email, address: address)
        let challenge = try Self.consumeChallenge(db, proof.challengeID, email: email, device: device)
        let row = try db.rows(
            "SELECT a.id, r.public_key, r.blob FROM accounts a JOIN account_recovery r ON r.account_id = a.id WHERE a.email = ?", [.text(email)]
        ).first
        let transcript = SignInTranscript.bytes(
            label: SignInTranscript.recoveryLabel, origin: origin.current, email: email, challenge: challenge, deviceID: device)
        guard let row, let accountID = row[0].text, SigningKey.isValidSignature(Array(proof.signature), for: transcript, publicKey: row[1].blob ?? [])
        else {
            try db.transaction {
                try RateLimiter.recordFailure(db, .recovery, email: email, address: address)
                // A failed recovery of an existing account shows in its Activity and on every device.
                if let id = try db.rows("SELECT id FROM accounts WHERE email = ?", [.text(email)]).first?[0].text {
                    try Self.record(db, id, "recoveryFailed", address: address, device: "")
                }
            }
            throw ProtocolError(.signInFailed)
        }
        return (accountID, row[2].blob ?? [], row[1].blob ?? [])
    }

    func recoveryBlob(_ proof: RecoveryProof, address: String) throws -> RecoveryBlobReply {
        try pool.with { db in
            let (accountID, blob, _) = try verifyRecovery(db, proof, address: address)
            // Fetching the blob is recorded even if the recovery is never completed.
            try Self.record(db, accountID, "recoveryStarted", address: address, device: "")
            return RecoveryBlobReply(accountID: accountID, blob: Data(blob))
        }
    }

    func completeRecovery(_ request: RecoveryCompleteRequest, address: String) throws -> SigninReply {
        try Self.checkCredentials(salt: request.salt, signInPublicKey: request.signInPublicKey, keyset: request.keyset, kdf: request.kdf)
        let name = Self.cleanedDeviceName(request.deviceName)
        return try pool.with { db in
            let (accountID, _, publicKey) = try verifyRecovery(db, request.proof, address: address)
            let text = try db.transaction { () -> String in
                // The code is used up first, in one statement: two completions racing with the same code (on two
                // servers, or on PostgreSQL) cannot both replace the credentials.
                let used = try db.run("DELETE FROM account_recovery WHERE account_id = ? AND public_key = ?", [.text(accountID), .blob(publicKey)])
                guard used == 1 else { throw ProtocolError(.signInFailed) }
                try Self.replaceCredentials(
                    db, accountID: accountID, salt: request.salt, kdf: request.kdf, signInPublicKey: request.signInPublicKey, keyset: request.keyset)
                // Every session ends and the used code is revoked; this device is signed in.
                try db.run("DELETE FROM sessions WHERE account_id = ?", [.text(accountID)])
                try db.run("DELETE FROM remembered_devices WHERE account_id = ?", [.text(accountID)])
                let text = try Self.openSession(db, accountID: accountID, device: request.proof.deviceID, name: name, address: address)
                try RateLimiter.recordSuccess(db, .recovery, email: SignInTranscript.normalizedEmail(request.proof.email), address: address)
                try Self.record(db, accountID, "recovered", address: address, device: name)
                return text
            }
            return SigninReply(token: text, accountID: accountID, keyset: request.keyset)
        }
    }
}
