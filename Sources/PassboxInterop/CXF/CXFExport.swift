import Foundation
import PassboxCore
import PassboxCrypto

/// Passbox items as a CXF 1.0 document (the FIDO Alliance's Credential Exchange Format), not encrypted: one
/// account, each Passbox vault a collection, each item with its credentials (`basic-auth`, `totp`, `note`,
/// `credit-card`, `ssh-key`, `wifi`, `api-key`, `custom-fields` for every other field) and its websites as its
/// scope. Passkeys go in only when `withPasskeys` (a surface asks a third time first); one whose counter is not
/// zero is left out, as CXF requires.
public enum CXFExport {
    /// Passbox has no domain of its own to name itself by: `.invalid` is reserved for names that are none.
    static let exporterRpID = "passbox.invalid"

    struct Header: Encodable {
        struct Version: Encodable {
            var major = 1
            var minor = 0
        }
        var version = Version()
        var exporterRpId = CXFExport.exporterRpID
        var exporterDisplayName = "Passbox"
        var timestamp: Int
        var accounts: [Account]
    }

    struct Account: Encodable {
        var id: String
        var username = ""
        var email = ""
        var collections: [Collection]
        var items: [ExportItem]
    }

    struct Collection: Encodable {
        struct Link: Encodable { var item: String }
        var id: String
        var title: String
        var items: [Link]
    }

    struct Scope: Encodable {
        var urls: [String]
        var androidApps: [String] = []
    }

    struct ExportItem: Encodable {
        var id: String
        var creationAt: Int?
        var modifiedAt: Int?
        var title: String
        var favorite: Bool?
        var scope: Scope?
        var credentials: [Credential]
        var tags: [String]?
    }

    /// `{fieldType, value, label?}`.
    struct Editable: Encodable {
        var fieldType: String
        var value: String
        var label: String?
        static func string(_ value: String, _ label: String? = nil) -> Editable { Editable(fieldType: "string", value: value, label: label) }
        static func concealed(_ value: String, _ label: String? = nil) -> Editable { Editable(fieldType: "concealed-string", value: value, label: label) }
    }

    /// One credential: its `type` and its members (a flat bag, as CXF's credentials are).
    struct Credential: Encodable {
        var type: String
        var members: [String: Member]

        enum Member: Encodable {
            case text(String), number(Int), field(Editable), fields([Editable])
            func encode(to encoder: any Encoder) throws {
                var c = encoder.singleValueContainer()
                switch self {
                case .text(let s): try c.encode(s)
                case .number(let n): try c.encode(n)
                case .field(let f): try c.encode(f)
                case .fields(let f): try c.encode(f)
                }
            }
        }

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(_ s: String) { stringValue = s }
            init?(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(type, forKey: Key("type"))
            for (key, member) in members { try c.encode(member, forKey: Key(key)) }
        }
    }

    public struct Result: Sendable {
        public var json: [UInt8]
        public var entries: Int
        public var leftOut: [String: Int]
    }

    /// `items` are the vault's visible items (never its hidden ones); `vaults` become collections.
    public static func export(items: [Item], vaults: [VaultInfo], withPasskeys: Bool, now: Date) throws -> Result {
        let (kept, selectionLeftOut) = ExportSelection.split(items)
        var leftOut = selectionLeftOut
        var out: [ExportItem] = []
        var byVault: [String: [String]] = [:]
        let firstVault = vaults.first?.id
        for item in kept {
            let id = stableID("item/" + item.id)
            var e = ExportItem(
                id: id, creationAt: item.created.map { Int($0.timeIntervalSince1970) }, modifiedAt: (item.lastChanged ?? item.created).map { Int($0.timeIntervalSince1970) },
                title: item.title, favorite: item.isFavorite ? true : nil, scope: item.websites.isEmpty ? nil : Scope(urls: item.websites), credentials: [],
                tags: item.tags.isEmpty ? nil : item.tags)
            e.credentials = credentials(of: item, withPasskeys: withPasskeys, leftOut: &leftOut)
            if let vault = item.vaultID ?? firstVault { byVault[vault, default: []].append(id) }
            out.append(e)
        }
        guard !out.isEmpty else { throw InteropError.empty }
        let collections = vaults.compactMap { v in byVault[v.id].map { Collection(id: stableID("vault/" + v.id), title: v.name, items: $0.map { .init(item: $0) }) } }
        let header = Header(timestamp: Int(now.timeIntervalSince1970), accounts: [Account(id: stableID("account"), collections: collections, items: out)])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Result(json: Array(try encoder.encode(header)), entries: out.count, leftOut: leftOut)
    }

