import Foundation

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

/// The version of the account server's API (`/v1`), reported by `GET /v1/health`. It moves on its own now:
/// up to 12 it was the agent protocol's number, and it was frozen there when the agent protocol began to
/// negotiate (generation 13).
///
/// From 13 every client request carries its version in the `Passbox-API` header, and a server answers a client
/// older than `oldestClient` with `clientTooOld` (HTTP 400) instead of something that client would misread. A
/// request without the header comes from a client of version 12 or earlier (`unmarked`).
public enum ServerAPI {
    public static let version = 13
    /// The oldest client version this server serves.
    public static let oldestClient = 12
    /// The request header a client names its version in.
    public static let header = "Passbox-API"
    /// The version of a request without the header.
    public static let unmarked = 12
}
