import Foundation
import PassboxProtocol

/// The device's side of the linking relay (docs/PROTOCOL.md "Device linking"): one call each. The messages
/// are opaque here; `DeviceLink` authenticates and opens them.
extension AccountClient {
    public func startLink(id: String, token: String) throws -> LinkStartReply {
        try call("POST", "/v1/link/start", LinkStartRequest(id: id), token: token, as: LinkStartReply.self)
    }

    /// The hello (no session), the reply or the seal (the old device's session).
    public func sendLink(_ route: String, id: String, message: [UInt8], token: String? = nil) throws {
        let answer = try exchange("POST", "/v1/link/" + route, body: Array(try ProtocolCoding.wireEncode(LinkMessageRequest(id: id, message: Data(message)))), token: token)
        guard answer.status / 100 == 2 else { throw failure(answer) }
    }

    public func pollLink(id: String, side: String, token: String? = nil) throws -> LinkPollReply {
        try call("POST", "/v1/link/poll", LinkPollRequest(id: id, side: side), token: token, as: LinkPollReply.self, limit: 64 << 10)
    }

    /// This session's device record, signed with the account's key.
    public func attest(_ attestation: Data, token: String) throws {
        let answer = try exchange("POST", "/v1/devices/attest", body: Array(try ProtocolCoding.wireEncode(DeviceAttestRequest(attestation: attestation))), token: token)
        guard answer.status / 100 == 2 else { throw failure(answer) }
    }

    public func cancelLink(id: String, token: String? = nil) throws {
        let answer = try exchange("POST", "/v1/link/cancel", body: Array(try ProtocolCoding.wireEncode(LinkCancelRequest(id: id))), token: token)
        guard answer.status / 100 == 2 else { throw failure(answer) }
    }
}
