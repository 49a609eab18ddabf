import Foundation

/// The rules a new password must meet.
public enum PasswordRules {
    /// The local vault password (G27): at least 8 characters (counted as characters after NFC, not bytes)
    /// and not only digits. The CLI also shows strength and warns below "strong".
    public static func checkLocalVaultPassword(_ password: String) throws {
        var bytes = Array(password.precomposedStringWithCanonicalMapping.utf8)
        defer { bytes.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } } }
        try bytes.withUnsafeBytes { try checkLocalVaultPassword(utf8: $0) }
    }

    /// The same rules over the NFC UTF-8 bytes of a password that never becomes a `String` (the agent's).
    /// Characters are counted from Unicode scalars without building a string: combining marks, variation
    /// selectors and what a zero-width joiner joins belong to the character before them, and a pair of
    /// regional indicators (a flag) is one character.
    public static func checkLocalVaultPassword(utf8 bytes: UnsafeRawBufferPointer) throws {
        var characters = 0
        var onlyDigits = true
        var joinNext = false
        var pendingIndicator = false
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        decoding: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                let p = scalar.properties
                if p.numericType == nil { onlyDigits = false }
                let extends = p.isGraphemeExtend || p.generalCategory == .spacingMark || p.isVariationSelector || scalar.value == 0x200D
                defer { joinNext = scalar.value == 0x200D }
                if extends || joinNext { continue }
                if (0x1F1E6...0x1F1FF).contains(scalar.value) {
                    if pendingIndicator { pendingIndicator = false; continue }
                    pendingIndicator = true
                } else {
                    pendingIndicator = false
                }
                characters += 1
            case .emptyInput: break decoding
            case .error:
                characters += 1
                onlyDigits = false
            }
        }
        guard characters >= 8 else {
            throw ValidationError("password.short", ["characters": String(characters)])
        }
        guard !onlyDigits else {
            throw ValidationError("password.digitsOnly")
        }
    }
}
