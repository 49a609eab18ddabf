import Foundation

/// The version of the agent protocol and of the web UI's JSON API. A client and an agent of different
/// versions refuse each other with `ErrorCode.versionMismatch`, naming both versions.
public enum ProtocolVersion {
    public static let current = 2
}

/// One request as it travels: the protocol version, the client's language (for nothing but the agent's own
/// log; wording happens in the client) and the operation.
public struct RequestFrame: Codable, Sendable {
    public var version: Int
    public var request: Request

    public init(_ request: Request, version: Int = ProtocolVersion.current) {
        self.version = version
        self.request = request
    }
}

/// One reply as it travels.
public struct ReplyFrame: Codable, Sendable {
    public var version: Int
    public var reply: Reply

    public init(_ reply: Reply, version: Int = ProtocolVersion.current) {
        self.version = version
        self.reply = reply
    }
}

/// The JSON coding of protocol values. On the wire (the agent's socket, later the web UI's API) dates are
/// milliseconds since 1970 as numbers, which decode an order of magnitude faster than ISO 8601 strings;
/// JSON shown to people (`--json`) has ISO 8601 dates and sorted, indented keys.
public enum ProtocolCoding {
    public static func wireEncode<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    public static func wireDecode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return try decoder.decode(type, from: data)
    }

    /// JSON for people: ISO 8601 dates, sorted keys, indented when `pretty`.
    public static func encode<T: Encodable>(_ value: T, pretty: Bool = false) throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(type, from: data)
    }
}
