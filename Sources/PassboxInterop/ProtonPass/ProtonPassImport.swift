import Foundation
import PassboxCore

/// Proton Pass's unencrypted export (docs/FORMATS.md "Proton Pass"): `data.json`, bare or in the export's
/// ZIP (`Proton Pass/data.json`). Its vaults become tags or vaults; logins (email and username, every
/// website, the one-time password), notes, cards, identities, Wi-Fi networks, SSH keys and aliases (a
/// login with the alias address) become items; extra fields come as fields (hidden ones concealed, TOTP ones
/// as the one-time password when the item has none); trashed items (state 2) go to the trash. Passkeys
/// cannot be brought over, and are counted. A PGP-encrypted export is refused by name.
public enum ProtonPassImport {
    struct Export: Decodable {
        var encrypted: Bool?
        var vaults: [String: PPVault]?
    }

    struct PPVault: Decodable {
        var name: String?
        var items: [PPItem]?
    }

    struct PPItem: Decodable {
        var data: PPData
        var state: Int?
        var aliasEmail: String?
        var createTime: Double?
        var modifyTime: Double?
        var pinned: Bool?
    }

    struct PPData: Decodable {
        var metadata: Metadata?
        var extraFields: [ExtraField]?
        var type: String
        var content: [String: Value]?
    }

    struct Metadata: Decodable {
        var name: String?
        var note: String?
    }

    struct ExtraField: Decodable {
        var fieldName: String?
        var type: String?
        var data: FieldData?
    }

    struct FieldData: Decodable {
        var content: String?
        var totpUri: String?
    }

