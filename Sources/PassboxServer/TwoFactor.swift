import Foundation
import PassboxCrypto
import PassboxServerAPI
import PassboxSQL

/// Two-factor sign-in (security.md §5): a TOTP secret per account (RFC 6238: SHA-1, 6 digits, 30 s; a code
/// is accepted one step early or late, and never twice), and ten single-use recovery codes stored as SHA-256.
enum TwoFactor {
    static let digits = 6, period: Int64 = 30

    static func enabled(_ db: any SQLConnection, _ accountID: String) throws -> Bool {
        try db.rows("SELECT 1 FROM two_factor WHERE account_id = ? AND enabled = 1", [.text(accountID)]).first != nil
    }

    /// Whether `code` is the current one (±1 step) and newer than the last accepted; records its step.
    static func acceptCode(_ db: any SQLConnection, _ accountID: String, _ code: String, pending: Bool = false, now: Date = Date()) throws -> Bool {
        guard code.count == digits, code.allSatisfy(\.isASCII), code.allSatisfy(\.isNumber),
            let row = try db.rows("SELECT secret, last_step FROM two_factor WHERE account_id = ? AND enabled = ?", [.text(accountID), .integer(pending ? 0 : 1)]).first,
            let secret = row[0].blob
        else { return false }
        let step = Int64(now.timeIntervalSince1970) / period
        let last = row[1].integer ?? 0
        for candidate in [step - 1, step, step + 1] where candidate > last {
            let expected = HOTP.code(.sha1, key: secret, counter: UInt64(candidate), digits: digits)
            if ConstantTime.equal(Array(expected.utf8), Array(code.utf8)) {
                // Conditional, so two sign-ins racing with the same code cannot both have it accepted.
                return try db.run(
                    "UPDATE two_factor SET last_step = ? WHERE account_id = ? AND last_step < ?", [.integer(candidate), .text(accountID), .integer(candidate)]) == 1
            }
        }
        return false
    }

    /// Uses one unused recovery code.
    static func acceptRecoveryCode(_ db: any SQLConnection, _ accountID: String, _ code: String) throws -> Bool {
        let normalized = code.uppercased().filter { $0 != "-" && $0 != " " }
        guard normalized.count == 10 else { return false }
        let hash = Hash.sha256(Array(normalized.utf8))
        let changed = try db.run(
            "UPDATE recovery_codes SET used = ? WHERE account_id = ? AND code_hash = ? AND used IS NULL",
            [.integer(milliseconds(Date())), .text(accountID), .blob(hash)])
        return changed == 1
    }

    /// Ten new recovery codes (two groups of five Crockford characters, such as `7K2QM-3WJ9T`; 50 random bits
    /// each), replacing any earlier ones.
    static func newRecoveryCodes(_ db: any SQLConnection, _ accountID: String) throws -> [String] {
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        try db.run("DELETE FROM recovery_codes WHERE account_id = ?", [.text(accountID)])
        var codes: [String] = []
        for _ in 0..<10 {
            let characters = (0..<10).map { _ in alphabet[Int(SecureRandom.uniform(32))] }
            let plain = String(characters)
            try db.run("INSERT INTO recovery_codes (account_id, code_hash, used) VALUES (?, ?, NULL)", [.text(accountID), .blob(Hash.sha256(Array(plain.utf8)))])
            codes.append(String(characters[0..<5]) + "-" + String(characters[5...]))
        }
        return codes
    }

    static let rememberDays: Double = 30

    /// Whether `token` remembers this device of the account (and has not expired).
    static func isRemembered(_ db: any SQLConnection, _ accountID: String, device: String, token: String?) throws -> Bool {
        guard let token, !token.isEmpty, token.utf8.count <= 128 else { return false }
        let row = try db.rows(
            "SELECT expires FROM remembered_devices WHERE token_hash = ? AND account_id = ? AND device_id = ?",
            [.blob(Hash.sha256(Array(token.utf8))), .text(accountID), .text(device)]
        ).first
        return (row?[0].integer ?? 0) > milliseconds(Date())
    }

    /// A new token that skips the second factor on this device for 30 days (stored as SHA-256).
    static func remember(_ db: any SQLConnection, _ accountID: String, device: String) throws -> String {
        let token = AccountService.newToken()
        try db.run("DELETE FROM remembered_devices WHERE expires < ?", [.integer(milliseconds(Date()))])
        try db.run(
            "INSERT INTO remembered_devices (token_hash, account_id, device_id, expires) VALUES (?, ?, ?, ?)",
            [.blob(Hash.sha256(Array(token.utf8))), .text(accountID), .text(device), .integer(milliseconds(Date() + rememberDays * 86_400))])
        return token
    }
}
