import Foundation
import PassboxCore
import PassboxCrypto

/// Bitwarden's (and Vaultwarden's) JSON export, unencrypted, as items: logins (every URI, TOTP, password
/// history), secure notes, cards, identities and SSH keys; custom fields (hidden ones concealed, linked ones
/// left out); folders as tags or vaults; items in the trash as trashed; favourites. A password-protected
/// export is opened with its password (`BitwardenProtected`); an export encrypted with its account's key is
/// refused by name.
public enum BitwardenImport {
    struct Export: Decodable {
        var encrypted: Bool?
        var passwordProtected: Bool?
        var folders: [Folder]?
        var items: [BWItem]?
    }

    struct Folder: Decodable {
        var id: String
        var name: String
    }

    struct BWItem: Decodable {
        var type: Int
        var name: String?
        var notes: String?
        var favorite: Bool?
        var folderId: String?
        var fields: [BWField]?
        var login: Login?
        var card: Card?
        var identity: Identity?
        var sshKey: SSHKey?
        var passwordHistory: [PasswordHistory]?
        var creationDate: String?
        var revisionDate: String?
        var deletedDate: String?
    }

    struct BWField: Decodable {
        var name: String?
        var value: String?
        /// 0 text, 1 hidden, 2 boolean, 3 linked.
        var type: Int?
    }

    struct Login: Decodable {
        struct URI: Decodable { var uri: String? }
        var uris: [URI]?
        var username: String?
        var password: String?
        var totp: String?
        var fido2Credentials: [Fido2Credential]?
    }

    /// A passkey as Bitwarden exports it: the credential id as a GUID (one Bitwarden made) or "b64." and
    /// base64url; the PKCS#8 key, the user handle in base64url; the counter as text.
    struct Fido2Credential: Decodable {
        var credentialId: String?, keyType: String?, keyAlgorithm: String?, keyCurve: String?, keyValue: String?, rpId: String?
        var userHandle: String?, userName: String?, counter: String?, rpName: String?, userDisplayName: String?, creationDate: String?
    }

    struct Card: Decodable {
        var cardholderName: String?, brand: String?, number: String?, expMonth: String?, expYear: String?, code: String?
    }

    struct Identity: Decodable {
        var title: String?, firstName: String?, middleName: String?, lastName: String?
        var address1: String?, address2: String?, address3: String?, city: String?, state: String?, postalCode: String?, country: String?
        var company: String?, email: String?, phone: String?, ssn: String?, username: String?, passportNumber: String?, licenseNumber: String?
    }

    struct SSHKey: Decodable {
        var privateKey: String?, publicKey: String?, keyFingerprint: String?
    }

    struct PasswordHistory: Decodable {
        var lastUsedDate: String?
        var password: String?
    }

    public static func looksLikeBitwarden(_ head: [UInt8]) -> Bool {
        let text = String(decoding: head.prefix(4096), as: UTF8.self)
        return text.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("{") && (text.contains("\"items\"") || text.contains("\"encrypted\""))
    }

