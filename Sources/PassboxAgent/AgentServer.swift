import Foundation
internal import CLinux

/// One request being served: its message, and a way to ask the client for a line of input.
public final class AgentRequest: @unchecked Sendable {
    // @unchecked: used only by the serial handler while the connection's thread waits.
    public let message: [String: Any]
    let fd: Int32

    init(message: [String: Any], fd: Int32) {
        self.message = message
        self.fd = fd
    }

    /// Asks the client to read a line (on its terminal with echo off when `secret`); nil at end of input.
    public func prompt(_ text: String, secret: Bool) throws -> String? {
        try Framing.write(fd, ["type": "prompt", "prompt": text, "secret": secret])
        let answer = try Framing.read(fd)
        guard answer["op"] as? String == "input" else { throw Framing.FrameError.malformed("expected input") }
        return answer["line"] as? String
    }
}

/// The agent's Unix socket server: a 0700 directory, a 0600 socket, peers of another uid refused, one
/// thread per connection, and every request handled on one serial queue (so writes never interleave).
public final class AgentServer: @unchecked Sendable {
    // @unchecked: `listener` is set once before the accept loop starts; the handler runs on `queue`.
    public let socketPath: String
    let expectedUID: UInt32
    public let queue = DispatchQueue(label: "passbox.agent")
    private var listener: Int32 = -1
    private let handler: @Sendable (AgentRequest) -> [String: Any]

    /// `handler` turns a request into its final reply (`type: result` or `type: error`).
    public init(socketPath: String, expectedUID: UInt32 = Glibc.getuid(), handler: @escaping @Sendable (AgentRequest) -> [String: Any]) {
        self.socketPath = socketPath
        self.expectedUID = expectedUID
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
            Thread.detachNewThread { [self] in self.serveConnection(fd) }
        }
    }

    /// Removes the socket file (on exit).
    public func removeSocket() { unlink(socketPath) }

    func serveConnection(_ fd: Int32) {
        defer { close(fd) }
        // A client that connects and sends nothing is dropped after 10 seconds.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let uid = UnixSocket.peerUID(fd)
        guard uid == Int(expectedUID) else {
            try? Framing.write(fd, ["type": "error", "message": "the agent serves only its own user", "exit": 1])
            return
        }
        let message: [String: Any]
        do {
            message = try Framing.read(fd)
        } catch Framing.FrameError.oversized(let n) {
            try? Framing.write(fd, ["type": "error", "message": "the message is too large (\(n) bytes)", "exit": 2])
            return
        } catch Framing.FrameError.malformed(let why) {
            try? Framing.write(fd, ["type": "error", "message": "malformed message: \(why)", "exit": 2])
            return
        } catch {
            return
        }
        guard (message["v"] as? Int) == Framing.version else {
            try? Framing.write(fd, ["type": "error", "message": "this agent speaks protocol version \(Framing.version)", "hint": "restart the agent with \"passbox lock\" and run the command again", "exit": 2])
            return
        }
        // Prompts during a request may take a person's time: no receive timeout from here on.
        var none = timeval(tv_sec: 0, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &none, socklen_t(MemoryLayout<timeval>.size))
        let request = AgentRequest(message: message, fd: fd)
        let reply = queue.sync { handler(request) }
        try? Framing.write(fd, reply)
    }
}

/// A client's side of one request.
public enum AgentClient {
    /// Sends `message`, answers prompts with `input`, and returns the final reply; nil when no agent listens.
    public static func send(_ message: [String: Any], socketPath: String, input: (String, Bool) -> String?) throws -> [String: Any]? {
        guard let fd = UnixSocket.connect(to: socketPath) else { return nil }
        defer { close(fd) }
        do {
            try Framing.write(fd, message)
        } catch Framing.FrameError.io(let code) where code == EPIPE || code == ECONNRESET {
            // The agent may have answered at once (another user, a busy socket) and closed before reading:
            // its reply is still waiting to be read.
            return try Framing.read(fd)
        }
        while true {
            let reply = try Framing.read(fd)
            if reply["type"] as? String == "prompt" {
                let line = input(reply["prompt"] as? String ?? "", reply["secret"] as? Bool ?? true)
                try Framing.write(fd, ["op": "input", "line": line.map { $0 as Any } ?? NSNull()])
                continue
            }
            return reply
        }
    }
}
