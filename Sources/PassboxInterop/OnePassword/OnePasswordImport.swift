import Foundation
import PassboxCore

/// 1Password's 1PUX export (a ZIP holding `export.data`, JSON) as items: each 1Password vault as a vault (or a
/// tag), each item by its category (login, card, note, identity, password, software licence, bank account,
/// database, driver licence, passport, Wi-Fi, server, API credential, SSH key; others as secure notes), its
/// login fields, sections' fields (concealed ones concealed, one-time passwords as the item's), websites,
/// tags, favourite, times and password history. Archived items go to the trash. A Document item's file and
/// a file field's file (`files/DOCUMENTID__NAME` in the archive) come as the item's attachments; a file the
/// archive lacks, or one no item names, is counted. Crypto wallets need an item password of their own.
public enum OnePasswordImport {
    struct Export: Decodable {
        struct Account: Decodable { var vaults: [Vault] }
        struct Vault: Decodable {
            struct Attrs: Decodable { var name: String? }
            var attrs: Attrs?
            var items: [OPItem]
        }
        var accounts: [Account]
    }

    struct OPItem: Decodable {
        struct Details: Decodable {
            struct LoginField: Decodable {
                var value: String?
                var designation: String?
                var name: String?
                var fieldType: String?
            }
            struct Section: Decodable {
                var title: String?
                var fields: [SectionField]?
            }
            struct History: Decodable {
                var value: String?
                var time: Double?
            }
            var loginFields: [LoginField]?
            var notesPlain: String?
            var sections: [Section]?
            var passwordHistory: [History]?
            var password: String?
            var documentAttributes: DocumentAttributes?
        }
        struct DocumentAttributes: Decodable {
            var fileName: String?
            var documentId: String?
        }
        struct Overview: Decodable {
            struct URL: Decodable { var url: String? }
            var title: String?
            var url: String?
            var urls: [URL]?
            var tags: [String]?
        }
        var categoryUuid: String?
        var favIndex: Int?
        var createdAt: Double?
        var updatedAt: Double?
        var state: String?
        var details: Details?
        var overview: Overview?
    }

    /// A section field: its title and a value keyed by its kind ({"concealed": "…"}, {"totp": "…"}, …).
    struct SectionField: Decodable {
        var title: String?
        var id: String?
        var kind: String
        var text: String?
        /// A file field's file: its name and document id.
        var file: DocumentRef?

        enum Keys: String, CodingKey { case title, id, value }

        struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            title = try c.decodeIfPresent(String.self, forKey: .title)
            id = try c.decodeIfPresent(String.self, forKey: .id)
            let value = try c.nestedContainer(keyedBy: AnyKey.self, forKey: .value)
            kind = value.allKeys.first?.stringValue ?? "string"
            let key = AnyKey(stringValue: kind)
            if let s = try? value.decode(String.self, forKey: key) {
                text = s
            } else if let n = try? value.decode(Double.self, forKey: key) {
                text = Self.number(n, kind: kind)
            } else if kind == "address", let a = try? value.decode([String: String].self, forKey: key) {
                text = ["street", "zip", "city", "state", "country"].compactMap { a[$0] }.filter { !$0.isEmpty }.joined(separator: "\n")
            } else if kind == "file" {
                let f = try? value.decode(OPItem.DocumentAttributes.self, forKey: key)
                file = DocumentRef(name: f?.fileName ?? "", id: f?.documentId ?? "")
            } else if kind == "sshKey", let k = try? value.decode(SSHKeyValue.self, forKey: key) {
                text = k.privateKey
            }
        }

        struct SSHKeyValue: Decodable { var privateKey: String? }

