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

/// The JSON coding every surface uses for protocol values: ISO 8601 dates, sorted keys.
public enum ProtocolCoding {
    public static func encoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    public static func encode<T: Encodable>(_ value: T, pretty: Bool = false) throws -> Data {
        try encoder(pretty: pretty).encode(value)
    }

    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try decoder().decode(type, from: data)
    }
}
