import Foundation

/// One Wycheproof test case, with the group's fields merged in, as loose JSON.
public struct WycheproofCase: Sendable, CustomStringConvertible {
    public let id: Int
    public let comment: String
    public let result: String
    public let fields: [String: String]
    public let sizes: [String: Int]

    /// Hex field decoded to bytes (empty when absent).
    public func bytes(_ name: String) -> [UInt8] { Hex.bytes(fields[name] ?? "") }
    public var isValid: Bool { result == "valid" }
    public var description: String { "tcId \(id) (\(result)): \(comment)" }
}

/// Loads Wycheproof JSON files copied into a test bundle.
public enum Wycheproof {
    public static func cases(from url: URL) throws -> [WycheproofCase] {
        let data = try Data(contentsOf: url)
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let groups = root["testGroups"] as? [[String: Any]]
        else { throw CocoaError(.fileReadCorruptFile) }
        var out = [WycheproofCase]()
        for group in groups {
            var groupFields = [String: String]()
            var sizes = [String: Int]()
            for (key, value) in group {
                if let s = value as? String { groupFields[key] = s }
                if let n = value as? Int { sizes[key] = n }
                if let nested = value as? [String: Any], let pk = nested["pk"] as? String { groupFields["pk"] = pk }
            }
            for test in group["tests"] as? [[String: Any]] ?? [] {
                var fields = groupFields
                var testSizes = sizes
                for (key, value) in test {
                    if let s = value as? String { fields[key] = s }
                    if let n = value as? Int { testSizes[key] = n }
                }
                out.append(
                    WycheproofCase(
                        id: test["tcId"] as? Int ?? 0, comment: fields["comment"] ?? "", result: fields["result"] ?? "",
                        fields: fields, sizes: testSizes))
            }
        }
        return out
    }
}
