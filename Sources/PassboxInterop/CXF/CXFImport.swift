import Foundation
import PassboxCore
import PassboxCrypto

/// The FIDO Alliance's Credential Exchange Format (CXF 1.x, the JSON document its Credential Exchange Protocol
/// carries), read from a file: every account's items, each credential mapped to Passbox's fields. Logins
/// (`basic-auth`), passkeys (ES256, counters set to zero as CXF says), one-time passwords (`totp`), notes,
/// cards, SSH keys, Wi-Fi, API keys and custom fields come over; other credential kinds are counted, not brought
/// (docs/FORMATS.md "CXF").
public enum CXFImport {
    /// A CXF document by its first bytes: a JSON object naming the exporter and its accounts.
    public static func looksLikeCXF(_ head: [UInt8]) -> Bool {
        let text = String(decoding: head.prefix(4096), as: UTF8.self)
        return text.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("{") && text.contains("\"exporterRpId\"")
    }

    public static func plan(_ bytes: [UInt8], groupsAsVaults: Bool, now: Date) throws -> ImportPlan {
        guard let header = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any], let accounts = header["accounts"] as? [[String: Any]],
            let version = header["version"] as? [String: Any], let major = version["major"] as? Int
        else { throw InteropError.notThisFormat(format: "CXF") }
        let minor = version["minor"] as? Int ?? 0
        guard major == 1 else { throw InteropError.unsupported(what: "CXF version \(major).\(minor) (Passbox reads CXF 1.x)") }
        var plan = ImportPlan()
        let exporter = (header["exporterDisplayName"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? (header["exporterRpId"] as? String ?? "?")
        plan.source = "CXF \(major).\(minor) from \(exporter)"
        for account in accounts {
            // An item's collections: the top one a vault (with --groups vaults), the path a tag.
            var paths: [String: [String]] = [:]
            func walk(_ collections: [[String: Any]], _ above: [String]) {
                for c in collections {
                    let path = above + [c["title"] as? String ?? ""]
                    for link in c["items"] as? [[String: Any]] ?? [] where link["account"] == nil {
                        if let id = link["item"] as? String, paths[id] == nil { paths[id] = path }
                    }
                    walk(c["subCollections"] as? [[String: Any]] ?? [], path)
                }
            }
            walk(account["collections"] as? [[String: Any]] ?? [], [])
            for source in account["items"] as? [[String: Any]] ?? [] {
                guard var item = item(from: source, plan: &plan, now: now) else { continue }
                let path = (source["id"] as? String).flatMap { paths[$0] }?.filter { !$0.isEmpty } ?? []
                var vaultName: String?
                if groupsAsVaults, let top = path.first {
                    vaultName = top
                    if path.count > 1 { item.tags.append(path.dropFirst().joined(separator: "/")) }
                } else if !path.isEmpty {
                    item.tags.append(path.joined(separator: "/"))
                }
                plan.entries.append(.init(item: item, vaultName: vaultName))
            }
        }
        return plan
    }

    /// The category an item's credentials make: the first that names one, else a secure note.
    static func category(of kinds: [String]) -> Category {
        for kind in kinds {
            switch kind {
            case "basic-auth", "passkey": return .login
            case "credit-card": return .creditCard
            case "ssh-key": return .sshKey
            case "wifi": return .wifi
            case "api-key": return .apiCredential
            default: continue
            }
        }
        return kinds.contains("totp") ? .oneTimePassword : .secureNote
    }

    static func item(from s: [String: Any], plan: inout ImportPlan, now: Date) -> Item? {
        let credentials = s["credentials"] as? [[String: Any]] ?? []
        let kinds = credentials.map { $0["type"] as? String ?? "" }
        var item = Item(category: category(of: kinds), title: s["title"] as? String ?? "", isFavorite: s["favorite"] as? Bool ?? false)
        if let subtitle = s["subtitle"] as? String, !subtitle.isEmpty { item.notes = subtitle }
        item.tags = (s["tags"] as? [String] ?? []).filter { !$0.isEmpty }
        if let scope = s["scope"] as? [String: Any] {
            for url in scope["urls"] as? [String] ?? [] { item.addWebsite(url) }
        }
        for c in credentials {
            credential(c, into: &item, plan: &plan, now: now)
        }
        item.created = date(s["creationAt"])
        item.lastChanged = date(s["modifiedAt"]) ?? item.created
        if item.isBlank && item.passkeys.isEmpty {
            plan.skip("emptyEntry")
            return nil
        }
        return item
    }

    /// One credential into the item: its own fields where the category has them, else fields under its labels.
    static func credential(_ c: [String: Any], into item: inout Item, plan: inout ImportPlan, now: Date) {
        func put(_ value: String?, _ key: String, label: String, concealed: Bool = false) {
            guard let value, !value.isEmpty else { return }
            if item.category.fieldTemplates.contains(where: { $0.key == key }), (item.value(of: key) ?? "").isEmpty {
                item.setValue(value, for: key)
            } else {
                let kind: FieldKind = concealed ? (value.contains("\n") ? .multilineHidden : .hidden) : (value.contains("\n") ? .multiline : .text)
                item.fields.append(Field(label: KeePassImport.uniqueLabel(label, in: item), kind: kind, value: value))
            }
        }
        switch c["type"] as? String ?? "" {
        case "basic-auth":
            put(text(c["username"]), "username", label: "Username")
            put(text(c["password"]), "password", label: "Password", concealed: true)
        case "passkey":
            if let passkey = passkey(c, now: now) { item.passkeys.append(passkey) } else { plan.skip("passkey") }
        case "totp":
            guard let parameters = totp(c) else {
                plan.skip("unsupportedCode")
                return
            }
            item.addOneTimePassword(parameters.uri)
        case "note":
            if let content = text(c["content"]), !content.isEmpty { item.notes = item.notes.isEmpty ? content : item.notes + "\n\n" + content }
        case "credit-card":
            put(text(c["fullName"]), "cardholder", label: "Cardholder name")
            put(text(c["number"]).map { $0.filter { !$0.isWhitespace } }, "number", label: "Number", concealed: true)
            put(text(c["cardType"]), "type", label: "Type")
            put(text(c["verificationNumber"]), "cvc", label: "Verification number", concealed: true)
            put(text(c["pin"]), "pin", label: "PIN", concealed: true)
            if let expiry = text(c["expiryDate"]), expiry.count == 7, expiry.dropFirst(4).first == "-" { put(expiry, "expiry", label: "Expiry date") }
            put(text(c["validFrom"]), "valid-from", label: "Valid from")
        case "ssh-key":
            if let der = (c["privateKey"] as? String).flatMap(KeePassPasskey.base64url), !der.isEmpty { put(KeePassPasskey.pem(der), "private-key", label: "Private key", concealed: true) }
            put(c["keyComment"] as? String, "comment", label: "Comment")
        case "wifi":
            put(text(c["ssid"]), "ssid", label: "Network name")
            put(text(c["passphrase"]), "password", label: "Password", concealed: true)
            put(text(c["networkSecurityType"]), "security", label: "Security")
        case "api-key":
            put(text(c["username"]), "username", label: "Username")
            put(text(c["key"]), "credential", label: "Credential", concealed: true)
            put(text(c["keyType"]), "type", label: "Type")
            put(text(c["url"]), "hostname", label: "Host")
        case "custom-fields":
            for field in c["fields"] as? [[String: Any]] ?? [] {
                guard let value = field["value"] as? String, !value.isEmpty else { continue }
                put(value, "\u{0}", label: field["label"] as? String ?? "Field", concealed: field["fieldType"] as? String == "concealed-string")
            }
        default:
            plan.skip("unknownType")
        }
    }

    /// An editable field's value (`{fieldType, value, label?}`).
    static func text(_ any: Any?) -> String? {
        (any as? [String: Any])?["value"] as? String
    }

    static func date(_ any: Any?) -> Date? {
        guard let seconds = any as? Double, seconds > 0, seconds < 1e11 else { return nil }
        return Date(timeIntervalSince1970: seconds.rounded(.down)).storedPrecision
    }

    /// A CXF passkey as Passbox keeps one (its counter zero, as CXF requires of an importer), or nil when it is
    /// not an ES256 key that holds together.
    static func passkey(_ c: [String: Any], now: Date) -> Passkey? {
        guard let id = (c["credentialId"] as? String).flatMap(KeePassPasskey.base64url), (1...1023).contains(id.count),
            let rp = (c["rpId"] as? String)?.lowercased(), !rp.isEmpty,
            let key = (c["key"] as? String).flatMap(KeePassPasskey.base64url), (try? P256.publicPoint(of: SecretBytes(copying: key))) != nil
        else { return nil }
        let handle = (c["userHandle"] as? String).flatMap(KeePassPasskey.base64url) ?? []
        guard handle.count <= 64 else { return nil }
        let user = c["username"] as? String ?? ""
        let display = (c["userDisplayName"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? user
        return Passkey(credentialID: id, relyingParty: rp, userHandle: handle, userName: user, displayName: display, privateKey: key, signCount: 0, created: now.storedPrecision)
    }

    /// A CXF TOTP credential as otpauth parameters, or nil (an algorithm CXF's importers must pass over, a key that
    /// does not read).
    static func totp(_ c: [String: Any]) -> OTPParameters? {
        guard let secret = c["secret"] as? String, let key = try? Base32.decode(secret), let algorithm = HMAC.Algorithm(rawValue: (c["algorithm"] as? String ?? "sha1").uppercased())
        else { return nil }
        let parameters = OTPParameters(
            secret: key, algorithm: algorithm, digits: c["digits"] as? Int ?? 6, period: UInt64(exactly: c["period"] as? Int ?? 30) ?? 0, issuer: c["issuer"] as? String ?? "",
            account: c["username"] as? String ?? "")
        return (try? parameters.validate()) == nil ? nil : parameters
    }
}
