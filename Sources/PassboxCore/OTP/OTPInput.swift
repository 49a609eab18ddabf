import Foundation
import PassboxCrypto

/// Reads what a user pastes as a one-time-password setup: a base32 key or an `otpauth://` link, and explains
/// problems before anything is saved.
public enum OTPInput {
    /// Parses a setup key or an otpauth link.
    public static func parse(_ text: String, issuer: String = "", account: String = "") throws -> OTPParameters {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let lower = trimmed.lowercased()
        if lower.hasPrefix("otpauth-migration:") {
            throw ValidationError("this is a Google Authenticator export link, which can hold several accounts", hint: "import it with \"passbox totp import\"")
        }
        if lower.hasPrefix("otpauth:") { return try parseURI(trimmed) }
        let digitsOnly = trimmed.filter { !$0.isWhitespace }
        if (6...8).contains(digitsOnly.count), digitsOnly.allSatisfy(\.isNumber) {
            throw ValidationError("\(digitsOnly.count) digits look like a one-time code, not the setup key", hint: "copy the setup key instead: the longer text shown with the QR code (often under \"Can't scan it?\")")
        }
        let secret = try decodeSecret(trimmed)
        let parameters = OTPParameters(secret: secret, issuer: issuer, account: account)
        try parameters.validate()
        return parameters
    }

    static func decodeSecret(_ text: String) throws -> [UInt8] {
        do {
            return try Base32.decode(text)
        } catch Base32.DecodeError.invalidCharacter(let c, let position) {
            let note = "0189".contains(c) ? " (base32 has no 0, 1, 8 or 9: check for O, I, B and g)" : ""
            throw ValidationError("the setup key has \"\(c)\" at position \(position), which is not base32\(note)", hint: "setup keys use only the letters A–Z and the digits 2–7")
        } catch {
            throw ValidationError("the setup key is empty", hint: "paste the key the site shows, or an otpauth:// link")
        }
    }

    /// Parses `otpauth://totp|hotp/LABEL?secret=…&issuer=…&algorithm=…&digits=…&period=…&counter=…`.
    public static func parseURI(_ text: String) throws -> OTPParameters {
        guard let components = URLComponents(string: text), components.scheme?.lowercased() == "otpauth" else {
            throw ValidationError("the otpauth link cannot be read", hint: "copy the whole link, starting with otpauth://")
        }
        guard let kind = OTPParameters.Kind(rawValue: (components.host ?? "").lowercased()) else {
            throw ValidationError("the link's type \"\(components.host ?? "")\" is not supported", hint: "Passbox reads otpauth://totp and otpauth://hotp links")
        }
        var query = [String: String]()
        for item in components.queryItems ?? [] { query[item.name.lowercased()] = item.value ?? "" }
        let label = String((components.percentEncodedPath.removingPercentEncoding ?? components.path).drop { $0 == "/" })
        var labelIssuer = ""
        var account = label
        if let colon = label.firstIndex(of: ":") {
            labelIssuer = String(label[..<colon]).trimmingCharacters(in: .whitespaces)
            account = String(label[label.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        }
        guard let secretText = query["secret"], !secretText.isEmpty else {
            throw ValidationError("the link has no secret", hint: "set the code up again with the site, or type the setup key")
        }
        var p = OTPParameters(kind: kind, secret: try decodeSecret(secretText), issuer: query["issuer"].flatMap { $0.isEmpty ? nil : $0 } ?? labelIssuer, account: account)
        if let algorithm = query["algorithm"] {
            guard let a = HMAC.Algorithm(rawValue: algorithm.uppercased().replacingOccurrences(of: "-", with: "")) else {
                throw ValidationError("the link asks for the \(algorithm) algorithm, which is not supported", hint: "one-time codes use SHA1, SHA256 or SHA512")
            }
            p.algorithm = a
        }
        if let digits = query["digits"] {
            guard let d = Int(digits), OTPParameters.digitsRange.contains(d) else {
                throw ValidationError("the link asks for \(digits)-digit codes, which are not supported", hint: "one-time codes have 6, 7 or 8 digits")
            }
            p.digits = d
        }
        if kind == .totp, let period = query["period"] {
            guard let value = UInt64(period) else {
                throw ValidationError("the link's period \"\(period)\" is not a number of seconds", hint: "use the period the site gives, usually 30")
            }
            p.period = value
        }
        if kind == .hotp {
            guard let counter = query["counter"] else {
                throw ValidationError("the HOTP link has no counter", hint: "set the code up again with the site")
            }
            guard let value = UInt64(counter) else {
                throw ValidationError("the link's counter \"\(counter)\" does not fit in 64 bits", hint: "set the code up again with the site")
            }
            p.counter = value
        }
        try p.validate()
        return p
    }
}

extension OTPParameters {
    /// The canonical otpauth link, as stored in an item's one-time-password field.
    public var uri: String {
        var label = issuer.isEmpty ? account : "\(issuer):\(account)"
        label = label.addingPercentEncoding(withAllowedCharacters: .otpLabelAllowed) ?? ""
        var items = ["secret=\(Base32.encode(secret))"]
        if !issuer.isEmpty { items.append("issuer=\(issuer.addingPercentEncoding(withAllowedCharacters: .otpLabelAllowed) ?? "")") }
        items.append("algorithm=\(algorithm.rawValue)")
        items.append("digits=\(digits)")
        items.append(kind == .totp ? "period=\(period)" : "counter=\(counter)")
        return "otpauth://\(kind.rawValue)/\(label)?\(items.joined(separator: "&"))"
    }
}

extension CharacterSet {
    static let otpLabelAllowed: CharacterSet = {
        var set = CharacterSet.alphanumerics
        set.insert(charactersIn: "-._~@")
        return set
    }()
}
