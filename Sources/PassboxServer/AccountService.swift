import Foundation
import PassboxCrypto
import PassboxProtocol
import PassboxSQLite

/// The account operations of the server: sign-up, prelogin, challenge sign-in with Ed25519, sessions.
/// Everything lives in the database (no state in the process), so several server processes on one
/// database answer as one.
struct AccountService: Sendable {
    let pool: ConnectionPool
    /// The server's origin as clients reach it (`https://vault.example.org`); part of what they sign.
    let origin: OriginHolder
    /// Who may make an account.
    var signup: SignupMode = .open
    /// Challenges one address may ask for per minute (each is a synced write).
    var challengesPerMinute = 300
    /// What a new account must at least use (the same floor as the client's).
    static let kdfFloor = KDFParameters(memoryKiB: 64 * 1024, passes: 3, lanes: 1)
    /// What an unknown email's prelogin answers (the parameters new accounts get).
    static let newAccountKDF = KDFParameters(memoryKiB: 128 * 1024, passes: 4, lanes: 1)
    static let challengeLifetime: TimeInterval = 60
    static let crockford = Set("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
    /// A valid Ed25519 public key nobody holds the private half of (made once per process).
    static let standInKey: [UInt8] = (try? SigningKey.generate().publicKey) ?? [UInt8](repeating: 0, count: 32)


    /// A signed-in request's session.
    struct Session {
        let accountID: String
        let tokenHash: [UInt8]
        let deviceID: String
        let deviceName: String
        let address: String
    }

    func signup(_ request: SignupRequest, address: String) throws -> SignupReply {
        let email = try Self.checkedEmail(request.email)
        guard request.accountID.utf8.count == 6, request.accountID.utf8.allSatisfy(Self.crockford.contains) else {
            throw ProtocolError(.badRequest, ["reason": "accountID must be six Crockford base32 characters"])
        }
        guard request.salt.count == 16 else { throw ProtocolError(.badRequest, ["reason": "salt must be 16 bytes"]) }
        guard request.signInPublicKey.count == 32 else { throw ProtocolError(.badRequest, ["reason": "signInPublicKey must be 32 bytes"]) }
        guard request.keyset.count > 0, request.keyset.count <= 64 * 1024 else {
            throw ProtocolError(.badRequest, ["reason": "keyset must be 1 byte to 64 KiB"])
        }
        let kdf = request.kdf
        guard kdf.memoryKiB >= Self.kdfFloor.memoryKiB, kdf.passes >= Self.kdfFloor.passes, kdf.lanes >= 1,
            kdf.memoryKiB <= 4 * 1024 * 1024, kdf.passes <= 64, kdf.lanes <= 16
        else { throw ProtocolError(.badRequest, ["reason": "kdf parameters below the floor (64 MiB, 3 passes) or above the ceiling"]) }
        return try pool.with { db in
            try db.transaction {
                switch signup {
                case .closed: throw ProtocolError(.signupClosed)
                case .invite: try Self.useInvitation(db, request.invitation, email: email)
                case .open: break
                }
                if try !db.rows("SELECT 1 FROM accounts WHERE email = ?", [.text(email)]).isEmpty { throw ProtocolError(.accountExists) }
                if try !db.rows("SELECT 1 FROM accounts WHERE id = ?", [.text(request.accountID)]).isEmpty {
                    throw ProtocolError(.accountIDTaken)
                }
                try db.run(
                    """
                    INSERT INTO accounts (id, email, salt, kdf_memory, kdf_passes, kdf_lanes, signin_public_key, keyset, created)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .text(request.accountID), .text(email), .blob(Array(request.salt)), .integer(Int64(kdf.memoryKiB)),
                        .integer(Int64(kdf.passes)), .integer(Int64(kdf.lanes)), .blob(Array(request.signInPublicKey)),
                        .blob(Array(request.keyset)), .integer(milliseconds(Date())),
                    ])
                try Self.record(db, request.accountID, "signup", address: address, device: "")
                return SignupReply(accountID: request.accountID)
            }
        }
    }

    func prelogin(_ request: PreloginRequest) throws -> PreloginReply {
        let email = try Self.checkedEmail(request.email)
        return try pool.with { db in
            // An unknown email gets a salt that stays the same for the email (from the server's secret) and the
            // parameters a new account would have, so the answer looks like a real account's. The fake salt is
            // worked out for every email, so known and unknown ones take the same steps.
            let secret = try Self.serverSecret(db)
            let fake = HMAC.authenticationCode(.sha256, key: secret, message: Array("passbox/v1/prelogin-salt|\(email)".utf8))
            if let row = try db.rows("SELECT salt, kdf_memory, kdf_passes, kdf_lanes FROM accounts WHERE email = ?", [.text(email)]).first {
                return PreloginReply(salt: Data(row[0].blob ?? []), kdf: Self.kdf(row[1], row[2], row[3]))
            }
            return PreloginReply(salt: Data(fake.prefix(16)), kdf: Self.newAccountKDF)
        }
    }

    func challenge(_ request: ChallengeRequest, address: String) throws -> ChallengeReply {
        let email = try Self.checkedEmail(request.email)
        let device = try Self.checkedDeviceID(request.deviceID)
        let challenge = SecureRandom.bytes(count: 32)
        let id = SecureRandom.bytes(count: 16).map { String(format: "%02x", $0) }.joined()
        let now = Date()
        try pool.with { db in
            try db.transaction {
                try RateLimiter.countRequest(db, key: "challenges:" + address, limit: challengesPerMinute, window: 60, now: now)
                try db.run("DELETE FROM challenges WHERE expires < ?", [.integer(milliseconds(now))])
                try db.run(
                    "INSERT INTO challenges (id, email, device_id, challenge, expires) VALUES (?, ?, ?, ?, ?)",
                    [.text(id), .text(email), .text(device), .blob(challenge), .integer(milliseconds(now + Self.challengeLifetime))])
            }
        }
        return ChallengeReply(challengeID: id, challenge: Data(challenge))
    }

    func signin(_ request: SigninRequest, address: String) throws -> SigninReply {
        let email = try Self.checkedEmail(request.email)
        let device = try Self.checkedDeviceID(request.deviceID)
        let name = String(request.deviceName.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(64).map(Character.init))
        return try pool.with { db in
            try RateLimiter.check(db, email: email, address: address)
            let challenge = try Self.consumeChallenge(db, request.challengeID, email: email, device: device)
            let account = try db.rows("SELECT id, signin_public_key, keyset FROM accounts WHERE email = ?", [.text(email)]).first
            let transcript = SignInTranscript.bytes(origin: origin.current, email: email, challenge: challenge, deviceID: device)
            // An unknown email's signature is checked against a stand-in key, so it takes the same verification.
            let verified = SigningKey.isValidSignature(Array(request.signature), for: transcript, publicKey: account?[1].blob ?? Self.standInKey)
            guard let account, let accountID = account[0].text, verified else {
                // Counted for unknown emails too, so the limit tells nothing about which exist.
                try db.transaction {
                    try RateLimiter.recordFailure(db, email: email, address: address)
                    if let id = account?[0].text { try Self.record(db, id, "signinFailed", address: address, device: name) }
                }
                throw ProtocolError(.signInFailed)
            }
            // The second factor, when the account has it: a code of the app, or one unused recovery code.
            var rememberToken: String?
            if try TwoFactor.enabled(db, accountID), try !TwoFactor.isRemembered(db, accountID, device: device, token: request.rememberToken) {
                let otp = request.otp.flatMap { $0.isEmpty ? nil : $0 }, recovery = request.recoveryCode.flatMap { $0.isEmpty ? nil : $0 }
                guard otp != nil || recovery != nil else { throw ProtocolError(.twoFactorRequired) }
                let accepted = try db.transaction {
                    try (otp.map { try TwoFactor.acceptCode(db, accountID, $0) } ?? false)
                        || (recovery.map { try TwoFactor.acceptRecoveryCode(db, accountID, $0) } ?? false)
                }
                guard accepted else {
                    try db.transaction {
                        try RateLimiter.recordFailure(db, email: email, address: address)
                        try Self.record(db, accountID, "signinFailed", address: address, device: name)
                    }
                    throw ProtocolError(.twoFactorCodeWrong)
                }
                if request.rememberDevice == true { rememberToken = try TwoFactor.remember(db, accountID, device: device) }
            }
            let token = SecureRandom.bytes(count: 32)
            let text = Data(token).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            let now = milliseconds(Date())
            try db.transaction {
                // One session per device: signing in again replaces the device's earlier session.
                try db.run("DELETE FROM sessions WHERE account_id = ? AND device_id = ?", [.text(accountID), .text(device)])
                try db.run(
                    "INSERT INTO sessions (token_hash, account_id, device_id, device_name, created, last_seen, address) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [.blob(Hash.sha256(Array(text.utf8))), .text(accountID), .text(device), .text(name), .integer(now), .integer(now), .text(address)])
                try RateLimiter.recordSuccess(db, email: email)
                try Self.record(db, accountID, "signin", address: address, device: name)
            }
            return SigninReply(token: text, accountID: accountID, keyset: Data(account[2].blob ?? []), rememberToken: rememberToken)
        }
    }

    /// The session a bearer token names (its last use and address updated), or `notSignedIn`.
    func session(token: String?, address: String) throws -> Session {
        guard let token, !token.isEmpty, token.utf8.count <= 128 else { throw ProtocolError(.notSignedIn) }
        let hash = Hash.sha256(Array(token.utf8))
        return try pool.with { db in
            guard let row = try db.rows("SELECT account_id, device_id, device_name, last_seen, address FROM sessions WHERE token_hash = ?", [.blob(hash)]).first,
                let id = row[0].text
            else { throw ProtocolError(.notSignedIn) }
            // "Last seen" is kept to the minute: a read that finds it fresh and from the same address writes
            // nothing (a write per request cost a synced commit each).
            let now = milliseconds(Date())
            if now - (row[3].integer ?? 0) >= 60_000 || row[4].text != address {
                try db.run("UPDATE sessions SET last_seen = ?, address = ? WHERE token_hash = ?", [.integer(now), .text(address), .blob(hash)])
            }
            return Session(accountID: id, tokenHash: hash, deviceID: row[1].text ?? "", deviceName: row[2].text ?? "", address: address)
        }
    }

    func account(_ session: Session) throws -> AccountReply {
        try pool.with { db in
            guard let row = try db.rows("SELECT email, created, kdf_memory, kdf_passes, kdf_lanes FROM accounts WHERE id = ?", [.text(session.accountID)]).first
            else { throw ProtocolError(.notSignedIn) }
            let devices = try db.rows(
                "SELECT device_id, device_name, created, last_seen, address, token_hash FROM sessions WHERE account_id = ? ORDER BY last_seen DESC",
                [.text(session.accountID)]
            ).map {
                DeviceSession(
                    deviceID: $0[0].text ?? "", name: $0[1].text ?? "", signedIn: date(milliseconds: $0[2].integer ?? 0),
                    lastSeen: date(milliseconds: $0[3].integer ?? 0), address: $0[4].text ?? "", isCurrent: $0[5].blob == session.tokenHash)
            }
            return AccountReply(
                accountID: session.accountID, email: row[0].text ?? "", created: date(milliseconds: row[1].integer ?? 0),
                kdf: Self.kdf(row[2], row[3], row[4]), devices: devices)
        }
    }

    func signout(_ session: Session) throws {
        try pool.with { db in
            try db.transaction {
                try db.run("DELETE FROM sessions WHERE token_hash = ?", [.blob(session.tokenHash)])
                try Self.record(db, session.accountID, "signout", address: session.address, device: session.deviceName)
            }
        }
    }

    /// A new master password: verified with the current sign-in key over a fresh challenge of this device,
    /// then salt, parameters, public key and keyset replaced and every other session signed out.
    func changePassword(_ session: Session, _ request: PasswordChangeRequest) throws {
        guard request.salt.count == 16, request.signInPublicKey.count == 32, request.keyset.count > 0, request.keyset.count <= 64 * 1024 else {
            throw ProtocolError(.badRequest, ["reason": "salt, signInPublicKey or keyset has the wrong size"])
        }
        let kdf = request.kdf
        guard kdf.memoryKiB >= Self.kdfFloor.memoryKiB, kdf.passes >= Self.kdfFloor.passes, kdf.lanes >= 1,
            kdf.memoryKiB <= 4 * 1024 * 1024, kdf.passes <= 64, kdf.lanes <= 16
        else { throw ProtocolError(.badRequest, ["reason": "kdf parameters below the floor (64 MiB, 3 passes) or above the ceiling"]) }
        try pool.with { db in
            guard let account = try db.rows("SELECT email, signin_public_key FROM accounts WHERE id = ?", [.text(session.accountID)]).first,
                let email = account[0].text
            else { throw ProtocolError(.notSignedIn) }
            try Self.verifyFreshProof(
                db, session, email: email, publicKey: account[1].blob ?? [], challengeID: request.challengeID, signature: request.signature,
                label: SignInTranscript.passwordChangeLabel, origin: origin.current)
            try db.transaction {
                try db.run(
                    "UPDATE accounts SET salt = ?, kdf_memory = ?, kdf_passes = ?, kdf_lanes = ?, signin_public_key = ?, keyset = ? WHERE id = ?",
                    [
                        .blob(Array(request.salt)), .integer(Int64(kdf.memoryKiB)), .integer(Int64(kdf.passes)), .integer(Int64(kdf.lanes)),
                        .blob(Array(request.signInPublicKey)), .blob(Array(request.keyset)), .text(session.accountID),
                    ])
                try db.run("DELETE FROM sessions WHERE account_id = ? AND token_hash != ?", [.text(session.accountID), .blob(session.tokenHash)])
                try Self.record(db, session.accountID, "passwordChanged", address: session.address, device: session.deviceName)
            }
        }
    }

    /// Checks a fresh proof of the current sign-in key: a signature with the operation's `label` over a new
    /// challenge of this session's device (used once), rate-limited like sign-in.
    static func verifyFreshProof(
        _ db: Database, _ session: Session, email: String, publicKey: [UInt8], challengeID: String, signature: Data, label: String, origin: String
    ) throws {
        try RateLimiter.check(db, email: email, address: session.address)
        let challenge = try consumeChallenge(db, challengeID, email: email, device: session.deviceID)
        let transcript = SignInTranscript.bytes(label: label, origin: origin, email: email, challenge: challenge, deviceID: session.deviceID)
        guard SigningKey.isValidSignature(Array(signature), for: transcript, publicKey: publicKey) else {
            try RateLimiter.recordFailure(db, email: email, address: session.address)
            throw ProtocolError(.signInFailed)
        }
    }

    /// Takes a challenge out of the database (it serves one try, right or wrong) and answers its bytes, or
    /// `challengeExpired` when it is unknown, past its minute, or for another email or device.
    static func consumeChallenge(_ db: Database, _ id: String, email: String, device: String) throws -> [UInt8] {
        let found = try db.transaction { () -> Row? in
            let row = try db.rows("SELECT email, device_id, challenge, expires FROM challenges WHERE id = ?", [.text(id)]).first
            try db.run("DELETE FROM challenges WHERE id = ?", [.text(id)])
            return row
        }
        guard let found, (found[3].integer ?? 0) >= milliseconds(Date()), found[0].text == email, found[1].text == device, let bytes = found[2].blob else {
            throw ProtocolError(.challengeExpired)
        }
        return bytes
    }

    // MARK: Two-factor sign-in

    func twoFactorStatus(_ session: Session) throws -> TwoFactorStatus {
        try pool.with { db in
            let left = try db.rows("SELECT count(*) FROM recovery_codes WHERE account_id = ? AND used IS NULL", [.text(session.accountID)]).first?[0].integer ?? 0
            return TwoFactorStatus(enabled: try TwoFactor.enabled(db, session.accountID), recoveryCodesLeft: Int(left))
        }
    }

    /// A new pending secret (replacing a pending one; refused while two-factor sign-in is on).
    func enrolTwoFactor(_ session: Session) throws -> TwoFactorEnrolReply {
        let secret = SecureRandom.bytes(count: 20)
        try pool.with { db in
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
            guard let account = try db.rows("SELECT email, signin_public_key FROM accounts WHERE id = ?", [.text(session.accountID)]).first,
                let email = account[0].text
            else { throw ProtocolError(.notSignedIn) }
            try Self.verifyFreshProof(
                db, session, email: email, publicKey: account[1].blob ?? [], challengeID: proof.challengeID, signature: proof.signature,
                label: SignInTranscript.twoFactorOffLabel, origin: origin.current)
            try db.transaction {
                try db.run("DELETE FROM two_factor WHERE account_id = ?", [.text(session.accountID)])
                try db.run("DELETE FROM remembered_devices WHERE account_id = ?", [.text(session.accountID)])
                try db.run("DELETE FROM recovery_codes WHERE account_id = ?", [.text(session.accountID)])
                try Self.record(db, session.accountID, "twoFactorOff", address: session.address, device: session.deviceName)
            }
        }
    }

    /// Signs out one other device of the account (by its id), or every other one.
    func signoutDevice(_ session: Session, deviceID: String?) throws -> Int {
        try pool.with { db in
            try db.transaction {
                let named = try db.rows(
                    deviceID == nil
                        ? "SELECT device_id, device_name FROM sessions WHERE account_id = ? AND token_hash != ?"
                        : "SELECT device_id, device_name FROM sessions WHERE account_id = ? AND token_hash != ? AND device_id = ?",
                    [.text(session.accountID), .blob(session.tokenHash)] + (deviceID.map { [.text($0)] } ?? []))
                if let deviceID, named.isEmpty { throw ProtocolError(.deviceNotFound, ["device": deviceID]) }
                for row in named {
                    try db.run("DELETE FROM sessions WHERE account_id = ? AND device_id = ?", [.text(session.accountID), row[0]])
                    try Self.record(db, session.accountID, "deviceSignedOut", address: session.address, device: row[1].text ?? "")
                }
                return named.count
            }
        }
    }

    /// The account's last 50 events, newest first.
    func activity(_ session: Session) throws -> ActivityReply {
        try pool.with { db in
            let rows = try db.rows(
                "SELECT kind, at, address, device_name FROM events WHERE account_id = ? ORDER BY at DESC, id DESC LIMIT 50", [.text(session.accountID)])
            return ActivityReply(events: rows.map {
                ActivityEvent(kind: $0[0].text ?? "", at: date(milliseconds: $0[1].integer ?? 0), address: $0[2].text ?? "", deviceName: $0[3].text ?? "")
            })
        }
    }

    /// Records an event, keeping an account's newest 200.
    static func record(_ db: Database, _ accountID: String, _ kind: String, address: String, device: String) throws {
        try db.run(
            "INSERT INTO events (account_id, kind, at, address, device_name) VALUES (?, ?, ?, ?, ?)",
            [.text(accountID), .text(kind), .integer(milliseconds(Date())), .text(address), .text(device)])
        try db.run(
            "DELETE FROM events WHERE account_id = ? AND id NOT IN (SELECT id FROM events WHERE account_id = ? ORDER BY id DESC LIMIT 200)",
            [.text(accountID), .text(accountID)])
    }

    /// Marks an invitation used (inside the sign-up's transaction, so a failed sign-up leaves it unused), or
    /// says why it cannot be: missing, unknown, used, expired, or for another email.
    static func useInvitation(_ db: Database, _ token: String?, email: String) throws {
        guard let token, !token.isEmpty, token.utf8.count <= 128 else { throw ProtocolError(.invitationInvalid, ["reason": "missing"]) }
        let hash = Hash.sha256(Array(token.utf8))
        guard let row = try db.rows("SELECT email, expires, used FROM invitations WHERE token_hash = ?", [.blob(hash)]).first else {
            throw ProtocolError(.invitationInvalid, ["reason": "unknown"])
        }
        if !row[2].isNull { throw ProtocolError(.invitationInvalid, ["reason": "used"]) }
        if (row[1].integer ?? 0) < milliseconds(Date()) { throw ProtocolError(.invitationInvalid, ["reason": "expired"]) }
        if row[0].text != email { throw ProtocolError(.invitationInvalid, ["reason": "otherEmail"]) }
        try db.run("UPDATE invitations SET used = ? WHERE token_hash = ?", [.integer(milliseconds(Date())), .blob(hash)])
    }

    /// A new single-use invitation for `email`, good for `days`; the token is returned once and stored as its
    /// SHA-256 only.
    static func invite(_ db: Database, email: String, days: Int) throws -> String {
        let email = try checkedEmail(email)
        let token = Data(SecureRandom.bytes(count: 24)).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let now = Date()
        try db.run(
            "INSERT INTO invitations (token_hash, email, created, expires, used) VALUES (?, ?, ?, ?, NULL)",
            [.blob(Hash.sha256(Array(token.utf8))), .text(email), .integer(milliseconds(now)), .integer(milliseconds(now + Double(days) * 86_400))])
        return token
    }

    // MARK: Checks

    static func checkedEmail(_ email: String) throws -> String {
        let normalized = SignInTranscript.normalizedEmail(email)
        let bytes = Array(normalized.utf8)
        guard bytes.count >= 3, bytes.count <= 254, let at = bytes.firstIndex(of: UInt8(ascii: "@")), at > 0, at < bytes.count - 1,
            !bytes.contains(where: { $0 < 0x21 || $0 == 0x7F })
        else { throw ProtocolError(.badRequest, ["reason": "not an email address"]) }
        return normalized
    }

    static func checkedDeviceID(_ id: String) throws -> String {
        guard !id.isEmpty, id.utf8.count <= 64, id.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw ProtocolError(.badRequest, ["reason": "deviceID must be 1 to 64 printable ASCII characters"])
        }
        return id
    }

    static func kdf(_ memory: Value, _ passes: Value, _ lanes: Value) -> KDFParameters {
        KDFParameters(memoryKiB: UInt32(clamping: memory.integer ?? 0), passes: UInt32(clamping: passes.integer ?? 0), lanes: UInt8(clamping: lanes.integer ?? 0))
    }

    /// The server's own 32-byte secret (made once, kept in the database so every server process shares it).
    static func serverSecret(_ db: Database) throws -> [UInt8] {
        if let kept = try db.rows("SELECT value FROM server_secrets WHERE name = 'prelogin'").first?[0].blob, kept.count == 32 { return kept }
        try db.run("INSERT OR IGNORE INTO server_secrets (name, value) VALUES ('prelogin', ?)", [.blob(SecureRandom.bytes(count: 32))])
        return try db.rows("SELECT value FROM server_secrets WHERE name = 'prelogin'").first?[0].blob ?? []
    }
}
