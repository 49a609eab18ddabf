import Foundation
import PassboxCrypto
import PassboxServerAPI
import PassboxSQL

/// What the account operations check and share: emails, device ids, new credentials, tokens, sessions.
extension AccountService {
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
    static func serverSecret(_ db: any SQLConnection) throws -> [UInt8] {
        if let kept = try db.rows("SELECT value FROM server_secrets WHERE name = 'prelogin'", []).first?[0].blob, kept.count == 32 { return kept }
        try db.run("INSERT INTO server_secrets (name, value) VALUES ('prelogin', ?) ON CONFLICT (name) DO NOTHING", [.blob(SecureRandom.bytes(count: 32))])
        return try db.rows("SELECT value FROM server_secrets WHERE name = 'prelogin'", []).first?[0].blob ?? []
    }

    /// The largest keyset kept: a real one is about 225 bytes (two key pairs' private halves in an envelope);
    /// 1 KiB leaves room for another key without letting an account park 64 KiB per sign-up.
    static let maximumKeysetBytes = 1024

    /// The sizes and key-derivation parameters of new credentials (sign-up, password change, recovery): a
    /// 16-byte salt, a 32-byte Ed25519 key, a keyset of 1 byte to 1 KiB, parameters between the floor
    /// (64 MiB, 3 passes) and the ceiling.
    static func checkCredentials(salt: Data, signInPublicKey: Data, keyset: Data, kdf: KDFParameters) throws {
        guard salt.count == 16 else { throw ProtocolError(.badRequest, ["reason": "salt must be 16 bytes"]) }
        guard signInPublicKey.count == 32 else { throw ProtocolError(.badRequest, ["reason": "signInPublicKey must be 32 bytes"]) }
        guard keyset.count > 0, keyset.count <= maximumKeysetBytes else { throw ProtocolError(.badRequest, ["reason": "keyset must be 1 to \(maximumKeysetBytes) bytes"]) }
        guard kdf.memoryKiB >= kdfFloor.memoryKiB, kdf.passes >= kdfFloor.passes, kdf.lanes >= 1,
            kdf.memoryKiB <= 4 * 1024 * 1024, kdf.passes <= 64, kdf.lanes <= 16
        else { throw ProtocolError(.badRequest, ["reason": "kdf parameters below the floor (\(kdfFloor.memoryKiB / 1024) MiB, \(kdfFloor.passes) passes) or above the ceiling"]) }
    }

    /// A device name as kept: printable characters only, at most 64.
    static func cleanedDeviceName(_ name: String) -> String {
        String(name.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(64).map(Character.init))
    }

    /// A random base64url token of `bytes` bytes (sessions, invitations, remembered devices); stored only as
    /// its SHA-256.
    static func newToken(bytes: Int = 32) -> String {
        Data(SecureRandom.bytes(count: bytes)).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Opens this device's session (replacing its earlier one) and answers its bearer token.
    static func openSession(_ db: any SQLConnection, accountID: String, device: String, name: String, address: String) throws -> String {
        let token = newToken()
        let now = milliseconds(Date())
        try db.run("DELETE FROM sessions WHERE account_id = ? AND device_id = ?", [.text(accountID), .text(device)])
        try db.run(
            "INSERT INTO sessions (token_hash, account_id, device_id, device_name, created, last_seen, address) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [.blob(Hash.sha256(Array(token.utf8))), .text(accountID), .text(device), .text(name), .integer(now), .integer(now), .text(address)])
        return token
    }

    /// Puts new credentials in place (a password change or a recovery; the Secret Key's account id stays).
    static func replaceCredentials(_ db: any SQLConnection, accountID: String, salt: Data, kdf: KDFParameters, signInPublicKey: Data, keyset: Data) throws {
        try db.run(
            "UPDATE accounts SET salt = ?, kdf_memory = ?, kdf_passes = ?, kdf_lanes = ?, signin_public_key = ?, keyset = ? WHERE id = ?",
            [
                .blob(Array(salt)), .integer(Int64(kdf.memoryKiB)), .integer(Int64(kdf.passes)), .integer(Int64(kdf.lanes)),
                .blob(Array(signInPublicKey)), .blob(Array(keyset)), .text(accountID),
            ])
    }
}
