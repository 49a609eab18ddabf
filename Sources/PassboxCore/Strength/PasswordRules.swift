import Foundation

/// The rules a new password must meet.
public enum PasswordRules {
    /// The local vault password (G27): at least 8 characters (counted as characters after NFC, not bytes)
    /// and not only digits. The CLI also shows strength and warns below "strong".
    public static func checkLocalVaultPassword(_ password: String) throws {
        let normalized = password.precomposedStringWithCanonicalMapping
        guard normalized.count >= 8 else {
            throw ValidationError("the password has \(normalized.count) characters; it needs at least 8", hint: "use a long password: four or five random words are easy to type and hard to guess")
        }
        guard !normalized.allSatisfy(\.isNumber) else {
            throw ValidationError("the password is only digits, like a PIN", hint: "use letters too: four or five random words are easy to type and hard to guess")
        }
    }
}
