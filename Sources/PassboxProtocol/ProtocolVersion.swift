import Foundation

/// The generation of the agent protocol and of the web UI's JSON API. From 13 on, sides of different
/// generations serve each other: each frame carries its sender's generation, an operation the agent lacks
/// is answered `unsupported` (naming it and the agent's generation), and `hello` tells the operations each
/// side knows. A frame older than `oldest` (the exact-match generations before negotiation) is
/// `versionMismatch`, naming both.
public enum ProtocolVersion {
    /// The product's version, as `passbox --version` and the web UI's About say it.
    public static let product = "0.1.0"
    public static let current = 18
    /// The first generation that negotiates (the `since` of every operation older than it).
    public static let firstNegotiated = 13
    /// The oldest generation this side reads.
    public static let oldest = 13
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

/// The request frame's coding: its JSON, then its secrets (the JSON coding itself is in PassboxServerAPI).
extension ProtocolCoding {
    /// A request frame's body: its JSON, then, when the request holds secrets (`SecretText`), a zero byte and
    /// each secret as a 4-byte big-endian length and its bytes. JSON never holds a raw zero byte, so the
    /// first one ends it. The caller wipes the result once sent.
    public static func wireEncodeRequest(_ frame: RequestFrame) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let secrets = SecretText.Frame()
        // Only requests that carry a password need the secret sink (setting userInfo costs a process its
        // first dictionary of that type, measurable in a 5 ms command).
        if frame.request.carriesSecrets { encoder.userInfo[SecretText.frameKey] = secrets }
        var body = Array(try encoder.encode(frame))
        guard !secrets.secrets.isEmpty else { return body }
        body.reserveCapacity(body.count + 1 + secrets.secrets.reduce(0) { $0 + 4 + $1.count })
        body.append(0)
        for secret in secrets.secrets {
            for shift in [24, 16, 8, 0] { body.append(UInt8((secret.count >> shift) & 0xff)) }
            secret.withUnsafeBytes { body.append(contentsOf: $0) }
        }
        return body
    }

    public enum FrameError: Error, Equatable {
        /// The part after the JSON is not a list of length-prefixed secrets.
        case badSecrets
    }

    /// The JSON of a request frame's body and its secrets (see `wireEncodeRequest`), read without copying
    /// the secret bytes anywhere but into their `SecretText`s.
    public static func splitRequest(_ body: [UInt8]) throws -> (json: ArraySlice<UInt8>, secrets: SecretText.Frame) {
        guard let end = body.firstIndex(of: 0) else { return (body[...], SecretText.Frame()) }
        var secrets = [SecretText]()
        var at = end + 1
        try body.withUnsafeBytes { raw in
            while at < raw.count {
                guard raw.count - at >= 4 else { throw FrameError.badSecrets }
                let length = raw[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
                at += 4
                guard length <= raw.count - at else { throw FrameError.badSecrets }
                secrets.append(SecretText(bytes: UnsafeRawBufferPointer(rebasing: raw[at..<(at + length)])))
                at += length
            }
        }
        guard !secrets.isEmpty else { throw FrameError.badSecrets }
        return (body[..<end], SecretText.Frame(secrets))
    }

    /// Decodes a request frame's JSON, its secrets taken from `secrets`.
    public static func wireDecodeRequest<T: Decodable>(_ type: T.Type, json: ArraySlice<UInt8>, secrets: SecretText.Frame, registry: OperationRegistry? = nil) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        decoder.userInfo[SecretText.frameKey] = secrets
        if let registry { decoder.userInfo[OperationRegistry.key] = registry }
        return try decoder.decode(type, from: Data(json))
    }
}
