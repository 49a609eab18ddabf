import Foundation
import PassboxCore
import PassboxCrypto

/// Bitwarden's password-protected JSON export (docs/FORMATS.md "Bitwarden JSON"): the unencrypted export's
/// JSON, sealed as one Bitwarden "EncString" of type 2 (AES-256-CBC, then HMAC-SHA256 over IV and
/// ciphertext) under a key made from the file's own password: PBKDF2-SHA256 (`kdfType` 0) or Argon2id
/// (`kdfType` 1, salted with the SHA-256 of the salt) of the password with the file's salt, stretched by
/// HKDF-Expand-SHA256 into an encryption key ("enc") and a MAC key ("mac"). The MAC is checked, in constant
/// time, before anything is decrypted; a wrong password and a changed file are one answer.
enum BitwardenProtected {
    struct File: Decodable {
        var salt: String?
        var kdfType: Int?
        var kdfIterations: Int?
        var kdfMemory: Int?
        var kdfParallelism: Int?
        var encKeyValidation_DO_NOT_EDIT: String?
        var data: String?
    }

    /// Whether the bytes are a password-protected export (so its password is asked for).
    static func isProtected(_ bytes: [UInt8]) -> Bool {
        guard let file = try? JSONDecoder().decode(File.self, from: Data(bytes)) else { return false }
        return file.data != nil && file.salt != nil
    }

    /// Bounds on the file's key derivation, so a hostile file cannot make the import work for hours.
    static let maximumArgonPasses = 100
    static let maximumArgonMiB = 2048
    static let maximumArgonLanes = 16

    /// The export's JSON, opened with `password`, and a line about the source.
    static func open(_ bytes: [UInt8], password: SecretBytes?) throws -> (json: [UInt8], source: String) {
        guard let file = try? JSONDecoder().decode(File.self, from: Data(bytes)), let salt = file.salt, let data = file.data else {
            throw InteropError.damaged(reason: "the password-protected export lacks its salt or data")
        }
        guard let password else { throw InteropError.wrongPassword }
        let (key, source) = try derive(password: password, salt: salt, file: file)
        let encKey = HMAC.authenticationCode(.sha256, key: key, message: Array("enc".utf8) + [1])
        let macKey = HMAC.authenticationCode(.sha256, key: key, message: Array("mac".utf8) + [1])
        if let check = file.encKeyValidation_DO_NOT_EDIT { _ = try decrypt(check, encKey: encKey, macKey: macKey) }
        return (try decrypt(data, encKey: encKey, macKey: macKey), source)
    }

    static func derive(password: SecretBytes, salt: String, file: File) throws -> (SecretBytes, String) {
        let secret = password.revealBytes()
        var copy = secret
        defer { ConstantTime.wipe(&copy) }
        switch file.kdfType ?? 0 {
        case 0:
            let rounds = file.kdfIterations ?? 0
            try ImportKDFLimits.checkPBKDF2(rounds: rounds, name: "PBKDF2-SHA256")
            let key = try PBKDF2.deriveSHA256(password: copy, salt: Array(salt.utf8), rounds: UInt32(rounds), length: 32)
            return (SecretBytes(copying: key), "Bitwarden JSON export, password-protected, PBKDF2-SHA256 \(rounds) iterations")
        case 1:
            let passes = file.kdfIterations ?? 0, mib = file.kdfMemory ?? 0, lanes = file.kdfParallelism ?? 0
            guard (1...maximumArgonPasses).contains(passes), (1...maximumArgonMiB).contains(mib), (1...maximumArgonLanes).contains(lanes) else {
                throw InteropError.unsupported(what: "Argon2id with \(mib) MiB × \(passes) passes × \(lanes) lanes")
            }
            // The same bounds as every other importer's (64 GiB × passes: 2 GiB × 100 passes is refused).
            try ImportKDFLimits.checkArgon2(memoryKiB: UInt64(mib) * 1024, passes: UInt64(passes), name: "Argon2id")
            let parameters = Argon2Parameters(memoryKiB: UInt32(mib) * 1024, passes: UInt32(passes), lanes: UInt8(lanes))
            let key = try Argon2.derive(password: copy, salt: Hash.sha256(Array(salt.utf8)), parameters: parameters)
            return (key, "Bitwarden JSON export, password-protected, Argon2id \(mib) MiB × \(passes) passes × \(lanes) lanes")
        default:
            throw InteropError.unsupported(what: "key derivation \(file.kdfType ?? -1)")
        }
    }

    /// A type-2 EncString: "2." + base64(IV) + "|" + base64(ciphertext) + "|" + base64(MAC).
    static func decrypt(_ encString: String, encKey: [UInt8], macKey: [UInt8]) throws -> [UInt8] {
        guard encString.hasPrefix("2.") else { throw InteropError.unsupported(what: "an EncString of another type than 2") }
        let parts = encString.dropFirst(2).split(separator: "|", omittingEmptySubsequences: false)
        guard parts.count == 3, let iv = Data(base64Encoded: String(parts[0])).map(Array.init), let ciphertext = Data(base64Encoded: String(parts[1])).map(Array.init),
            let mac = Data(base64Encoded: String(parts[2])).map(Array.init), iv.count == 16, mac.count == 32, !ciphertext.isEmpty, ciphertext.count % 16 == 0
        else { throw InteropError.damaged(reason: "an encrypted value is not Bitwarden's EncString") }
        let expected = HMAC.authenticationCode(.sha256, key: macKey, message: iv + ciphertext)
        guard ConstantTime.equal(expected, mac) else { throw InteropError.wrongPassword }
        do {
            return try AES256CBC.decrypt(ciphertext, key: encKey, iv: iv)
        } catch {
            throw InteropError.damaged(reason: "the decrypted data's padding is wrong")
        }
    }
}