    /// A content value: text, a list of texts (urls), a list of anything (passkeys), or anything else.
    enum Value: Decodable {
        case text(String), list([String]), count(Int), other
        init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let s = try? c.decode(String.self) {
                self = .text(s)
            } else if let l = try? c.decode([String].self) {
                self = .list(l)
            } else if let n = try? c.decode(Int.self) {
                self = .text(String(n))
            } else if let any = try? c.decode([Ignored].self) {
                self = .count(any.count)
            } else {
                self = .other
            }
        }
        var text: String? { if case .text(let s) = self, !s.isEmpty { s } else { nil } }
        var list: [String] { if case .list(let l) = self { l } else { [] } }
        var count: Int {
            switch self {
            case .list(let l): l.count
            case .count(let n): n
            default: 0
            }
        }
    }

    /// Any JSON value, read and dropped.
    struct Ignored: Decodable {
        init(from decoder: Decoder) throws {}
    }

    public static func looksLikeProtonPass(_ head: [UInt8]) -> Bool {
        let text = String(decoding: head.prefix(4096), as: UTF8.self)
        return text.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("{") && text.contains("\"userId\"") && text.contains("\"vaults\"")
    }

    static let pgpRefusal = "a PGP-encrypted Proton Pass export (export it again without encryption)"

    public static func plan(_ bytes: [UInt8], groupsAsVaults: Bool, now: Date) throws -> ImportPlan {
        var json = bytes
        if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            let zip = try ZipArchive(bytes)
            guard let entry = zip.entries.first(where: { $0.name == "data.json" || $0.name.hasSuffix("/data.json") }),
                let data = try zip.data(entry.name, limit: KDBXFile.inflatedLimit)
            else {
                if zip.entries.contains(where: { $0.name.hasSuffix(".pgp") }) { throw InteropError.unsupported(what: pgpRefusal) }
                throw InteropError.notThisFormat(format: "Proton Pass")
            }
            json = data
        } else if bytes.starts(with: Array("-----BEGIN PGP".utf8)) {
            throw InteropError.unsupported(what: pgpRefusal)
        }
        let export: Export
        do {
            export = try JSONDecoder().decode(Export.self, from: Data(json))
        } catch {
            throw InteropError.notThisFormat(format: "Proton Pass")
        }
        guard export.encrypted != true else { throw InteropError.unsupported(what: pgpRefusal) }
        guard let vaults = export.vaults else { throw InteropError.notThisFormat(format: "Proton Pass") }
        var plan = ImportPlan()
        plan.source = "Proton Pass export, unencrypted"
        for (_, vault) in vaults.sorted(by: { ($0.value.name ?? "", $0.key) < ($1.value.name ?? "", $1.key) }) {
            let vaultName = vault.name.flatMap { $0.isEmpty ? nil : $0 }
            for source in vault.items ?? [] {
                guard var item = item(from: source, plan: &plan, now: now) else { continue }
                if let vaultName, !groupsAsVaults { item.tags.append(vaultName) }
                plan.entries.append(.init(item: item, vaultName: groupsAsVaults && !item.isTrashed ? vaultName : nil))
            }
        }
        return plan
    }

    static func item(from s: PPItem, plan: inout ImportPlan, now: Date) -> Item? {
        let content = s.data.content ?? [:]
        let category: Category
        switch s.data.type {
        case "login", "alias": category = .login
        case "note": category = .secureNote
        case "creditCard": category = .creditCard
        case "identity": category = .identity
        case "wifi": category = .wifi
        case "sshKey": category = .sshKey
        default:
            plan.skip("unknownType")
            return nil
        }
        var item = Item(category: category, title: s.data.metadata?.name ?? "", notes: s.data.metadata?.note ?? "", isFavorite: s.pinned ?? false)
        func set(_ key: String, _ name: String) {
            if let value = content[name]?.text { item.setValue(value, for: key) }
        }
        switch s.data.type {
        case "login":
            let email = content["itemEmail"]?.text, username = content["itemUsername"]?.text ?? content["username"]?.text
            if let username {
                item.setValue(username, for: "username")
                if let email, email != username { item.fields.append(Field(label: "Email", kind: .email, value: email)) }
            } else if let email {
                item.setValue(email, for: "username")
            }
            set("password", "password")
            for url in content["urls"]?.list ?? [] { item.addWebsite(url) }
            if let totp = content["totpUri"]?.text { item.addOneTimePassword(totp) }
            plan.skip("passkey", content["passkeys"]?.count ?? 0)
        case "alias":
            if let alias = s.aliasEmail, !alias.isEmpty { item.setValue(alias, for: "username") }
        case "creditCard":
            set("cardholder", "cardholderName")
            set("number", "number")
            set("cvc", "verificationCode")
            set("pin", "pin")
            if let expiry = content["expirationDate"]?.text {
                // Proton writes "YYYY-MM" (older exports "MMYYYY").
                let digits = expiry.filter(\.isNumber)
                if expiry.count == 7, Array(expiry)[4] == "-" {
                    item.setValue(expiry, for: "expiry")
                } else if digits.count == 6 {
                    item.setValue("\(digits.suffix(4))-\(digits.prefix(2))", for: "expiry")
                } else {
                    item.fields.append(Field(label: "Expiration date", kind: .text, value: expiry))
                }
            }
        case "identity":
            set("first-name", "firstName")
            set("last-name", "lastName")
            set("email", "email")
            set("phone", "phoneNumber")
            set("company", "company")
            let address = ["streetAddress", "zipOrPostalCode", "city", "stateOrProvince", "countryOrRegion"].compactMap { content[$0]?.text }.joined(separator: "\n")
            if !address.isEmpty { item.setValue(address, for: "address") }
            if let full = content["fullName"]?.text, item.value(of: "first-name") == nil { item.fields.append(Field(label: "Full name", kind: .text, value: full)) }
        case "wifi":
            set("ssid", "ssid")
            set("password", "password")
            set("security", "security")
        case "sshKey":
            set("private-key", "privateKey")
            set("public-key", "publicKey")
        default: break
        }
        for f in s.data.extraFields ?? [] {
            let label = KeePassImport.uniqueLabel(f.fieldName.flatMap { $0.isEmpty ? nil : $0 } ?? "Field", in: item)
            switch f.type {
            case "totp":
                let setup = f.data?.totpUri ?? f.data?.content ?? ""
                if item.value(of: "otp") == nil, category.fieldTemplates.contains(where: { $0.key == "otp" }) {
                    item.addOneTimePassword(setup)
                } else if !setup.isEmpty {
                    item.fields.append(Field(label: label, kind: .hidden, value: setup))
                }
            case "hidden":
                if let v = f.data?.content, !v.isEmpty { item.fields.append(Field(label: label, kind: .hidden, value: v)) }
            default:
                if let v = f.data?.content, !v.isEmpty { item.fields.append(Field(label: label, kind: .text, value: v)) }
            }
        }
        if item.isBlank {
            plan.skip("emptyEntry")
            return nil
        }
        item.created = s.createTime.map { Date(timeIntervalSince1970: $0).storedPrecision }
        item.lastChanged = s.modifyTime.map { Date(timeIntervalSince1970: $0).storedPrecision }
        if s.state == 2 { item.trashedAt = now.storedPrecision }
        return item
    }
}
