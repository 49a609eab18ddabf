import Foundation

/// A reference to one secret, for scripts: `passbox://VAULT/ITEM/FIELD` (docs/CLI.md).
///
/// VAULT is `local` (the local vault file; account vaults will be named here). ITEM is an item id, id
/// prefix or title; FIELD a field key or label, or `password`, `username`, `notes`, `title`, `website`,
/// `code` (the current one-time code). Parts are percent-decoded, so titles with "/" or spaces can be named.
public struct SecretReference: Sendable, Equatable {
    public let vault: String
    public let item: String
    public let field: String

    public static let scheme = "passbox://"

    public static func parse(_ text: String) throws -> SecretReference {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix(scheme) else {
            throw ValidationError("reference.scheme", ["value": String(trimmed.prefix(60))])
        }
        let parts = trimmed.dropFirst(scheme.count).split(separator: "/", omittingEmptySubsequences: false).map { String($0).removingPercentEncoding ?? String($0) }
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else {
            throw ValidationError("reference.form", ["value": String(trimmed.prefix(80))])
        }
        guard ["local", "default"].contains(parts[0].lowercased()) else {
            throw ValidationError("reference.vault", ["vault": String(parts[0])])
        }
        return SecretReference(vault: parts[0], item: parts[1], field: parts[2])
    }

    /// The value this reference names in `vault` (a one-time code is computed at `now`).
    public func resolve(in vault: Vault, now: Date = Date()) throws -> (item: Item, value: String) {
        let item = try vault.resolve(self.item)
        return (item, try value(in: item, now: now))
    }

    /// The value of this reference's field in `item` (already found).
    public func value(in item: Item, now: Date = Date()) throws -> String {
        let value: String?
        switch field.lowercased() {
        case "title": value = item.title
        case "notes": value = item.notes
        case "website", "url": value = item.websites.first
        case "code", "totp", "otp-code":
            guard let otp = item.fields.first(where: { $0.kind == .otp && !$0.value.isEmpty }) else { value = nil; break }
            value = try OTPInput.parse(otp.value).currentCode(at: now).code
        default: value = item.value(of: field)
        }
        guard let value, !value.isEmpty else {
            throw ValidationError("reference.field", ["title": item.title, "field": field, "id8": String(item.id.prefix(8))])
        }
        return value
    }
}
