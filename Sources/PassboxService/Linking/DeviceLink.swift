import Foundation
import PassboxCrypto
import PassboxProtocol

/// Device linking's cryptography (security.md §6c, docs/PROTOCOL.md "Device linking", issue 33).
///
/// The old device shows a one-time secret `k` (120 bits: a typed code of six groups of four, or inside a
/// `passbox-link:` address or its QR code). Both devices derive from it the link's id (what the server knows)
/// and a key that authenticates their ephemeral X25519 keys:
/// - hello (new → old): version, the new device's public key, its name; HMAC-SHA256 under the auth key;
/// - reply (old → new): version, the old device's public key; HMAC over the hello and the key.
/// The shared secret of the two keys gives a session key and a six-digit code, both bound to the whole
/// transcript; the old device seals email, server and Secret Key under the session key only after its user
/// says the new device's screen shows the same code. A server that does not know `k` can relay, drop or
/// delay the messages, but any key of its own fails the HMAC.
public struct LinkSecret: Sendable, Equatable {
    public static let length = 15
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    public let bytes: [UInt8]
    /// The link's id: what the server knows of it (16 bytes of HKDF, base64url); `k` does not follow from it.
    /// Derived once: every poll names it.
    public let id: String

    public init(bytes: [UInt8]) throws {
        guard bytes.count == Self.length else { throw ProtocolError(.linkInvalid, ["problem": "format"]) }
        self.bytes = bytes
        let derived = try HKDF.deriveKey(from: SecretBytes(copying: bytes), salt: [], info: "passbox/v1/link-id", length: 16).revealBytes()
        id = Data(derived).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    public static func generate() -> LinkSecret { try! LinkSecret(bytes: SecureRandom.bytes(count: length)) }

    /// The code to type: 24 characters of Crockford's base32 in six groups of four.
    public var code: String {
        var bits = 0, value = 0
        var chars: [UInt8] = []
        for byte in bytes {
            value = (value << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                chars.append(Self.alphabet[(value >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        let text = String(decoding: chars, as: UTF8.self)
        return stride(from: 0, to: text.count, by: 4).map { i in String(text.dropFirst(i).prefix(4)) }.joined(separator: "-")
    }

    /// Reads a typed code forgivingly (case, spaces and dashes ignored; O read as 0, I and L as 1).
    public init(code: String) throws {
        var value = 0, bits = 0, symbols = 0
        var out: [UInt8] = []
        // Non-ASCII is refused before anything is upper-cased ("ß" must not become "SS").
        guard code.unicodeScalars.allSatisfy(\.isASCII) else { throw ProtocolError(.linkInvalid, ["problem": "format"]) }
        for scalar in code.uppercased().unicodeScalars {
            if scalar == " " || scalar == "-" || scalar == "\t" { continue }
            var c = UInt8(truncatingIfNeeded: scalar.value)
            symbols += 1
            if c == UInt8(ascii: "O") { c = UInt8(ascii: "0") }
            if c == UInt8(ascii: "I") || c == UInt8(ascii: "L") { c = UInt8(ascii: "1") }
            guard let digit = Self.alphabet.firstIndex(of: c) else { throw ProtocolError(.linkInvalid, ["problem": "format"]) }
            value = ((value << 5) | digit) & 0xFFFF
            bits += 5
            if bits >= 8 {
                out.append(UInt8((value >> (bits - 8)) & 0xFF))
                bits -= 8
            }
        }
        // Exactly 24 symbols: 120 bits, nothing left over (a 25th character is a typo, not padding).
        guard symbols == 24, bits == 0 else { throw ProtocolError(.linkInvalid, ["problem": "format"]) }
        try self.init(bytes: out)
    }


    /// `passbox-link:v1?server=ORIGIN&id=ID&k=CODE`.
    public func uri(server: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let encoded = server.addingPercentEncoding(withAllowedCharacters: allowed) ?? server
        return "passbox-link:v1?server=\(encoded)&id=\(id)&k=\(code.replacingOccurrences(of: "-", with: ""))"
    }

    /// A `passbox-link:` address (or a text holding one): its server and secret; the id must be the secret's.
    public static func parse(uri text: String) throws -> (server: String, secret: LinkSecret) {
        guard let start = text.range(of: "passbox-link:v1?") else { throw ProtocolError(.linkInvalid, ["problem": "format"]) }
        let query = text[start.upperBound...].prefix { !$0.isWhitespace && $0 != "\"" && $0 != "<" && $0 != ">" }
        var fields: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            fields[parts[0]] = parts[1].removingPercentEncoding
        }
        guard let server = fields["server"], !server.isEmpty, let k = fields["k"] else { throw ProtocolError(.linkInvalid, ["problem": "format"]) }
        let secret = try LinkSecret(code: k)
        if let id = fields["id"], id != secret.id { throw ProtocolError(.linkInvalid, ["problem": "checksum"]) }
        return (server, secret)
    }

    var authKey: SecretBytes {
        get throws { try HKDF.deriveKey(from: SecretBytes(copying: bytes), salt: Array(id.utf8), info: "passbox/v1/link-auth") }
    }
}

/// What the new device tells and the old device confirms: the two ephemeral keys, the name, and from them
/// the session key and the six-digit code.
public struct LinkExchange: Sendable {
    public static let version: UInt8 = 1
    static let helloLabel = Array("passbox/v1/link-hello".utf8) + [0]
    static let replyLabel = Array("passbox/v1/link-reply".utf8) + [0]
    static let sealLabel = Array("passbox/v1/link-sealed".utf8) + [0]
    public static let nameLimit = 64

    /// The new device's hello: version, public key, name length and name, device id length and id (the id it
    /// will sign in with, so the old device can sign its record), HMAC.
    public static func hello(secret: LinkSecret, key: BoxKeyPair, name: String, deviceID: String) throws -> [UInt8] {
        let nameBytes = Array(String(name.prefix(nameLimit)).utf8.prefix(255))
        let idBytes = Array(deviceID.utf8.prefix(64))
        let body = [version] + key.publicKey + [UInt8(nameBytes.count)] + nameBytes + [UInt8(idBytes.count)] + idBytes
        return body + HMAC.authenticationCode(.sha256, key: try secret.authKey, message: helloLabel + Array(secret.id.utf8) + body)
    }

    /// The hello as the old device reads it: the new device's key and name, once its HMAC verifies.
    public static func readHello(_ message: [UInt8], secret: LinkSecret) throws -> (publicKey: [UInt8], name: String, deviceID: String) {
        guard message.count >= 1 + 32 + 1 + 1 + 32, message[0] == version else { throw ProtocolError(.linkRefused, ["side": "new"]) }
        let nameLength = Int(message[33])
        guard message.count >= 35 + nameLength + 32 else { throw ProtocolError(.linkRefused, ["side": "new"]) }
        let idLength = Int(message[34 + nameLength])
        guard message.count == 35 + nameLength + idLength + 32 else { throw ProtocolError(.linkRefused, ["side": "new"]) }
        let body = Array(message.prefix(35 + nameLength + idLength))
        let tag = Array(message.suffix(32))
        guard HMAC.isValid(tag, algorithm: .sha256, key: try secret.authKey.revealBytes(), message: helloLabel + Array(secret.id.utf8) + body) else {
            throw ProtocolError(.linkRefused, ["side": "new"])
        }
        let name = String(decoding: body[34..<(34 + nameLength)], as: UTF8.self)
        let deviceID = String(decoding: body[(35 + nameLength)...], as: UTF8.self)
        return (Array(body[1..<33]), name, deviceID)
    }

    /// The old device's reply: version, public key, HMAC over the hello and the key.
    public static func reply(secret: LinkSecret, key: BoxKeyPair, hello: [UInt8]) throws -> [UInt8] {
        let body = [version] + key.publicKey
        return body + HMAC.authenticationCode(.sha256, key: try secret.authKey, message: replyLabel + Array(secret.id.utf8) + hello + body)
    }

    /// The reply as the new device reads it: the old device's key, once its HMAC verifies over the hello sent.
    public static func readReply(_ message: [UInt8], secret: LinkSecret, hello: [UInt8]) throws -> [UInt8] {
        guard message.count == 1 + 32 + 32, message[0] == version else { throw ProtocolError(.linkRefused, ["side": "old"]) }
        let body = Array(message.prefix(33))
        guard HMAC.isValid(Array(message.suffix(32)), algorithm: .sha256, key: try secret.authKey.revealBytes(), message: replyLabel + Array(secret.id.utf8) + hello + body) else {
            throw ProtocolError(.linkRefused, ["side": "old"])
        }
        return Array(body[1...])
    }

    /// The session key and the six-digit code, from the shared secret and the whole transcript.
    public static func session(secret: LinkSecret, own: BoxKeyPair, peer: [UInt8], hello: [UInt8], reply: [UInt8]) throws -> (key: SecretBytes, code: String) {
        let shared = try own.sharedSecret(with: peer)
        let transcript = Hash.sha256(hello + reply)
        let key = try shared.withUnsafeBytes { try HKDF.deriveKey(inputKeyMaterial: $0, salt: secret.bytes, info: Array("passbox/v1/link-session".utf8) + [0] + transcript) }
        let digits = try shared.withUnsafeBytes { try HKDF.deriveKey(inputKeyMaterial: $0, salt: secret.bytes, info: Array("passbox/v1/link-confirm".utf8) + [0] + transcript, length: 4) }
        let value = digits.revealBytes().reduce(UInt32(0)) { $0 << 8 | UInt32($1) } % 1_000_000
        let text = String(format: "%06u", value)
        return (key, "\(text.prefix(3)) \(text.suffix(3))")
    }

    /// The sealed credentials: the account's server, email and Secret Key, under the session key.
    public struct Credentials: Codable, Sendable {
        public var server: String
        public var email: String
        public var secretKey: String
        /// The new device's record, signed by the old one (`DeviceAttestation`), uploaded once signed in.
        public var attestation: Data?
        public init(server: String, email: String, secretKey: String, attestation: Data? = nil) {
            self.server = server
            self.email = email
            self.secretKey = secretKey
            self.attestation = attestation
        }
    }

    public static func seal(_ credentials: Credentials, key: SecretBytes, hello: [UInt8], reply: [UInt8]) throws -> [UInt8] {
        var plain = Array(try JSONEncoder().encode(credentials))
        defer { for i in plain.indices { plain[i] = 0 } }
        return try Envelope.seal(plain, key: key, associatedData: sealLabel + Hash.sha256(hello + reply))
    }

    public static func open(_ sealed: [UInt8], key: SecretBytes, hello: [UInt8], reply: [UInt8]) throws -> Credentials {
        let plain: [UInt8]
        do { plain = try Envelope.open(sealed, key: key, associatedData: sealLabel + Hash.sha256(hello + reply)) } catch { throw ProtocolError(.linkRefused, ["side": "old"]) }
        guard let credentials = try? JSONDecoder().decode(Credentials.self, from: Data(plain)) else { throw ProtocolError(.linkRefused, ["side": "old"]) }
        return credentials
    }
}
