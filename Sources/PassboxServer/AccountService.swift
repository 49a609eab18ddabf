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
    /// What a new account must at least use (the same floor as the client's).
    static let kdfFloor = KDFParameters(memoryKiB: 64 * 1024, passes: 3, lanes: 1)
    /// What an unknown email's prelogin answers (the parameters new accounts get).
    static let newAccountKDF = KDFParameters(memoryKiB: 128 * 1024, passes: 4, lanes: 1)
    static let challengeLifetime: TimeInterval = 60
    static let crockford = Set("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    func signup(_ request: SignupRequest) throws -> SignupReply {
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
                return SignupReply(accountID: request.accountID)
            }
        }
    }

    func prelogin(_ request: PreloginRequest) throws -> PreloginReply {
        let email = try Self.checkedEmail(request.email)
        return try pool.with { db in
            if let row = try db.rows("SELECT salt, kdf_memory, kdf_passes, kdf_lanes FROM accounts WHERE email = ?", [.text(email)]).first {
                return PreloginReply(salt: Data(row[0].blob ?? []), kdf: Self.kdf(row[1], row[2], row[3]))
            }
            // An unknown email: a salt that stays the same for the email (from the server's secret) and the
            // parameters a new account would have, so the answer looks like a real account's.
            let secret = try Self.serverSecret(db)
            let salt = HMAC.authenticationCode(.sha256, key: secret, message: Array("passbox/v1/prelogin-salt|\(email)".utf8))
            return PreloginReply(salt: Data(salt.prefix(16)), kdf: Self.newAccountKDF)
        }
    }

    func challenge(_ request: ChallengeRequest) throws -> ChallengeReply {
        let email = try Self.checkedEmail(request.email)
        let device = try Self.checkedDeviceID(request.deviceID)
        let challenge = SecureRandom.bytes(count: 32)
        let id = SecureRandom.bytes(count: 16).map { String(format: "%02x", $0) }.joined()
        let now = Date()
        try pool.with { db in
            try db.transaction {
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
            // The challenge is removed before anything is checked: it serves one try, right or wrong.
            let found = try db.transaction { () -> Row? in
                let row = try db.rows("SELECT email, device_id, challenge, expires FROM challenges WHERE id = ?", [.text(request.challengeID)]).first
                try db.run("DELETE FROM challenges WHERE id = ?", [.text(request.challengeID)])
                return row
            }
            guard let found, (found[3].integer ?? 0) >= milliseconds(Date()), found[0].text == email, found[1].text == device else {
                throw ProtocolError(.challengeExpired)
            }
            guard let account = try db.rows("SELECT id, signin_public_key, keyset FROM accounts WHERE email = ?", [.text(email)]).first,
                let accountID = account[0].text
            else { throw ProtocolError(.signInFailed) }
            let transcript = SignInTranscript.bytes(origin: origin.current, email: email, challenge: found[2].blob ?? [], deviceID: device)
            guard SigningKey.isValidSignature(Array(request.signature), for: transcript, publicKey: account[1].blob ?? []) else {
                throw ProtocolError(.signInFailed)
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
            }
            return SigninReply(token: text, accountID: accountID, keyset: Data(account[2].blob ?? []))
        }
    }

    /// The session a bearer token names (its last use and address updated), or `notSignedIn`.
    func session(token: String?, address: String) throws -> (accountID: String, tokenHash: [UInt8]) {
        guard let token, !token.isEmpty, token.utf8.count <= 128 else { throw ProtocolError(.notSignedIn) }
        let hash = Hash.sha256(Array(token.utf8))
        return try pool.with { db in
            guard let row = try db.rows("SELECT account_id FROM sessions WHERE token_hash = ?", [.blob(hash)]).first, let id = row[0].text else {
                throw ProtocolError(.notSignedIn)
            }
            try db.run("UPDATE sessions SET last_seen = ?, address = ? WHERE token_hash = ?", [.integer(milliseconds(Date())), .text(address), .blob(hash)])
            return (id, hash)
        }
    }

    func account(_ session: (accountID: String, tokenHash: [UInt8])) throws -> AccountReply {
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

    func signout(_ session: (accountID: String, tokenHash: [UInt8])) throws {
        try pool.with { db in _ = try db.run("DELETE FROM sessions WHERE token_hash = ?", [.blob(session.tokenHash)]) }
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
