import Foundation
import PassboxCrypto

/// Google Authenticator's export (`otpauth-migration://offline?data=…`): base64 of a protobuf
/// `MigrationPayload` (docs/FORMATS.md). Only the fields below are read; others are skipped by wire type.
///
/// ```
/// MigrationPayload { repeated OtpParameters otp_parameters = 1; int32 version = 2; int32 batch_size = 3;
///                    int32 batch_index = 4; int32 batch_id = 5; }
/// OtpParameters { bytes secret = 1; string name = 2; string issuer = 3;
///                 enum algorithm = 4 (1 SHA1, 2 SHA256, 3 SHA512, 4 MD5);
///                 enum digits = 5 (1 six, 2 eight); enum type = 6 (1 HOTP, 2 TOTP); int64 counter = 7; }
/// ```
public struct MigrationPayload: Sendable, Equatable {
    public var accounts: [OTPParameters]
    public var batchIndex: Int
    public var batchSize: Int

    /// Decodes an `otpauth-migration://offline?data=…` link.
    public static func decode(link: String) throws -> MigrationPayload {
        guard let components = URLComponents(string: link.trimmingCharacters(in: .whitespacesAndNewlines)),
            components.scheme?.lowercased() == "otpauth-migration",
            let data = components.queryItems?.first(where: { $0.name == "data" })?.value
        else {
            throw ValidationError("migration.notALink")
        }
        // URLComponents already turned %2B into "+"; a "+" left as a space by some scanners is restored.
        var base64 = data.replacingOccurrences(of: " ", with: "+").replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let bytes = Data(base64Encoded: base64) else {
            throw ValidationError("migration.notBase64")
        }
        return try decode(protobuf: Array(bytes))
    }

    public static func decode(protobuf bytes: [UInt8]) throws -> MigrationPayload {
        var reader = ProtobufReader(bytes)
        var payload = MigrationPayload(accounts: [], batchIndex: 0, batchSize: 1)
        var skipped = [ValidationError]()
        while let (field, wire) = try reader.nextField() {
            switch (field, wire) {
            case (1, 2):
                do {
                    payload.accounts.append(try decodeAccount(try reader.lengthDelimited()))
                } catch let e as ValidationError {
                    skipped.append(e)
                }
            case (3, 0): payload.batchSize = Int(Int32(truncatingIfNeeded: try reader.varint()))
            case (4, 0): payload.batchIndex = Int(Int32(truncatingIfNeeded: try reader.varint()))
            default: try reader.skip(wire: wire)
            }
        }
        if payload.accounts.isEmpty, let first = skipped.first {
            throw ValidationError("migration.nothingUsable", first.facts.merging(["cause": first.reason]) { a, _ in a })
        }
        return payload
    }

    static func decodeAccount(_ bytes: [UInt8]) throws -> OTPParameters {
        var reader = ProtobufReader(bytes)
        var p = OTPParameters(secret: [])
        var name = ""
        while let (field, wire) = try reader.nextField() {
            switch (field, wire) {
            case (1, 2): p.secret = try reader.lengthDelimited()
            case (2, 2): name = String(decoding: try reader.lengthDelimited(), as: UTF8.self)
            case (3, 2): p.issuer = String(decoding: try reader.lengthDelimited(), as: UTF8.self)
            case (4, 0):
                switch try reader.varint() {
                case 0, 1: p.algorithm = .sha1
                case 2: p.algorithm = .sha256
                case 3: p.algorithm = .sha512
                default: throw ValidationError("migration.md5", ["name": name])
                }
            case (5, 0):
                switch try reader.varint() {
                case 0, 1: p.digits = 6
                case 2: p.digits = 8
                default: throw ValidationError("migration.digits", ["name": name])
                }
            case (6, 0):
                switch try reader.varint() {
                case 1: p.kind = .hotp
                case 0, 2: p.kind = .totp
                default: throw ValidationError("migration.type", ["name": name])
                }
            case (7, 0): p.counter = try reader.varint()
            default: try reader.skip(wire: wire)
            }
        }
        // The name is "Issuer:account" or just the account.
        if let colon = name.firstIndex(of: ":") {
            if p.issuer.isEmpty { p.issuer = String(name[..<colon]) }
            p.account = String(name[name.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        } else {
            p.account = name
        }
        try p.validate()
        return p
    }
}

/// A minimal protobuf wire-format reader: varints, length-delimited fields, and skipping fixed fields.
struct ProtobufReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func varint() throws -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < bytes.count, shift < 64 else { throw Self.malformed }
            let b = bytes[offset]
            offset += 1
            value |= UInt64(b & 0x7f) << shift
            if b & 0x80 == 0 { return value }
            shift += 7
        }
    }

    mutating func nextField() throws -> (Int, Int)? {
        guard offset < bytes.count else { return nil }
        let key = try varint()
        return (Int(key >> 3), Int(key & 7))
    }

    mutating func lengthDelimited() throws -> [UInt8] {
        let length = try varint()
        guard length <= UInt64(bytes.count - offset) else { throw Self.malformed }
        defer { offset += Int(length) }
        return Array(bytes[offset..<(offset + Int(length))])
    }

    mutating func skip(wire: Int) throws {
        switch wire {
        case 0: _ = try varint()
        case 1: try advance(8)
        case 2: _ = try lengthDelimited()
        case 5: try advance(4)
        default: throw Self.malformed
        }
    }

    private mutating func advance(_ n: Int) throws {
        guard offset + n <= bytes.count else { throw Self.malformed }
        offset += n
    }

    static let malformed = ValidationError("migration.damaged")
}
