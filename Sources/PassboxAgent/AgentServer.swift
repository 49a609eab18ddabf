import Foundation
import PassboxCrypto
import PassboxProtocol
internal import CLinux

/// The agent's Unix socket server: a 0700 directory, a 0600 socket, peers of another uid refused, one
/// thread per connection, and every request handled on one serial queue (so writes never interleave).
public final class AgentServer: @unchecked Sendable {
    // @unchecked: `listener` is set once before the accept loop starts; the handler runs on `queue`.
    public let socketPath: String
    let expectedUID: UInt32
    public let queue = DispatchQueue(label: "passbox.agent")
    private var listener: Int32 = -1
    private let handler: @Sendable (Request) -> Reply

    /// `handler` turns a request into its reply; it runs on `queue`, one request at a time.
    /// Answers a request without the queue first, when it can (nil: it goes to `handler` on the queue): the
    /// agent's sync and account operations, whose network work must never hold the queue.
    let offQueue: (@Sendable (Request) -> Reply?)?
    /// The operations served (tests take some out to stand for an older agent).
    let registry: OperationRegistry

    public init(
        socketPath: String, expectedUID: UInt32 = Glibc.getuid(), registry: OperationRegistry = .current, offQueue: (@Sendable (Request) -> Reply?)? = nil,
        handler: @escaping @Sendable (Request) -> Reply
    ) {
        self.socketPath = socketPath
        self.registry = registry
        self.expectedUID = expectedUID
        self.offQueue = offQueue
        self.handler = handler
    }

    public struct StartError: Error {
        public let message: String
    }

    /// Binds the socket (replacing a stale one no agent answers on).
    public func bind() throws {
        let directory = (socketPath as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        chmod(directory, 0o700)
        if let fd = UnixSocket.connect(to: socketPath) {
            close(fd)
            throw StartError(message: "an agent is already running on \(socketPath)")
        }
        unlink(socketPath)
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw StartError(message: "cannot create a socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        guard CLinux_unixAddress(&address, socketPath) == 0 else { throw StartError(message: "the socket path is too long: \(socketPath)") }
        // The socket is created 0600 (umask) before anyone can connect.
        let previous = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(previous)
        guard bound == 0, listen(listener, 64) == 0 else {
            throw StartError(message: "cannot listen on \(socketPath): \(String(cString: strerror(errno)))")
        }
    }

    /// Accepts connections until the process exits.
    public func serve() -> Never {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 { continue }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            // A thread of its own per connection (not Dispatch's pool, which a few clients holding their
            // connections could exhaust, delaying the timers and signal handlers that lock the vault).
            Thread.detachNewThread { [self] in self.serveConnection(fd) }
        }
    }

    /// Removes the socket file (on exit).
    public func removeSocket() { unlink(socketPath) }

    func serveConnection(_ fd: Int32) {
        defer { close(fd) }
        // A client that connects and sends nothing is dropped after 10 seconds; requests carry everything
        // they need (secrets were read by the client), so nothing waits for a person here.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let uid = UnixSocket.peerUID(fd)
        guard uid == Int(expectedUID) else {
            _ = try? Framing.write(fd, .failure(ProtocolError(.badRequest, ["reason": "the agent serves only its own user"])))
            return
        }
        var body: [UInt8]
        do {
            body = try Framing.readFrame(fd)
        } catch Framing.FrameError.oversized(let n) {
            _ = try? Framing.write(fd, .failure(ProtocolError(.badRequest, ["reason": "the request is too large (\(n) bytes)"])))
            return
        } catch {
            return
        }
        let decoded = Framing.decodeRequest(body, registry: registry)
        // The frame may hold a password or a secret field: wiped once decoded.
        ConstantTime.wipe(&body)
        switch decoded {
        case .failure(let error):
            _ = try? Framing.write(fd, .failure(error))
        case .success(let request):
            let reply: Reply
            if let hello = request.body(Operations.hello) {
                // The socket serves the browser's operations too (to `passbox browser-host`).
                reply = .hello(registry.hello(hello, surface: [.socket, .browser]))
            } else if registry.spec(request.operation)?.surfaces.isDisjoint(with: [.socket, .browser]) != false {
                // The browser's operations come through `passbox browser-host`, a client of this socket.
                reply = .failure(ProtocolError(.badRequest, ["reason": "\(request.operation.rawValue) is not served on the agent's socket"]))
            } else {
                reply = offQueue?(request) ?? queue.sync { handler(request) }
            }
            let written = (try? Framing.write(fd, reply)) ?? 0
            // A large reply (a page of a listing, a long history) was encoded in memory the process would
            // otherwise keep: hand the freed pages back.
            if written > 1 << 20 { _ = CLinux_releaseFreeMemory() }
        }
    }
}

/// A client's side of one request.
public enum AgentClient {
    /// Sends `request` and returns the reply; nil when no agent listens.
    public static func send(_ request: Request, socketPath: String) throws -> Reply? {
        guard let fd = UnixSocket.connect(to: socketPath) else { return nil }
        return try send(request, connected: fd)
    }

    /// Sends `request` on a connection already made (and closes it).
    public static func send(_ request: Request, connected fd: Int32) throws -> Reply {
        defer { close(fd) }
        var body = try ProtocolCoding.wireEncodeRequest(RequestFrame(request))
        // The request may hold the vault password or a secret field: its bytes are wiped once sent.
        defer { ConstantTime.wipe(&body) }
        do {
            try Framing.writeFrame(fd, body)
        } catch Framing.FrameError.io(let code) where code == EPIPE || code == ECONNRESET {
            // The agent may have answered at once (another user, a busy socket) and closed before reading:
            // its reply is still waiting to be read.
        }
        var reply = try Framing.readFrame(fd)
        defer { ConstantTime.wipe(&reply) }
        return try decodeReply(reply)
    }

    /// Decodes a reply frame. An agent of any generation from `oldest` on is read (its replies to the
    /// operations this client knows keep their form); an older one, or one whose reply does not decode and
    /// names an older generation, is a `versionMismatch` failure.
    public static func decodeReply(_ body: [UInt8]) throws -> Reply {
        struct VersionOnly: Decodable { var version: Int }
        let data = Data(body)
        let frame: ReplyFrame
        do {
            frame = try ProtocolCoding.wireDecode(ReplyFrame.self, from: data)
        } catch {
            guard let version = try? ProtocolCoding.wireDecode(VersionOnly.self, from: data), version.version < ProtocolVersion.oldest else { throw error }
            return .failure(ProtocolError(.versionMismatch, ["client": String(ProtocolVersion.current), "agent": String(version.version)]))
        }
        guard frame.version >= ProtocolVersion.oldest else {
            return .failure(ProtocolError(.versionMismatch, ["client": String(ProtocolVersion.current), "agent": String(frame.version)]))
        }
        return frame.reply
    }
}
