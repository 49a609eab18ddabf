import Foundation
import PassboxCore

/// A list of `otpauth://` links, one a line (what andOTP, FreeOTP+, Aegis and many scripts write as plain
/// text), and Google Authenticator's `otpauth-migration://` export links among them: each account becomes a
/// One-Time Password item. Blank lines and lines starting with `#` are passed over; any other line that does
/// not read is counted as an invalid code, never guessed at.
public enum OTPAuthListImport {
    /// The most lines read (a list of authenticator accounts is a few hundred at most).
    static let lineLimit = 100_000

    /// Whether the first line that is neither blank nor a `#` comment is an otpauth link.
    public static func looksLikeList(_ head: [UInt8]) -> Bool {
        let text = String(decoding: head.prefix(4096), as: UTF8.self)
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces).lowercased()
            if line.isEmpty || line.hasPrefix("#") || line == "\u{FEFF}" { continue }
            return line.hasPrefix("otpauth://") || line.hasPrefix("otpauth-migration://") || line.hasPrefix("\u{FEFF}otpauth")
        }
        return false
    }

    public static func plan(_ bytes: [UInt8], groupsAsVaults: Bool) throws -> ImportPlan {
        guard let text = String(bytes: bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes, encoding: .utf8) else {
            throw InteropError.notThisFormat(format: "otpauth")
        }
        var plan = ImportPlan()
        var lines = 0
        var links = 0
        for raw in text.split(whereSeparator: \.isNewline) {
            lines += 1
            guard lines <= lineLimit else { throw InteropError.tooLarge(limitMiB: KDBXFile.sizeLimit >> 20) }
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let accounts: [OTPParameters]
            if line.lowercased().hasPrefix("otpauth-migration:") {
                guard let payload = try? MigrationPayload.decode(link: line) else {
                    plan.skip("invalidCode")
                    continue
                }
                accounts = payload.accounts
            } else if let p = try? OTPInput.parse(line) {
                accounts = [p]
            } else {
                plan.skip("invalidCode")
                continue
            }
            links += 1
            for p in accounts {
                guard (try? p.validate()) != nil else {
                    plan.skip("invalidCode")
                    continue
                }
                var item = Item(category: .oneTimePassword, title: p.issuer.isEmpty ? p.account : p.issuer)
                item.setValue(p.uri, for: "otp")
                if !p.account.isEmpty, !p.issuer.isEmpty { item.setValue(p.account, for: "username") }
                plan.entries.append(.init(item: item, vaultName: nil))
            }
        }
        guard links > 0 || !plan.notBrought.isEmpty else { throw InteropError.notThisFormat(format: "otpauth") }
        plan.source = "a list of \(links) otpauth \(links == 1 ? "link" : "links")"
        return plan
    }
}
