import Foundation
import PassboxCrypto
import PassboxProtocol
internal import CLinux

/// The agent protocol's framing (docs/PROTOCOL.md): a 4-byte big-endian length, then that many bytes of a
/// UTF-8 JSON `RequestFrame` (followed by its secrets, see `ProtocolCoding.wireEncodeRequest`) or
/// `ReplyFrame`. Frames over `maximumFrame` are refused.
public enum Framing {
    public static let maximumFrame = 4 << 20

    public enum FrameError: Error, Equatable {
        case closed
        case oversized(Int)
        case io(Int32)
    }

    static func readExactly(_ fd: Int32, _ count: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = out.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + done, count - done) }
            if n == 0 { throw FrameError.closed }
            if n < 0 {
                if errno == EINTR { continue }
                throw FrameError.io(errno)
            }
            done += n
        }
        return out
    }

    /// Reads one frame's bytes.
    public static func readFrame(_ fd: Int32) throws -> [UInt8] {
        let header = try readExactly(fd, 4)
        let length = header.reduce(0) { $0 << 8 | Int($1) }
        guard length <= maximumFrame else { throw FrameError.oversized(length) }
        return try readExactly(fd, length)
    }

    /// Writes `body` as one frame.
    public static func writeFrame(_ fd: Int32, _ body: [UInt8]) throws {
        guard body.count <= maximumFrame else { throw FrameError.oversized(body.count) }
        var frame = [UInt8]()
        frame.reserveCapacity(body.count + 4)
        for shift in [24, 16, 8, 0] { frame.append(UInt8((body.count >> shift) & 0xff)) }
        frame += body
        defer { ConstantTime.wipe(&frame) }
        var done = 0
        while done < frame.count {
            let n = frame.withUnsafeBytes { send(fd, $0.baseAddress! + done, frame.count - done, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FrameError.io(errno)
            }
            done += n
        }
    }

    /// Writes a reply; one too large for a frame becomes a `replyTooLarge` failure. Returns the bytes the
    /// encoded reply took.
    @discardableResult
    public static func write(_ fd: Int32, _ reply: Reply) throws -> Int {
        var body = Array(try ProtocolCoding.wireEncode(ReplyFrame(reply)))
        // A reply may hold a revealed value: its bytes are wiped once sent.
        defer { ConstantTime.wipe(&body) }
        let encoded = body.count
        if body.count > maximumFrame {
            ConstantTime.wipe(&body)
            body = Array(try ProtocolCoding.wireEncode(ReplyFrame(.failure(ProtocolError(.replyTooLarge, ["bytes": String(encoded)])))))
        }
        try writeFrame(fd, body)
        return encoded
    }

    /// Decodes a request frame: a frame that is not one, older than negotiation, or of an operation
    /// `registry` lacks, is a typed failure. Its secrets are copied from `body` straight into `SecretText`s
    /// (the caller wipes `body`).
    public static func decodeRequest(_ body: [UInt8], registry: OperationRegistry = .current) -> Result<Request, ProtocolError> {
        struct VersionOnly: Decodable { var version: Int }
        let parts: (json: ArraySlice<UInt8>, secrets: SecretText.Frame)
        do {
            parts = try ProtocolCoding.splitRequest(body)
        } catch {
            return .failure(ProtocolError(.badRequest, ["reason": "the secrets after the request are cut short"]))
        }
        let frame: RequestFrame
        do {
            frame = try ProtocolCoding.wireDecodeRequest(RequestFrame.self, json: parts.json, secrets: parts.secrets, registry: registry)
        } catch {
            // Only a request that does not decode is read again for its version.
            guard let version = try? ProtocolCoding.wireDecodeRequest(VersionOnly.self, json: parts.json, secrets: parts.secrets) else {
                return .failure(ProtocolError(.badRequest, ["reason": "not a request frame"]))
            }
            guard version.version >= ProtocolVersion.oldest else { return .failure(mismatch(version.version)) }
            if let unknown = error as? UnknownOperation {
                return .failure(ProtocolError(.unsupported, ["operation": unknown.name, "agent": String(registry.version)]))
            }
            return .failure(ProtocolError(.badRequest, ["reason": "the request does not have the form of its operation"]))
        }
        guard frame.version >= ProtocolVersion.oldest else { return .failure(mismatch(frame.version)) }
        return .success(frame.request)
    }

    static func mismatch(_ client: Int) -> ProtocolError {
        ProtocolError(.versionMismatch, ["client": String(client), "agent": String(ProtocolVersion.current)])
    }
}

/// Where the agent's socket lives: `$XDG_RUNTIME_DIR/passbox/agent.sock`, else `DATA/run/agent.sock`.
public enum AgentPaths {
    public static func socketDirectory(dataDirectory: String, environment: [String: String]? = nil) -> String {
        let runtimeDirectory = environment.map { $0["XDG_RUNTIME_DIR"] } ?? getenv("XDG_RUNTIME_DIR").map { String(cString: $0) }
        if let runtime = runtimeDirectory, runtime.hasPrefix("/"), access(runtime, F_OK) == 0 {
            // One agent per data directory: the runtime directory holds a folder per data directory.
            let tag = Array(dataDirectory.utf8).reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
            return runtime + "/passbox/" + String(tag, radix: 36)
        }
        return dataDirectory + "/run"
    }

    public static func socketPath(dataDirectory: String) -> String { socketDirectory(dataDirectory: dataDirectory) + "/agent.sock" }
}

/// A connected Unix socket.
public enum UnixSocket {
    /// Connects to `path`; nil when nothing listens there.
    public static func connect(to path: String) -> Int32? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_un()
        guard CLinux_unixAddress(&address, path) == 0 else { close(fd); return nil }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else { close(fd); return nil }
        return fd
    }

    /// The uid of the process at the other end.
    public static func peerUID(_ fd: Int32) -> Int { Int(CLinux_peerUID(fd)) }
}
