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
            throw ValidationError("otp.migrationLink")
        }
        if lower.hasPrefix("otpauth:") { return try parseURI(trimmed) }
        let digitsOnly = trimmed.filter { !$0.isWhitespace }
        if (6...8).contains(digitsOnly.count), digitsOnly.allSatisfy(\.isNumber) {
            throw ValidationError("otp.looksLikeCode", ["digits": String(digitsOnly.count)])
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
            throw ValidationError("0189".contains(c) ? "otp.notBase32Digit" : "otp.notBase32", ["character": String(c), "position": String(position)])
        } catch {
            throw ValidationError("otp.emptyKey")
        }
    }

    /// Parses `otpauth://totp|hotp/LABEL?secret=…&issuer=…&algorithm=…&digits=…&period=…&counter=…`.
    public static func parseURI(_ text: String) throws -> OTPParameters {
        guard let components = URLComponents(string: text), components.scheme?.lowercased() == "otpauth" else {
            throw ValidationError("otp.badLink")
        }
        guard let kind = OTPParameters.Kind(rawValue: (components.host ?? "").lowercased()) else {
            throw ValidationError("otp.linkType", ["type": components.host ?? ""])
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
            throw ValidationError("otp.noSecret")
        }
        var p = OTPParameters(kind: kind, secret: try decodeSecret(secretText), issuer: query["issuer"].flatMap { $0.isEmpty ? nil : $0 } ?? labelIssuer, account: account)
        if let algorithm = query["algorithm"] {
            guard let a = HMAC.Algorithm(rawValue: algorithm.uppercased().replacingOccurrences(of: "-", with: "")) else {
                throw ValidationError("otp.algorithm", ["algorithm": algorithm])
            }
            p.algorithm = a
        }
        if let digits = query["digits"] {
            guard let d = Int(digits), OTPParameters.digitsRange.contains(d) else {
                throw ValidationError("otp.linkDigits", ["digits": digits])
            }
            p.digits = d
        }
        if kind == .totp, let period = query["period"] {
            guard let value = UInt64(period) else {
                throw ValidationError("otp.linkPeriod", ["period": period])
            }
            p.period = value
        }
        if kind == .hotp {
            guard let counter = query["counter"] else {
                throw ValidationError("otp.noCounter")
            }
            guard let value = UInt64(counter) else {
                throw ValidationError("otp.counterRange", ["counter": counter])
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
