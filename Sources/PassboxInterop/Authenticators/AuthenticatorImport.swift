import Foundation
import PassboxCore
import PassboxCrypto

/// Authenticator apps' exports as one-time-password items: Aegis (plain, or encrypted under its password:
/// scrypt and AES-256-GCM) and 2FAS (plain, or encrypted: PBKDF2-SHA256 and AES-256-GCM). Each code is one
/// item (the issuer as its title, the account in its otpauth link), groups as tags or vaults, notes and
/// favourites kept. Code kinds Passbox does not compute (Steam, Yandex, mOTP) are counted, not brought.
public enum AuthenticatorImport {
    // MARK: Aegis

    struct AegisFile: Decodable {
        struct Header: Decodable {
            var slots: [Slot]?
            var params: Params?
        }
        struct Slot: Decodable {
            var type: Int
            var key: String?
            var key_params: Params?
            var n: UInt64?
            var r: UInt32?
            var p: UInt32?
            var salt: String?
        }
        struct Params: Decodable {
            var nonce: String
            var tag: String
        }
        var version: Int?
        var header: Header?
        var db: AegisDB?
        var encryptedDB: String?

        enum CodingKeys: String, CodingKey { case version, header, db }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            version = try c.decodeIfPresent(Int.self, forKey: .version)
            header = try c.decodeIfPresent(Header.self, forKey: .header)
            if let text = try? c.decode(String.self, forKey: .db) { encryptedDB = text } else { db = try c.decode(AegisDB.self, forKey: .db) }
        }
    }

    struct AegisDB: Decodable {
        struct Entry: Decodable {
            struct Info: Decodable {
                var secret: String?
                var algo: String?
                var digits: Int?
                var period: UInt64?
                var counter: UInt64?
            }
            var type: String
            var name: String?
            var issuer: String?
            var note: String?
            var favorite: Bool?
            var info: Info
            var groups: [String]?
            var group: String?
        }
        struct Group: Decodable {
            var uuid: String
            var name: String
        }
        var entries: [Entry]
        var groups: [Group]?
    }

    public static func looksLikeAegis(_ head: [UInt8]) -> Bool {
        let text = String(decoding: head.prefix(4096), as: UTF8.self)
        return text.contains("\"header\"") && text.contains("\"db\"")
    }

    public static func planAegis(_ bytes: [UInt8], password: SecretBytes?, groupsAsVaults: Bool) throws -> ImportPlan {
        let file: AegisFile
        do {
            file = try JSONDecoder().decode(AegisFile.self, from: Data(bytes))
        } catch {
            throw InteropError.notThisFormat(format: "Aegis")
        }
        var db = file.db
        var source = "Aegis export, unencrypted"
        if let encrypted = file.encryptedDB {
            guard let params = file.header?.params, let slots = file.header?.slots else { throw InteropError.damaged(reason: "the encrypted vault has no header") }
            guard let ciphertext = Data(base64Encoded: encrypted).map(Array.init) else { throw InteropError.damaged(reason: "the encrypted vault is not base64") }
            let masterKey = try openAegisSlots(slots, password: password)
            let plain = try open(ciphertext, key: masterKey, nonce: try hex(params.nonce), tag: try hex(params.tag), failing: .damaged(reason: "the vault does not open with the key its slot holds"))
            do {
                db = try JSONDecoder().decode(AegisDB.self, from: Data(plain))
            } catch {
                throw InteropError.damaged(reason: "the decrypted vault is not Aegis's JSON")
            }
            source = "Aegis export, encrypted (scrypt, AES-256-GCM)"
        }
        guard let db else { throw InteropError.notThisFormat(format: "Aegis") }
        let groups = Dictionary((db.groups ?? []).map { ($0.uuid, $0.name) }, uniquingKeysWith: { a, _ in a })
        var plan = ImportPlan()
        plan.source = source
        for e in db.entries {
            let kind: OTPParameters.Kind
            switch e.type.lowercased() {
            case "totp": kind = .totp
            case "hotp": kind = .hotp
            default:
                plan.skip("unsupportedCode")
                continue
            }
            let group = e.groups?.compactMap { groups[$0] }.first ?? e.group
            add(kind: kind, secret: e.info.secret, algorithm: e.info.algo, digits: e.info.digits, period: e.info.period, counter: e.info.counter,
                issuer: e.issuer ?? "", account: e.name ?? "", note: e.note, favorite: e.favorite ?? false, group: group, groupsAsVaults: groupsAsVaults, to: &plan)
        }
        return plan
    }

    /// The master key from the first password slot that opens (scrypt, then AES-256-GCM over the slot's key).
    static func openAegisSlots(_ slots: [AegisFile.Slot], password: SecretBytes?) throws -> [UInt8] {
        let passwordSlots = slots.filter { $0.type == 1 }
        guard !passwordSlots.isEmpty else { throw InteropError.unsupported(what: "an Aegis vault without a password slot (biometric or raw key only)") }
        guard let password else { throw InteropError.wrongPassword }
        let typed = password.revealBytes()
        for slot in passwordSlots.prefix(8) {
            guard let key = slot.key, let params = slot.key_params, let salt = slot.salt, let n = slot.n, let r = slot.r, let p = slot.p else {
                throw InteropError.damaged(reason: "a password slot is missing its parameters")
            }
            try ImportKDFLimits.checkScrypt(n: n, r: r, p: p)
            let derived: [UInt8]
            do {
                derived = try Scrypt.derive(password: typed, salt: try hex(salt), n: n, r: r, p: p)
            } catch CryptoError.invalidInput {
                throw InteropError.unsupported(what: "scrypt with N = \(n), r = \(r), p = \(p) (at most 2^20, 32, 16 and 1 GiB)")
            }
            if let master = try? open(try hex(key), key: derived, nonce: try hex(params.nonce), tag: try hex(params.tag), failing: .wrongPassword), master.count == 32 {
                return master
            }
        }
        throw InteropError.wrongPassword
    }

    // MARK: 2FAS

    struct TwoFASFile: Decodable {
        struct Service: Decodable {
            struct OTP: Decodable {
                var account: String?
                var issuer: String?
                var digits: Int?
                var period: UInt64?
                var algorithm: String?
                var tokenType: String?
                var counter: UInt64?
            }
            var name: String?
            var secret: String?
            var otp: OTP?
            var groupId: String?
        }
        struct Group: Decodable {
            var id: String
            var name: String
        }
        var services: [Service]?
        var groups: [Group]?
        var servicesEncrypted: String?
        var schemaVersion: Int?
    }

    public static func looksLikeTwoFAS(_ head: [UInt8]) -> Bool {
        let text = String(decoding: head.prefix(4096), as: UTF8.self)
        return text.contains("\"schemaVersion\"") && (text.contains("\"services\"") || text.contains("\"servicesEncrypted\""))
    }

    public static func planTwoFAS(_ bytes: [UInt8], password: SecretBytes?, groupsAsVaults: Bool) throws -> ImportPlan {
        let file: TwoFASFile
        do {
            file = try JSONDecoder().decode(TwoFASFile.self, from: Data(bytes))
        } catch {
            throw InteropError.notThisFormat(format: "2FAS")
        }
        var services = file.services ?? []
        var source = "2FAS export, unencrypted"
        if let encrypted = file.servicesEncrypted, !encrypted.isEmpty {
            // "ciphertext:salt:iv", each base64; the key is PBKDF2-SHA256 (10,000 rounds) of the password; the
            // ciphertext ends with the 16-byte GCM tag.
            let parts = encrypted.split(separator: ":").map { Data(base64Encoded: String($0)).map(Array.init) }
            guard parts.count >= 3, let sealed = parts[0], let salt = parts[1], let iv = parts[2], sealed.count >= 16 else {
                throw InteropError.damaged(reason: "the encrypted services are not ciphertext:salt:iv")
            }
            guard let password else { throw InteropError.wrongPassword }
            let key = try PBKDF2.deriveSHA256(password: password.revealBytes(), salt: salt, rounds: 10_000, length: 32)
            let plain = try open(Array(sealed.dropLast(16)), key: key, nonce: iv, tag: Array(sealed.suffix(16)), failing: .wrongPassword)
            do {
                services = try JSONDecoder().decode([TwoFASFile.Service].self, from: Data(plain))
            } catch {
                throw InteropError.damaged(reason: "the decrypted services are not 2FAS's JSON")
            }
            source = "2FAS export, encrypted (PBKDF2-SHA256, AES-256-GCM)"
        }
        guard file.services != nil || file.servicesEncrypted != nil else { throw InteropError.notThisFormat(format: "2FAS") }
        let groups = Dictionary((file.groups ?? []).map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        var plan = ImportPlan()
        plan.source = source
        for s in services {
            let kind: OTPParameters.Kind
            switch (s.otp?.tokenType ?? "TOTP").uppercased() {
            case "TOTP": kind = .totp
            case "HOTP": kind = .hotp
            default:
                plan.skip("unsupportedCode")
                continue
            }
            add(kind: kind, secret: s.secret, algorithm: s.otp?.algorithm, digits: s.otp?.digits, period: s.otp?.period, counter: s.otp?.counter,
                issuer: s.otp?.issuer ?? s.name ?? "", account: s.otp?.account ?? "", note: nil, favorite: false, group: s.groupId.flatMap { groups[$0] },
                groupsAsVaults: groupsAsVaults, to: &plan)
        }
        return plan
    }

    // MARK: Shared

    /// Whether an Aegis or 2FAS file is encrypted (so its password is asked for).
    static func isEncrypted(_ bytes: [UInt8], format: String) -> Bool {
        if format == "aegis" { return (try? JSONDecoder().decode(AegisFile.self, from: Data(bytes)))?.encryptedDB != nil }
        if format == "2fas" { return !((try? JSONDecoder().decode(TwoFASFile.self, from: Data(bytes)))?.servicesEncrypted ?? "").isEmpty }
        return false
    }

    static func add(
        kind: OTPParameters.Kind, secret: String?, algorithm: String?, digits: Int?, period: UInt64?, counter: UInt64?, issuer: String, account: String,
        note: String?, favorite: Bool, group: String?, groupsAsVaults: Bool, to plan: inout ImportPlan
    ) {
        guard let secret, let key = try? Base32.decode(secret) else {
            plan.skip("invalidCode")
            return
        }
        var p = OTPParameters(kind: kind, secret: key, issuer: issuer, account: account)
        if let algorithm, let a = HMAC.Algorithm(rawValue: algorithm.uppercased()) { p.algorithm = a }
        if let digits, digits > 0 { p.digits = digits }
        if let period, period > 0 { p.period = period }
        if let counter { p.counter = counter }
        guard (try? p.validate()) != nil else {
            plan.skip("invalidCode")
            return
        }
        var item = Item(category: .oneTimePassword, title: issuer.isEmpty ? account : issuer, notes: note ?? "", isFavorite: favorite)
        item.setValue(p.uri, for: "otp")
        if let group, !group.isEmpty, !groupsAsVaults { item.tags.append(group) }
        plan.entries.append(.init(item: item, vaultName: groupsAsVaults ? group : nil))
    }

    /// AES-256-GCM, its failure to authenticate answered as `failing`, a nonce or tag of a wrong size as damage.
    static func open(_ ciphertext: [UInt8], key: [UInt8], nonce: [UInt8], tag: [UInt8], failing: InteropError) throws -> [UInt8] {
        do {
            return try AES256GCM.open(ciphertext, key: key, nonce: nonce, tag: tag)
        } catch CryptoError.authenticationFailed {
            throw failing
        } catch CryptoError.invalidInput {
            throw InteropError.damaged(reason: "a nonce or tag of the wrong size")
        } catch {
            throw InteropError.unsupported(what: "AES-GCM without libcrypto (apt-get install libssl3)")
        }
    }

    static func hex(_ text: String) throws -> [UInt8] {
        guard let bytes = Hex.decode(text) else { throw InteropError.damaged(reason: "a value that should be hex is not") }
        return bytes
    }
}
