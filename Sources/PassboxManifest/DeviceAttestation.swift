import Foundation
import PassboxCrypto

/// A device's record signed with the account's signing key (issue 33): which device it is, the name it goes
/// by, and how it came in: made the account (`signup`), signed in with the master password and Secret Key
/// (`password`, signed by itself), or let in by another device through a link (`link`, signed by that device,
/// which names itself). The server keeps it beside the device's sessions; every device checks it against the
/// account's public signing key, so a device the server lists without such a record is one none of the
/// account's devices signed for.
public struct DeviceAttestation: Codable, Sendable, Equatable {
    public var accountID: String
    public var deviceID: String
    public var name: String
    /// "signup", "password" or "link".
    public var via: String
    public var approverID: String?
    public var approverName: String?
    public var at: Date
    public var signature: Data

    static let label = Array("passbox/v1/device-attestation".utf8) + [0]

    /// The signed bytes: each field length-prefixed, in order.
    func message() -> [UInt8] {
        var out = Self.label
        let millis = Int64((at.timeIntervalSince1970 * 1000).rounded())
        for field in [accountID, deviceID, name, via, approverID ?? "", approverName ?? "", String(millis)] {
            let bytes = Array(field.utf8)
            out += withUnsafeBytes(of: UInt32(bytes.count).bigEndian, Array.init) + bytes
        }
        return out
    }

    public static func make(
        accountID: String, deviceID: String, name: String, via: String, approverID: String? = nil, approverName: String? = nil, key: SigningKey, at: Date = Date()
    ) -> DeviceAttestation {
        let whole = Date(timeIntervalSince1970: (at.timeIntervalSince1970 * 1000).rounded() / 1000)
        var made = DeviceAttestation(
            accountID: accountID, deviceID: deviceID, name: String(name.prefix(100)), via: via, approverID: approverID, approverName: approverName.map { String($0.prefix(100)) },
            at: whole, signature: Data())
        made.signature = Data(key.signature(for: made.message()))
        return made
    }

    /// Whether the record is the account's, for this device, and signed with the account's key.
    public func isValid(accountID: String, deviceID: String, signPublicKey: [UInt8]) -> Bool {
        self.accountID == accountID && self.deviceID == deviceID && ["signup", "password", "link"].contains(via)
            && SigningKey.isValidSignature(Array(signature), for: message(), publicKey: signPublicKey)
    }

    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }

    public init(decoding data: Data) throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        self = try decoder.decode(DeviceAttestation.self, from: data)
    }

    public init(accountID: String, deviceID: String, name: String, via: String, approverID: String?, approverName: String?, at: Date, signature: Data) {
        self.accountID = accountID
        self.deviceID = deviceID
        self.name = name
        self.via = via
        self.approverID = approverID
        self.approverName = approverName
        self.at = at
        self.signature = signature
    }
}