        /// A date is seconds since 1970; a month and year is YYYYMM.
        static func number(_ n: Double, kind: String) -> String {
            switch kind {
            case "date":
                let f = DateFormatter()
                f.locale = Locale(identifier: "en_US_POSIX")
                f.timeZone = TimeZone(identifier: "UTC")
                f.dateFormat = "yyyy-MM-dd"
                return f.string(from: Date(timeIntervalSince1970: n))
            case "monthYear":
                // YYYYMM; anything else (a fraction, out of range, not finite) is kept as the number it is.
                guard let v = Int(exactly: n), (0...999_912).contains(v) else { return String(n) }
                return String(format: "%04d-%02d", v / 100, v % 100)
            default:
                return Int(exactly: n).map(String.init) ?? String(n)
            }
        }
    }

    /// A file an item names: its name and 1Password's document id.
    struct DocumentRef {
        var name: String
        var id: String
    }

    static let categories: [String: Category] = [
        "001": .login, "002": .creditCard, "003": .secureNote, "004": .identity, "005": .password, "006": .document, "100": .softwareLicence,
        "101": .bankAccount, "102": .database, "103": .driverLicence, "106": .idDocument, "109": .wifi, "110": .server, "112": .apiCredential,
        "114": .sshKey, "115": .recoveryPhrase,
    ]

    /// 1Password's field ids (and titles) that are a Passbox category's typed fields.
    static let fieldKeys: [String: String] = [
        "ccnum": "number", "cvv": "cvc", "expiry": "expiry", "cardholder": "cardholder", "type": "type", "pin": "pin", "firstname": "first-name",
        "lastname": "last-name", "email": "email", "defphone": "phone", "company": "company", "address": "address", "birthdate": "birth-date",
        "bankname": "bank", "owner": "owner", "accountno": "account-number", "routingno": "routing-number", "iban": "iban", "swift": "bic",
        "reg_code": "licence-key", "product_version": "version", "reg_name": "licensed-to", "reg_email": "email", "order_date": "purchased",
        "database_type": "type", "hostname": "hostname", "port": "port", "database": "database", "username": "username", "password": "password",
        "network_name": "ssid", "wireless_password": "password", "wireless_security": "security", "url": "hostname", "credential": "credential",
        "number": "number", "fullname": "full-name", "class": "classes", "expiry_date": "expiry", "issue_date": "issued", "nationality": "nationality",
        "issuing_authority": "authority", "birthdate_passport": "birth-date", "private_key": "private-key",
    ]

    public static func looksLikeOnePUX(_ head: [UInt8]) -> Bool {
        head.starts(with: [0x50, 0x4B, 0x03, 0x04])
    }

    public static func plan(_ bytes: [UInt8], groupsAsVaults: Bool, now: Date) throws -> ImportPlan {
        let zip = try ZipArchive(bytes)
        guard let data = try zip.data("export.data", limit: Self.fileBudget) else { throw InteropError.notThisFormat(format: "1pux") }
        let export: Export
        do {
            export = try JSONDecoder().decode(Export.self, from: Data(data))
        } catch {
            throw InteropError.damaged(reason: "its export.data is not 1Password's JSON")
        }
        var plan = ImportPlan()
        plan.source = "1Password 1PUX export"
        let fileNames = Set(zip.entries.map(\.name).filter { $0.hasPrefix("files/") && !$0.hasSuffix("/") })
        var unclaimed = fileNames
        // The files' bytes in all, as the archive states them before anything is inflated: past the budget a
        // file is counted as not brought (a small archive may claim gigabytes).
        // One budget for everything the archive inflates: export.data has already drawn on it.
        var budget = Self.fileBudget - data.count
        var read: [String: [UInt8]] = [:]
        for account in export.accounts {
            for vault in account.vaults {
                let vaultName = vault.attrs?.name
                for source in vault.items {
                    guard let (made, documents) = item(from: source, plan: &plan, now: now) else { continue }
                    var item = made
                    if let vaultName, !groupsAsVaults { item.tags.append(vaultName) }
                    var files: [ImportPlan.File] = []
                    for document in documents {
                        guard let entry = Self.entry(for: document, in: fileNames) else {
                            plan.skip("attachment")
                            continue
                        }
                        unclaimed.remove(entry)
                        var bytes = read[entry]
                        if bytes == nil, let stated = zip.entries.first(where: { $0.name == entry })?.size, stated <= budget {
                            bytes = try zip.data(entry, limit: budget)
                            budget -= bytes?.count ?? 0
                            read[entry] = bytes
                        }
                        guard let bytes else {
                            plan.skip("attachment")
                            continue
                        }
                        files.append(ImportPlan.File(name: document.name.isEmpty ? "attachment" : document.name, bytes: bytes))
                    }
                    plan.entries.append(.init(item: item, vaultName: groupsAsVaults && !item.isTrashed ? vaultName : nil, files: files))
                }
            }
        }
        // Files no item names.
        plan.skip("attachment", unclaimed.count)
        return plan
    }

    /// The most file bytes one 1PUX import holds (its files are held in memory until the one save).
    static let fileBudget = 256 << 20

    /// The archive's entry of a document: `files/ID__NAME` (1Password's layout), else the one entry named by its id.
    static func entry(for document: DocumentRef, in names: Set<String>) -> String? {
        guard !document.id.isEmpty, !document.id.contains("/") else { return nil }
        let exact = "files/" + document.id + "__" + document.name
        if names.contains(exact) { return exact }
        let prefixed = names.filter { $0 == "files/" + document.id || $0.hasPrefix("files/" + document.id + "__") }
        return prefixed.count == 1 ? prefixed.first : nil
    }

    static func item(from s: OPItem, plan: inout ImportPlan, now: Date) -> (Item, [DocumentRef])? {
        let category = categories[s.categoryUuid ?? ""] ?? .secureNote
        if category == .recoveryPhrase {
            plan.skip("recoveryPhrase")
            return nil
        }
        var documents: [DocumentRef] = []
        if let d = s.details?.documentAttributes, let id = d.documentId { documents.append(DocumentRef(name: d.fileName ?? "", id: id)) }
        var item = Item(category: category, title: s.overview?.title ?? "", notes: s.details?.notesPlain ?? "", tags: s.overview?.tags ?? [], isFavorite: (s.favIndex ?? 0) > 0)
        for site in ([s.overview?.url] + (s.overview?.urls ?? []).map(\.url)).compactMap({ $0 }) { item.addWebsite(site) }
        func place(_ value: String, key: String?, label: String, concealed: Bool, kind: FieldKind? = nil) {
            guard !value.isEmpty else { return }
            if let key, category.fieldTemplates.contains(where: { $0.key == key }), item.value(of: key) == nil {
                item.setValue(value, for: key)
            } else {
                item.fields.append(Field(label: KeePassImport.uniqueLabel(label, in: item), kind: kind ?? (concealed ? .hidden : value.contains("\n") ? .multiline : .text), value: value))
            }
        }
        for f in s.details?.loginFields ?? [] {
            guard let value = f.value else { continue }
            let key = f.designation == "username" ? "username" : f.designation == "password" ? "password" : nil
            place(value, key: key, label: f.name ?? f.designation ?? "Field", concealed: f.fieldType == "P")
        }
        if let password = s.details?.password { place(password, key: "password", label: "Password", concealed: true) }
        for section in s.details?.sections ?? [] {
            for f in section.fields ?? [] {
                // A file field's bytes are among files/: an attachment of the item.
                if let file = f.file {
                    documents.append(file)
                    continue
                }
                guard let text = f.text, !text.isEmpty else { continue }
                let label = (f.title ?? "").isEmpty ? (f.id ?? "Field") : f.title!
                switch f.kind {
                case "totp": place(text, key: "otp", label: label, concealed: true, kind: .otp)
                case "concealed": place(text, key: f.id.flatMap { fieldKeys[$0] }, label: label, concealed: true)
                case "date": place(text, key: f.id.flatMap { fieldKeys[$0] }, label: label, concealed: false, kind: .date)
                case "monthYear": place(text, key: f.id.flatMap { fieldKeys[$0] }, label: label, concealed: false, kind: .monthYear)
                case "email": place(text, key: f.id.flatMap { fieldKeys[$0] }, label: label, concealed: false, kind: .email)
                case "sshKey": place(text, key: "private-key", label: label, concealed: true, kind: .multilineHidden)
                default: place(text, key: f.id.flatMap { fieldKeys[$0] }, label: label, concealed: false)
                }
            }
        }
        item.created = s.createdAt.map { Date(timeIntervalSince1970: $0).storedPrecision }
        item.lastChanged = s.updatedAt.map { Date(timeIntervalSince1970: $0).storedPrecision }
        if s.state == "archived" { item.trashedAt = now.storedPrecision }
        if item.category.fieldTemplates.contains(where: { $0.key == "password" }) {
            for old in (s.details?.passwordHistory ?? []).sorted(by: { ($0.time ?? 0) < ($1.time ?? 0) }) {
                guard let value = old.value, !value.isEmpty else { continue }
                var snapshot = item
                snapshot.history = []
                snapshot.setValue(value, for: "password")
                item.history.append(ItemVersion(replacedAt: Date(timeIntervalSince1970: old.time ?? 0).storedPrecision, item: snapshot))
            }
        }
        // An untitled item with a file is named after it: the file is what it keeps.
        if item.title.isEmpty, let named = documents.first(where: { !$0.name.isEmpty }) { item.title = named.name }
        if item.isBlank {
            plan.skip("emptyEntry")
            return nil
        }
        return (item, documents)
    }
}
