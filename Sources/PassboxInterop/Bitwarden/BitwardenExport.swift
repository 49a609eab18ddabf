import Foundation
import PassboxCore
import PassboxCrypto

/// Passbox items as Bitwarden's unencrypted JSON export (what Bitwarden, Vaultwarden's clients and most password
/// managers import): logins (websites as URIs, the one-time password as `totp`, earlier passwords as
/// `passwordHistory`), secure notes, cards, identities and SSH keys; every other field a custom field (hidden
/// when concealed); each Passbox vault a folder. Other categories become secure notes with their fields.
public enum BitwardenExport {
    struct Export: Encodable {
        var encrypted = false
        var folders: [Folder]
        var items: [ExportItem]
    }

    struct Folder: Encodable {
        var id: String
        var name: String
    }

    struct ExportItem: Encodable {
        var id: String
        var organizationId: String?
        var folderId: String?
        var type: Int
        var reprompt = 0
        var name: String
        var notes: String?
        var favorite: Bool
        var fields: [Field]
        var login: Login?
        var secureNote: SecureNote?
        var card: Card?
        var identity: Identity?
        var sshKey: SSHKey?
        var passwordHistory: [History]?
        var creationDate: String?
        var revisionDate: String?
        var collectionIds: [String]?
    }

    struct Field: Encodable {
        var name: String
        var value: String
        var type: Int
        var linkedId: Int?
    }

    struct Login: Encodable {
        struct URI: Encodable {
            var match: Int?
            var uri: String
        }
        var uris: [URI]
        var username: String?
        var password: String?
        var totp: String?
        var fido2Credentials: [Fido2Credential]?
    }

    /// A passkey as Bitwarden writes one: the credential id "b64." and base64url, the PKCS#8 key and the user
    /// handle in base64url, the counter as text.
    struct Fido2Credential: Encodable {
        var credentialId: String, keyType = "public-key", keyAlgorithm = "ECDSA", keyCurve = "P-256", keyValue: String, rpId: String
        var userHandle: String, userName: String, counter: String, rpName: String, userDisplayName: String, discoverable = "true", creationDate: String
    }

    struct SecureNote: Encodable { var type = 0 }

    struct Card: Encodable {
        var cardholderName: String?, brand: String?, number: String?, expMonth: String?, expYear: String?, code: String?
    }

    struct Identity: Encodable {
        var firstName: String?, lastName: String?, address1: String?, company: String?, email: String?, phone: String?
    }

    struct SSHKey: Encodable {
        var privateKey: String?, publicKey: String?, keyFingerprint: String?
    }

    struct History: Encodable {
        var lastUsedDate: String
        var password: String
    }

    public struct Result: Sendable {
        public var json: [UInt8]
        public var entries: Int
        public var leftOut: [String: Int]
    }

    /// `items` are the vault's visible items (never its hidden ones); `vaults` become folders. Passkeys go in
    /// only `withPasskeys` (their private keys in plain text: a surface asks a third time first); without it
    /// they are counted as left out.
    public static func export(items: [Item], vaults: [VaultInfo], withPasskeys: Bool = false) throws -> Result {
        var (kept, leftOut) = ExportSelection.split(items)
        let passkeys = kept.reduce(0) { $0 + $1.passkeys.count }
        if passkeys > 0, !withPasskeys { leftOut["passkeyPlain", default: 0] += passkeys }
        var out: [ExportItem] = []
        let dates = ISO8601DateFormatter()
        dates.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let folderIDs = Dictionary(uniqueKeysWithValues: vaults.map { ($0.id, uuid("folder/" + $0.id)) })
        let firstVault = vaults.first?.id
        for item in kept {
            var e = ExportItem(
                id: uuid("item/" + item.id), folderId: (item.vaultID ?? firstVault).flatMap { folderIDs[$0] }, type: 2, name: item.title,
                notes: item.notes.isEmpty ? nil : item.notes, favorite: item.isFavorite, fields: [],
                creationDate: item.created.map(dates.string), revisionDate: (item.lastChanged ?? item.created).map(dates.string))
            var used: Set<String> = []
            func value(_ key: String) -> String? {
                guard let v = item.value(of: key) else { return nil }
                used.insert(key)
                return v
            }
            switch item.category {
            case .login, .password, .server, .database, .apiCredential:
                e.type = 1
                e.login = Login(uris: item.websites.map { .init(uri: $0) }, username: value("username"), password: value("password"), totp: value("otp"))
                if withPasskeys, !item.passkeys.isEmpty {
                    e.login?.fido2Credentials = item.passkeys.map { p in
                        Fido2Credential(
                            credentialId: "b64." + p.credentialText, keyValue: KeePassPasskey.encode(p.privateKey), rpId: p.relyingParty,
                            userHandle: KeePassPasskey.encode(p.userHandle), userName: p.userName, counter: String(p.signCount), rpName: p.relyingParty,
                            userDisplayName: p.displayName, creationDate: dates.string(from: p.created))
                    }
                }
                let earlier = item.previousPasswords
                if !earlier.isEmpty { e.passwordHistory = earlier.map { History(lastUsedDate: dates.string(from: $0.replacedAt), password: $0.value) } }
            case .creditCard:
                e.type = 3
                let expiry = value("expiry")?.split(separator: "-").map(String.init)
                e.card = Card(
                    cardholderName: value("cardholder"), brand: value("type"), number: value("number"), expMonth: expiry.flatMap { $0.count == 2 ? String(Int($0[1]) ?? 0) : nil },
                    expYear: expiry?.first, code: value("cvc"))
            case .identity:
                e.type = 4
                e.identity = Identity(firstName: value("first-name"), lastName: value("last-name"), address1: value("address"), company: value("company"), email: value("email"), phone: value("phone"))
            case .sshKey:
                e.type = 5
                e.sshKey = SSHKey(privateKey: value("private-key"), publicKey: value("public-key"), keyFingerprint: value("fingerprint"))
            default:
                e.secureNote = SecureNote()
            }
            if e.type != 1, !item.websites.isEmpty {
                for (n, site) in item.websites.enumerated() { e.fields.append(Field(name: n == 0 ? "Website" : "Website \(n + 1)", value: site, type: 0)) }
            }
            for field in item.fields where !field.value.isEmpty && !used.contains(field.key ?? "\u{0}") {
                e.fields.append(Field(name: field.label, value: field.value, type: field.kind.isConcealed ? 1 : 0))
            }
            out.append(e)
        }
        guard !out.isEmpty else { throw InteropError.empty }
        let folders = vaults.map { Folder(id: folderIDs[$0.id]!, name: $0.name) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let json = Array(try encoder.encode(Export(folders: folders, items: out)))
        return Result(json: json, entries: out.count, leftOut: leftOut)
    }

    /// A stable UUID-shaped id from a Passbox id (Bitwarden's importers want that shape).
    static func uuid(_ seed: String) -> String {
        let b = Hash.sha256(Array("passbox/bitwarden/".utf8) + Array(seed.utf8))
        let hex = b.prefix(16).map { String(format: "%02x", $0) }.joined()
        let c = Array(hex)
        return "\(String(c[0..<8]))-\(String(c[8..<12]))-\(String(c[12..<16]))-\(String(c[16..<20]))-\(String(c[20..<32]))"
    }
}
