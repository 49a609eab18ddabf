import Foundation
import PassboxCore
import PassboxCrypto

/// KeePassXC's passkey in an entry (its attributes `KPEX_PASSKEY_*`, KeePassXC 2.7.7 on): the credential id and
/// user handle in base64url, the relying party, the user name, and the private key as a PKCS#8 PEM. One passkey
/// per entry, so an export writes an item's first and counts the others as left out.
enum KeePassPasskey {
    static let credentialID = "KPEX_PASSKEY_CREDENTIAL_ID"
    static let privateKey = "KPEX_PASSKEY_PRIVATE_KEY_PEM"
    static let relyingParty = "KPEX_PASSKEY_RELYING_PARTY"
    static let userName = "KPEX_PASSKEY_USERNAME"
    static let userHandle = "KPEX_PASSKEY_USER_HANDLE"
    static let keys: Set<String> = [credentialID, privateKey, relyingParty, userName, userHandle]

    /// The entry's passkey, or nil when it has none or one that does not hold together (its attributes then stay
    /// as concealed custom fields: nothing is lost).
    static func read(_ entry: KeePassEntry, created: Date) -> Passkey? {
        let pem = entry[privateKey]
        guard !pem.isEmpty, let id = base64url(entry[credentialID]), !id.isEmpty, id.count <= 1023 else { return nil }
        let rp = entry[relyingParty].trimmingCharacters(in: .whitespaces).lowercased()
        guard !rp.isEmpty, let handle = base64url(entry[userHandle]), handle.count <= 64, let der = derFromPEM(pem) else { return nil }
        // Only a P-256 key signs for Passbox (ES256): anything else stays as it was, in fields.
        guard (try? P256.publicPoint(of: SecretBytes(copying: der))) != nil else { return nil }
        let user = entry[userName].isEmpty ? entry["UserName"] : entry[userName]
        return Passkey(credentialID: id, relyingParty: rp, userHandle: handle, userName: user, displayName: user, privateKey: der, created: created)
    }

    /// The attributes of `passkey` for an entry (the key protected).
    static func strings(_ passkey: Passkey) -> [KeePassEntry.StringField] {
        [
            .init(key: credentialID, value: passkey.credentialText, isProtected: false),
            .init(key: privateKey, value: pem(passkey.privateKey), isProtected: true),
            .init(key: relyingParty, value: passkey.relyingParty, isProtected: false),
            .init(key: userName, value: passkey.userName, isProtected: false),
            .init(key: userHandle, value: encode(passkey.userHandle), isProtected: false),
        ]
    }

    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func base64url(_ text: String) -> [UInt8]? {
        var s = text.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        s = s.replacingOccurrences(of: "=", with: "")
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s).map { [UInt8]($0) }
    }

    static func derFromPEM(_ pem: String) -> [UInt8]? {
        let lines = pem.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        guard lines.first == "-----BEGIN PRIVATE KEY-----", lines.last == "-----END PRIVATE KEY-----" else { return nil }
        return Data(base64Encoded: lines.dropFirst().dropLast().joined()).map { [UInt8]($0) }
    }

    static func pem(_ der: [UInt8]) -> String {
        let body = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN PRIVATE KEY-----\n\(body)\n-----END PRIVATE KEY-----"
    }
}
