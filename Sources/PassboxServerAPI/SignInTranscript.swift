import Foundation

/// What a device signs to sign in (security.md §4): the label, the server's origin, the email, the server's
/// fresh challenge and the device id. The server verifies the signature with the account's public sign-in
/// key, so a signature is good for one server, one account, one challenge and one device only.
///
/// Each part is written as its length (4 bytes, big-endian) then its bytes, so no two different sets of
/// parts give the same transcript.
public enum SignInTranscript {
    /// The label for a sign-in with the master password and Secret Key.
    public static let signInLabel = "passbox/v1/auth"
    /// The label for a sign-in with a recovery code (a different label, so one signature never serves as
    /// the other).
    public static let recoveryLabel = "passbox/v1/recovery-auth"
    /// The label for proving the current sign-in key when the master password changes.
    public static let passwordChangeLabel = "passbox/v1/password-change"
    /// The label for proving the current sign-in key when two-factor sign-in is turned off.
    public static let twoFactorOffLabel = "passbox/v1/2fa-off"
    /// The label for proving the current sign-in key when a recovery code is set up.
    public static let recoverySetupLabel = "passbox/v1/recovery-setup"
    /// The label for proving the current sign-in key when two-factor sign-in is turned on (a session token
    /// alone must not be able to bind the account to another authenticator).
    public static let twoFactorOnLabel = "passbox/v1/2fa-on"
    /// The label for proving the current sign-in key when other devices are signed out.
    public static let deviceSignOutLabel = "passbox/v1/device-signout"
    /// The label for proving the current sign-in key when a family's owners are let help the account back in
    /// (a session token alone must not be able to hand the account to them).
    public static let familyRecoveryLabel = "passbox/v1/family-recovery-on"

    /// The bytes to sign. `origin` is the server's scheme, host and port as the client reached it
    /// (`https://vault.example.org:8787`); `email` as the account stores it (see `normalizedEmail`).
    public static func bytes(label: String = signInLabel, origin: String, email: String, challenge: [UInt8], deviceID: String) -> [UInt8] {
        var out: [UInt8] = []
        for part in [Array(label.utf8), Array(origin.utf8), Array(email.utf8), challenge, Array(deviceID.utf8)] {
            let n = UInt32(part.count)
            out += [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
            out += part
        }
        return out
    }

    /// An origin as both sides sign it: scheme and host in lower case, no trailing slash, and no port when it
    /// is the scheme's default (443 for https, 80 for http), so "HTTPS://Vault.example.org:443/" and
    /// "https://vault.example.org" sign alike.
    public static func normalizedOrigin(_ origin: String) -> String {
        var text = origin.trimmingCharacters(in: .whitespaces)
        while text.hasSuffix("/") { text.removeLast() }
        guard let schemeEnd = text.range(of: "://") else { return text }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        var authority = text[schemeEnd.upperBound...].lowercased()
        if scheme == "https", authority.hasSuffix(":443") { authority.removeLast(4) }
        if scheme == "http", authority.hasSuffix(":80") { authority.removeLast(3) }
        return scheme + "://" + authority
    }

    /// An email as accounts store and sign it: surrounding spaces dropped, ASCII letters in lower case
    /// (the part before the @ is case-sensitive in theory, never in practice).
    public static func normalizedEmail(_ email: String) -> String {
        var bytes = Array(email.utf8)
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes.removeLast() }
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes.removeFirst() }
        return String(decoding: bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
