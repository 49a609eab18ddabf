import Foundation
import PassboxCrypto

/// The k-anonymity range answers of the breached-password check, read where the passwords are (the agent or
/// the CLI's own session) while the network requests run in the command's process.
public enum BreachRanges {
    /// SHA-1 of a password as 40 upper-case hex characters.
    public static func sha1Hex(_ password: String) -> String {
        Hash.sha1(Array(password.utf8)).map { String(format: "%02X", $0) }.joined()
    }

    /// The distinct five-character prefixes of the passwords' SHA-1: all that leaves the device.
    public static func prefixes(of passwords: [String]) -> [String] {
        Array(Set(passwords.map { String(sha1Hex($0).prefix(5)) })).sorted()
    }

    /// Reads one range answer: "SUFFIX:COUNT" lines. Padding lines (count 0), malformed lines and suffixes
    /// that are not 35 hex characters are skipped. Returns full hash → count.
    public static func counts(prefix: String, body: String) -> [String: Int] {
        guard prefix.utf8.count == 5, prefix.utf8.allSatisfy(isHex) else { return [:] }
        var out = [String: Int]()
        for line in body.split(whereSeparator: \.isNewline) {
            let parts = line.split(separator: ":")
            guard parts.count == 2, let count = Int(parts[1].trimmingCharacters(in: .whitespaces)), count > 0 else { continue }
            let suffix = parts[0].trimmingCharacters(in: .whitespaces).uppercased()
            guard suffix.utf8.count == 35, suffix.utf8.allSatisfy(isHex) else { continue }
            out[prefix.uppercased() + suffix] = count
        }
        return out
    }

    /// How often each password appears according to `bodies` (prefix → answer); 0 when not found.
    public static func occurrences(of passwords: [String], bodies: [String: String]) -> [String: Int] {
        var counts = [String: Int]()
        for (prefix, body) in bodies { counts.merge(self.counts(prefix: prefix, body: body)) { $1 } }
        var out = [String: Int]()
        for password in passwords { out[password] = counts[sha1Hex(password)] ?? 0 }
        return out
    }

    static func isHex(_ b: UInt8) -> Bool { (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66) }
}