    static func credentials(of item: Item, withPasskeys: Bool, leftOut: inout [String: Int]) -> [Credential] {
        var result: [Credential] = []
        var used: Set<String> = []
        func value(_ key: String) -> String? {
            guard let v = item.value(of: key), !v.isEmpty else { return nil }
            used.insert(key)
            return v
        }
        func add(_ type: String, _ members: [String: Credential.Member?]) {
            let present = members.compactMapValues { $0 }
            if !present.isEmpty { result.append(Credential(type: type, members: present)) }
        }
        switch item.category {
        case .login, .password, .server, .database:
            add("basic-auth", ["username": value("username").map { .field(.string($0)) }, "password": value("password").map { .field(.concealed($0)) }])
        case .creditCard:
            add("credit-card", [
                "number": value("number").map { .field(.concealed($0)) }, "fullName": value("cardholder").map { .field(.string($0)) },
                "cardType": value("type").map { .field(.string($0)) }, "verificationNumber": value("cvc").map { .field(.concealed($0)) },
                "pin": value("pin").map { .field(.concealed($0)) },
                "expiryDate": value("expiry").map { .field(Editable(fieldType: "year-month", value: $0)) },
            ])
        case .sshKey:
            // CXF carries an SSH key as PKCS#8 DER; a key in another form (OpenSSH's) stays a concealed field.
            if let pem = item.value(of: "private-key"), let der = KeePassPasskey.derFromPEM(pem) {
                used.insert("private-key")
                add("ssh-key", ["keyType": .text(sshKeyType(der)), "privateKey": .text(KeePassPasskey.encode(der))])
            }
        case .wifi:
            add("wifi", ["ssid": value("ssid").map { .field(.string($0)) }, "passphrase": value("password").map { .field(.concealed($0)) }])
        case .apiCredential:
            add("api-key", [
                "username": value("username").map { .field(.string($0)) }, "key": value("credential").map { .field(.concealed($0)) },
                "keyType": value("type").map { .field(.string($0)) }, "url": value("hostname").map { .field(.string($0)) },
            ])
        default:
            break
        }
        if let otp = item.value(of: "otp"), let p = try? OTPInput.parse(otp), p.kind == .totp {
            used.insert("otp")
            var members: [String: Credential.Member] = [
                "secret": .text(Base32.encode(p.secret)), "period": .number(Int(p.period)), "digits": .number(p.digits), "algorithm": .text(p.algorithm.rawValue.lowercased()),
            ]
            if !p.issuer.isEmpty { members["issuer"] = .text(p.issuer) }
            if !p.account.isEmpty { members["username"] = .text(p.account) }
            result.append(Credential(type: "totp", members: members))
        }
        for passkey in item.passkeys {
            guard withPasskeys else {
                leftOut["passkeyPlain", default: 0] += 1
                continue
            }
            guard passkey.signCount == 0 else {
                leftOut["passkeyCounter", default: 0] += 1
                continue
            }
            result.append(Credential(type: "passkey", members: [
                "credentialId": .text(passkey.credentialText), "rpId": .text(passkey.relyingParty), "username": .text(passkey.userName),
                "userDisplayName": .text(passkey.displayName), "userHandle": .text(KeePassPasskey.encode(passkey.userHandle)), "key": .text(KeePassPasskey.encode(passkey.privateKey)),
            ]))
        }
        if !item.notes.isEmpty { result.append(Credential(type: "note", members: ["content": .field(.string(item.notes))])) }
        let rest = item.fields.filter { !$0.value.isEmpty && !used.contains($0.key ?? "\u{0}") }
        if !rest.isEmpty {
            result.append(Credential(type: "custom-fields", members: [
                "fields": .fields(rest.map { $0.kind.isConcealed ? .concealed($0.value, $0.label) : .string($0.value, $0.label) })
            ]))
        }
        return result
    }

    /// The SSH name of a PKCS#8 key's algorithm, told by its algorithm identifier.
    static func sshKeyType(_ der: [UInt8]) -> String {
        // The algorithm identifier's OID sits in the key's first bytes: Ed25519 (1.3.101.112) or RSA
        // (1.2.840.113549.1.1.1); any other is taken for the EC key SSH names by its curve.
        let head = Array(der.prefix(40))
        func has(_ oid: [UInt8]) -> Bool { head.count >= oid.count && (0...(head.count - oid.count)).contains { Array(head[$0..<$0 + oid.count]) == oid } }
        if has([0x06, 0x03, 0x2b, 0x65, 0x70]) { return "ssh-ed25519" }
        if has([0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01]) { return "ssh-rsa" }
        return "ecdsa-sha2-nistp256"
    }

    /// A stable id for a Passbox id, base64url of 16 bytes (CXF's ids are opaque bytes of at most 64).
    static func stableID(_ seed: String) -> String {
        KeePassPasskey.encode(Array(Hash.sha256(Array("passbox/cxf/".utf8) + Array(seed.utf8)).prefix(16)))
    }
}
