import Foundation
import PassboxProtocol

/// The browser extension's messages (docs/PROTOCOL.md, "The browser extension"), as `passbox browser-host`
/// turns them into the socket's frames. Here rather than in the host so the fuzzer reaches it.
public enum BrowserMessage {
    /// The extension's message as a socket frame: its JSON without `secrets` (with the session added where the
    /// operation takes one), a zero byte, and each secret with its 4-byte big-endian length.
    public static func socketFrame(_ message: [UInt8], session: String?) throws -> ([UInt8], OperationName) {
        guard var object = try JSONSerialization.jsonObject(with: Data(message)) as? [String: Any],
            var request = object["request"] as? [String: Any], let name = request["op"] as? String
        else { throw ProtocolError(.badRequest, ["reason": "not a request message"]) }
        guard let operation = OperationName(rawValue: name) else {
            throw ProtocolError(.unsupported, ["operation": String(name.prefix(60)), "agent": String(ProtocolVersion.current)])
        }
        let secrets = object["secrets"] as? [String] ?? []
        guard object["secrets"] == nil || object["secrets"] is [String] else { throw ProtocolError(.badRequest, ["reason": "secrets is a list of strings"]) }
        object["secrets"] = nil
        if let spec = OperationRegistry.current.spec(operation), spec.bodyType is any BrowserScoped.Type {
            var body = request["body"] as? [String: Any] ?? [:]
            body["session"] = session
            request["body"] = body
            object["request"] = request
        }
        var frame = [UInt8](try JSONSerialization.data(withJSONObject: object))
        guard !secrets.isEmpty else { return (frame, operation) }
        frame.append(0)
        for secret in secrets {
            let bytes = Array(secret.utf8)
            for shift in [24, 16, 8, 0] { frame.append(UInt8((bytes.count >> shift) & 0xff)) }
            frame += bytes
        }
        return (frame, operation)
    }

}
