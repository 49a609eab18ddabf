import Foundation
import PassboxCrypto
import PassboxManifest
import PassboxServerAPI
import PassboxSQL

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
    /// Accounts one address (an IPv6 /64) may make per hour, and all addresses together.
    var signupsPerAddressPerHour = 10
    var signupsPerHour = 200
    /// The account's storage quota, reported with the account.
    var quota = StorageQuota(bytes: 1024 << 20)
    /// A session unused this long ends (each sync, live update or request refreshes it, to the minute).
    static let sessionIdleLifetime: TimeInterval = 30 * 86_400
    /// What a new account must at least use (the client's floor too; the tests' cheap one under
    /// PASSBOX_TEST_ACCOUNT_KDF in a debug build: `AccountKDFParameters`).
    static var kdfFloor: KDFParameters { wire(AccountKDFParameters.floor) }
    /// What an unknown email's prelogin answers (the parameters new accounts get).
    static var newAccountKDF: KDFParameters { wire(AccountKDFParameters.newAccount) }
    static func wire(_ p: Argon2Parameters) -> KDFParameters { KDFParameters(memoryKiB: p.memoryKiB, passes: p.passes, lanes: p.lanes) }
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
        try Self.checkCredentials(salt: request.salt, signInPublicKey: request.signInPublicKey, keyset: request.keyset, kdf: request.kdf)
        let kdf = request.kdf
        do {
            return try pool.with { db in
                try db.transaction {
                    switch signup {
                    case .closed: throw ProtocolError(.signupClosed)
                    case .invite: try Self.useInvitation(db, request.invitation, email: email)
                    case .open: break
                    }
                    // Each account is rows and a keyset on disk: open sign-up is bounded per address and overall
                    // (a refused sign-up is not counted: the transaction rolls its count back).
                    try RateLimiter.countRequest(db, key: "signups:" + RateLimiter.key(for: address), limit: signupsPerAddressPerHour, window: 3600)
                    try RateLimiter.countRequest(db, key: "signups:all", limit: signupsPerHour, window: 3600)
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
        } catch let error as SQLEngineError where error.isUniqueViolation {
            // Two sign-ups raced past the checks above (on PostgreSQL, or two server processes): the database's
            // unique keys decided, and the loser hears what it would have heard a moment later.
            let emailTaken = (try? pool.with { try !$0.rows("SELECT 1 FROM accounts WHERE email = ?", [.text(email)]).isEmpty }) ?? true
            throw ProtocolError(emailTaken ? .accountExists : .accountIDTaken)
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
                // Expired challenges are refused by their time anyway; clearing them out is housekeeping that one
                // request in 32 does (a statement fewer for the rest).
                if SecureRandom.uniform(32) == 0 { try db.run("DELETE FROM challenges WHERE expires < ?", [.integer(milliseconds(now))]) }
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
        let name = Self.cleanedDeviceName(request.deviceName)
        // A failed answer waits out the account-wide slowdown: the router answers it later, holding neither a
        // connection of the pool nor a handler thread meanwhile.
        var slowdown: TimeInterval = 0
        do {
            return try signin(request, email: email, device: device, name: name, address: address, slowdown: &slowdown)
        } catch let error as ProtocolError where slowdown > 0 {
            throw SlowedAnswer(error: error, seconds: slowdown)
        }
    }

    /// An error whose answer is to wait `seconds` (the account-wide slowdown of failed sign-ins).
    struct SlowedAnswer: Error {
        let error: ProtocolError
        let seconds: TimeInterval
    }

    private func signin(_ request: SigninRequest, email: String, device: String, name: String, address: String, slowdown: inout TimeInterval) throws -> SigninReply {
        try pool.with { db in
            try RateLimiter.check(db, email: email, address: address)
            let challenge = try Self.consumeChallenge(db, request.challengeID, email: email, device: device)
            let account = try db.rows("SELECT id, signin_public_key, keyset FROM accounts WHERE email = ?", [.text(email)]).first
            let transcript = SignInTranscript.bytes(origin: origin.current, email: email, challenge: challenge, deviceID: device)
            // An unknown email's signature is checked against a stand-in key, so it takes the same verification.
            let verified = SigningKey.isValidSignature(Array(request.signature), for: transcript, publicKey: account?[1].blob ?? Self.standInKey)
            guard let account, let accountID = account[0].text, verified else {
                // Counted for unknown emails too, so the limit tells nothing about which exist.
                try db.transaction {
                    slowdown = try RateLimiter.recordFailure(db, email: email, address: address)
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
                        slowdown = try RateLimiter.recordFailure(db, email: email, address: address)
                        try Self.record(db, accountID, "signinFailed", address: address, device: name)
                    }
                    throw ProtocolError(.twoFactorCodeWrong)
                }
                if request.rememberDevice == true { rememberToken = try TwoFactor.remember(db, accountID, device: device) }
            }
            let text = try db.transaction { () -> String in
                // One session per device: signing in again replaces the device's earlier session.
                let text = try Self.openSession(db, accountID: accountID, device: device, name: name, address: address)
                try RateLimiter.recordSuccess(db, email: email, address: address)
                try Self.record(db, accountID, "signin", address: address, device: name)
                return text
            }
            return SigninReply(token: text, accountID: accountID, keyset: Data(account[2].blob ?? []), rememberToken: rememberToken)
        }
    }

    /// The session a bearer token names (its last use and address updated), or `notSignedIn`.
    func session(token: String?, address: String) throws -> Session {
        try pool.with { db in try Self.session(db, token: token, address: address) }
    }

    static func session(_ db: any SQLConnection, token: String?, address: String) throws -> Session {
        guard let token, !token.isEmpty, token.utf8.count <= 128 else { throw ProtocolError(.notSignedIn) }
        let hash = Hash.sha256(Array(token.utf8))
        guard let row = try db.rows("SELECT account_id, device_id, device_name, last_seen, address FROM sessions WHERE token_hash = ?", [.blob(hash)]).first,
            let id = row[0].text
        else { throw ProtocolError(.notSignedIn) }
        let now = milliseconds(Date())
        // A session unused for 30 days has ended: a token found on an old disk or backup opens nothing.
        if now - (row[3].integer ?? 0) > Int64(sessionIdleLifetime * 1000) {
            try db.run("DELETE FROM sessions WHERE token_hash = ?", [.blob(hash)])
            throw ProtocolError(.notSignedIn)
        }
        // "Last seen" is kept to the minute: a read that finds it fresh and from the same address writes
        // nothing (a write per request cost a synced commit each).
        if now - (row[3].integer ?? 0) >= 60_000 || row[4].text != address {
            try db.run("UPDATE sessions SET last_seen = ?, address = ? WHERE token_hash = ?", [.integer(now), .text(address), .blob(hash)])
        }
        return Session(accountID: id, tokenHash: hash, deviceID: row[1].text ?? "", deviceName: row[2].text ?? "", address: address)
    }

    /// The account of the session a bearer token names: the session and the account read with one connection
    /// (one turn of the group commit on SQLite).
    func account(token: String?, address: String) throws -> AccountReply {
        try pool.with { db in
            var reply = try Self.account(db, Self.session(db, token: token, address: address))
            reply.storage = try quota.use(db, account: reply.accountID)
            return reply
        }
    }

    static func account(_ db: any SQLConnection, _ session: Session) throws -> AccountReply {
        // The account and its devices in one query (one round trip on PostgreSQL).
        let rows = try db.rows(
            """
            SELECT a.email, a.created, a.kdf_memory, a.kdf_passes, a.kdf_lanes,
                   s.device_id, s.device_name, s.created, s.last_seen, s.address, s.token_hash, d.attestation
            FROM accounts a LEFT JOIN sessions s ON s.account_id = a.id
            LEFT JOIN device_attestations d ON d.account_id = s.account_id AND d.device_id = s.device_id
            WHERE a.id = ? ORDER BY s.last_seen DESC
            """, [.text(session.accountID)])
        guard let first = rows.first else { throw ProtocolError(.notSignedIn) }
        let devices = rows.filter { !$0[5].isNull }.map {
            DeviceSession(
                deviceID: $0[5].text ?? "", name: $0[6].text ?? "", signedIn: date(milliseconds: $0[7].integer ?? 0),
                lastSeen: date(milliseconds: $0[8].integer ?? 0), address: $0[9].text ?? "", isCurrent: $0[10].blob == session.tokenHash,
                attestation: $0[11].blob.map { Data($0) })
        }
        return AccountReply(
            accountID: session.accountID, email: first[0].text ?? "", created: date(milliseconds: first[1].integer ?? 0),
            kdf: kdf(first[2], first[3], first[4]), devices: devices)
    }

    /// `POST /v1/devices/attest`: the session's own device's signed record (the server cannot check the
    /// signature's meaning, only that it is about this device; the devices verify it).
    func attest(_ session: Session, _ request: DeviceAttestRequest) throws {
        guard !request.attestation.isEmpty, request.attestation.count <= 2048 else { throw ProtocolError(.badRequest, ["reason": "an attestation is 1 to 2048 bytes"]) }
        guard let record = try? DeviceAttestation(decoding: request.attestation), record.accountID == session.accountID, record.deviceID == session.deviceID else {
            throw ProtocolError(.badRequest, ["reason": "the attestation is not this device's"])
        }
        try pool.with { db in
            _ = try db.run(
                "INSERT INTO device_attestations (account_id, device_id, attestation) VALUES (?, ?, ?) ON CONFLICT (account_id, device_id) DO UPDATE SET attestation = excluded.attestation",
                [.text(session.accountID), .text(session.deviceID), .blob(Array(request.attestation))])
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
        try Self.checkCredentials(salt: request.salt, signInPublicKey: request.signInPublicKey, keyset: request.keyset, kdf: request.kdf)
        try pool.with { db in
            try verifyFreshProof(db, session, challengeID: request.challengeID, signature: request.signature, label: SignInTranscript.passwordChangeLabel)
            try db.transaction {
                try Self.replaceCredentials(
                    db, accountID: session.accountID, salt: request.salt, kdf: request.kdf, signInPublicKey: request.signInPublicKey, keyset: request.keyset)
                try db.run("DELETE FROM sessions WHERE account_id = ? AND token_hash != ?", [.text(session.accountID), .blob(session.tokenHash)])
                try Self.record(db, session.accountID, "passwordChanged", address: session.address, device: session.deviceName)
            }
        }
    }

    /// Checks a fresh proof of the current sign-in key: a signature with the operation's `label` over a new
    /// challenge of this session's device (used once). Failures count against this session only, so a
    /// stranger's failed sign-ins never lock the owner's signed-in device out of it.
    func verifyFreshProof(_ db: any SQLConnection, _ session: Session, challengeID: String, signature: Data, label: String) throws {
        guard let account = try db.rows("SELECT email, signin_public_key FROM accounts WHERE id = ?", [.text(session.accountID)]).first,
            let email = account[0].text
        else { throw ProtocolError(.notSignedIn) }
        let publicKey = account[1].blob ?? []
        try RateLimiter.checkSession(db, tokenHash: session.tokenHash)
        let challenge = try Self.consumeChallenge(db, challengeID, email: email, device: session.deviceID)
        let transcript = SignInTranscript.bytes(label: label, origin: origin.current, email: email, challenge: challenge, deviceID: session.deviceID)
        guard SigningKey.isValidSignature(Array(signature), for: transcript, publicKey: publicKey) else {
            try RateLimiter.recordSessionFailure(db, tokenHash: session.tokenHash)
            throw ProtocolError(.signInFailed)
        }
    }

    /// Takes a challenge out of the database (it serves one try, right or wrong) and answers its bytes, or
    /// `challengeExpired` when it is unknown, past its minute, or for another email or device.
    static func consumeChallenge(_ db: any SQLConnection, _ id: String, email: String, device: String) throws -> [UInt8] {
        // One statement takes it out and reads it, so two requests racing with the same challenge (on one
        // server or two) cannot both get it.
        let found = try db.rows("DELETE FROM challenges WHERE id = ? RETURNING email, device_id, challenge, expires", [.text(id)]).first
        guard let found, (found[3].integer ?? 0) >= milliseconds(Date()), found[0].text == email, found[1].text == device, let bytes = found[2].blob else {
            throw ProtocolError(.challengeExpired)
        }
        return bytes
    }

    /// Signs out one other device of the account (by its id), or every other one, after a fresh proof of the
    /// sign-in key: a stolen session token alone cannot sign the owner's devices out.
    func signoutDevice(_ session: Session, deviceID: String?, proof: FreshProof) throws -> Int {
        try pool.with { db in
            try verifyFreshProof(db, session, challengeID: proof.challengeID, signature: proof.signature, label: SignInTranscript.deviceSignOutLabel)
            return try db.transaction {
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
    static func record(_ db: any SQLConnection, _ accountID: String, _ kind: String, address: String, device: String) throws {
        try db.run(
            "INSERT INTO events (account_id, kind, at, address, device_name) VALUES (?, ?, ?, ?, ?)",
            [.text(accountID), .text(kind), .integer(milliseconds(Date())), .text(address), .text(device)])
        try db.run(
            "DELETE FROM events WHERE account_id = ? AND id NOT IN (SELECT id FROM events WHERE account_id = ? ORDER BY id DESC LIMIT 200)",
            [.text(accountID), .text(accountID)])
    }
}