    public static func plan(_ bytes: [UInt8], password: SecretBytes? = nil, groupsAsVaults: Bool, now: Date) throws -> ImportPlan {
        var export: Export
        do {
            export = try JSONDecoder().decode(Export.self, from: Data(bytes))
        } catch {
            throw InteropError.notThisFormat(format: "Bitwarden JSON")
        }
        var source = "Bitwarden JSON export, unencrypted"
        if export.encrypted == true {
            guard export.passwordProtected == true else {
                throw InteropError.unsupported(what: "an encrypted Bitwarden export tied to its account (export it as password-protected or unencrypted JSON)")
            }
            let (json, line) = try BitwardenProtected.open(bytes, password: password)
            source = line
            do {
                export = try JSONDecoder().decode(Export.self, from: Data(json))
            } catch {
                throw InteropError.damaged(reason: "the decrypted export is not Bitwarden's JSON")
            }
            guard export.encrypted != true else { throw InteropError.damaged(reason: "the decrypted export is encrypted again") }
        }
        guard let items = export.items else { throw InteropError.notThisFormat(format: "Bitwarden JSON") }
        let folders = Dictionary((export.folders ?? []).map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        var plan = ImportPlan()
        plan.source = source
        for source in items {
            guard var item = item(from: source, plan: &plan, now: now) else { continue }
            let folder = source.folderId.flatMap { folders[$0] }
            if let folder, !groupsAsVaults { item.tags.append(folder) }
            plan.entries.append(.init(item: item, vaultName: groupsAsVaults && !item.isTrashed ? folder : nil))
        }
        return plan
    }

    /// A Bitwarden passkey as Passbox keeps one, or nil (counted as not brought) when it is not an ES256 key
    /// that holds together.
    static func passkey(_ c: Fido2Credential, now: Date) -> Passkey? {
        guard c.keyAlgorithm ?? "ECDSA" == "ECDSA", c.keyCurve ?? "P-256" == "P-256", let raw = c.credentialId, let rp = c.rpId?.lowercased(), !rp.isEmpty,
            let key = c.keyValue.flatMap(KeePassPasskey.base64url), (try? P256.publicPoint(of: SecretBytes(copying: key))) != nil
        else { return nil }
        let id: [UInt8]?
        if raw.hasPrefix("b64.") {
            id = KeePassPasskey.base64url(String(raw.dropFirst(4)))
        } else {
            let hex = raw.replacingOccurrences(of: "-", with: "")
            id = hex.count == 32 ? Hex.decode(hex) : nil
        }
        guard let id, (1...1023).contains(id.count) else { return nil }
        let handle = c.userHandle.flatMap(KeePassPasskey.base64url) ?? []
        guard handle.count <= 64 else { return nil }
        return Passkey(
            credentialID: id, relyingParty: rp, userHandle: handle, userName: c.userName ?? "", displayName: c.userDisplayName ?? c.userName ?? "",
            privateKey: key, signCount: UInt32(c.counter ?? "0") ?? 0, created: date(c.creationDate) ?? now.storedPrecision)
    }

    static func date(_ text: String?) -> Date? {
        guard let text else { return nil }
        return InternetDates.parse(text)?.storedPrecision
    }

    static func item(from s: BWItem, plan: inout ImportPlan, now: Date) -> Item? {
        let category: Category
        switch s.type {
        case 1: category = .login
        case 2: category = .secureNote
        case 3: category = .creditCard
        case 4: category = .identity
        case 5: category = .sshKey
        default:
            plan.skip("unknownType")
            return nil
        }
        var item = Item(category: category, title: s.name ?? "", notes: s.notes ?? "", isFavorite: s.favorite ?? false)
        func set(_ value: String?, _ key: String) {
            guard let value, !value.isEmpty else { return }
            item.setValue(value, for: key)
        }
        switch category {
        case .login:
            set(s.login?.username, "username")
            set(s.login?.password, "password")
            item.addOneTimePassword(s.login?.totp ?? "")
            for uri in (s.login?.uris ?? []).compactMap(\.uri) { item.addWebsite(uri) }
            for credential in s.login?.fido2Credentials ?? [] {
                if let passkey = passkey(credential, now: now) { item.passkeys.append(passkey) } else { plan.skip("passkey") }
            }
        case .creditCard:
            set(s.card?.cardholderName, "cardholder")
            set(s.card?.number?.filter { !$0.isWhitespace }, "number")
            set(s.card?.code, "cvc")
            set(s.card?.brand, "type")
            if let month = s.card?.expMonth.flatMap({ Int($0) }), let year = s.card?.expYear.flatMap({ Int($0) }) {
                set(String(format: "%04d-%02d", year < 100 ? year + 2000 : year, month), "expiry")
            }
        case .identity:
            if let id = s.identity {
                set([id.firstName, id.middleName].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " "), "first-name")
                set(id.lastName, "last-name")
                set(id.email, "email")
                set(id.phone, "phone")
                set(id.company, "company")
                let town: String = [id.postalCode, id.city].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
                let address: [String?] = [id.address1, id.address2, id.address3, town, id.state, id.country]
                set(address.compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "\n"), "address")
                let extra: [(String, String?, Bool)] = [
                    ("Title", id.title, false), ("Username", id.username, false), ("Social security number", id.ssn, true), ("Passport number", id.passportNumber, false),
                    ("Licence number", id.licenseNumber, false),
                ]
                for (label, value, concealed) in extra {
                    if let value, !value.isEmpty { item.fields.append(Field(label: label, kind: concealed ? .hidden : .text, value: value)) }
                }
            }
        case .sshKey:
            set(s.sshKey?.privateKey, "private-key")
            set(s.sshKey?.publicKey, "public-key")
            set(s.sshKey?.keyFingerprint, "fingerprint")
        default:
            break
        }
        for f in s.fields ?? [] {
            guard f.type != 3 else {
                plan.skip("linkedField")
                continue
            }
            let value = f.value ?? ""
            guard !value.isEmpty || !(f.name ?? "").isEmpty else { continue }
            let kind: FieldKind = f.type == 1 ? (value.contains("\n") ? .multilineHidden : .hidden) : (value.contains("\n") ? .multiline : .text)
            item.fields.append(Field(label: KeePassImport.uniqueLabel(f.name ?? "Field", in: item), kind: kind, value: value))
        }
        item.created = date(s.creationDate)
        item.lastChanged = date(s.revisionDate)
        if s.deletedDate != nil { item.trashedAt = now.storedPrecision }
        // Bitwarden keeps earlier passwords only: each becomes a version of the item with that password.
        if category == .login {
            let older = (s.passwordHistory ?? []).filter { !($0.password ?? "").isEmpty }.sorted { (date($0.lastUsedDate) ?? .distantPast) < (date($1.lastUsedDate) ?? .distantPast) }
            for old in older {
                var snapshot = item
                snapshot.history = []
                snapshot.setValue(old.password ?? "", for: "password")
                item.history.append(ItemVersion(replacedAt: date(old.lastUsedDate) ?? item.lastChanged ?? now.storedPrecision, item: snapshot))
            }
        }
        if item.isBlank {
            plan.skip("emptyEntry")
            return nil
        }
        return item
    }
}
