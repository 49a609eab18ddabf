import Foundation
import PassboxCrypto

/// Which importer reads a file, told by its first bytes, else its name (what `passbox import` and the web UI's
/// import do when no format is named).
public enum ImportFormat {
    /// Whether a file of `format` has a password of its own to ask for: a KeePass file always, a
    /// password-protected Bitwarden export, an encrypted Aegis or 2FAS export.
    public static func needsPassword(_ bytes: [UInt8], format: String) -> Bool {
        switch format {
        case "kdbx": true
        case "bitwarden-json": BitwardenProtected.isProtected(bytes)
        case "aegis", "2fas": AuthenticatorImport.isEncrypted(bytes, format: format)
        default: false
        }
    }

    public static func detect(head: [UInt8], name: String) -> String? {
        let lower = name.lowercased()
        if KDBXFile.looksLikeKDBX(head) { return "kdbx" }
        if OnePasswordImport.looksLikeOnePUX(head) {
            return lower.hasSuffix(".1pux") ? "1pux" : (ProtonPassImport.looksLikeProtonPass(head) || lower.hasSuffix(".zip") ? "proton-pass" : "1pux")
        }
        if ProtonPassImport.looksLikeProtonPass(head) { return "proton-pass" }
        if AuthenticatorImport.looksLikeAegis(head) { return "aegis" }
        if AuthenticatorImport.looksLikeTwoFAS(head) { return "2fas" }
        if OTPAuthListImport.looksLikeList(head) { return "otpauth" }
        if CXFImport.looksLikeCXF(head) { return "cxf" }
        if BitwardenImport.looksLikeBitwarden(head) { return "bitwarden-json" }
        if lower.hasSuffix(".csv") || lower.hasSuffix(".tsv") { return "csv" }
        return nil
    }
}

extension ImportFormat {
    /// Loads what reading an import loads on first use (libxml2, libcrypto and the cipher and key-derivation
    /// code), so a confined parse child, which can open nothing, reads as this process would.
    public static func warmUp() {
        _ = try? XMLTree.parse(Array("<a b=\"c\">d</a>".utf8))
        _ = InternetDates.parse("2024-01-02T03:04:05.5Z")
        let key = [UInt8](repeating: 1, count: AES256CBC.keyLength), iv = [UInt8](repeating: 2, count: AES256CBC.ivLength)
        _ = try? AES256CBC.decrypt(try AES256CBC.encrypt([1, 2, 3], key: key, iv: iv), key: key, iv: iv)
        _ = try? PBKDF2.deriveSHA256(password: [1], salt: [2], rounds: 1, length: 32)
        _ = try? Scrypt.derive(password: [1], salt: [2], n: 2, r: 1, p: 1)
    }
}
