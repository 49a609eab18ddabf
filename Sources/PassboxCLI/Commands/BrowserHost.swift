import Foundation
import PassboxAgent
import PassboxCrypto
import PassboxProtocol

/// `passbox browser-host`: the browser extension's native messaging host. The browser starts it and speaks
/// its own framing on standard input and output (a 32-bit length in native byte order, then UTF-8 JSON); the
/// host turns each message into a socket frame for the agent and relays the answer. It is the gate: only the
/// `browser` surface's operations pass, and only pairing and the handshake until the extension proved it
/// holds a paired key; the session the agent then gives stays in this process, added to every request.
enum BrowserHost {
    static let maximumIn = 4 << 20
    /// Chromium's limit for a message to the extension.
    static let maximumOut = 1 << 20
    static let beforeHandshake: Set<OperationName> = [.hello, .browserPairBegin, .browserChallenge, .browserProve]

    /// Serves until the browser closes standard input. Returns the exit status.
    static func run(socketPath: String, input: Int32 = 0, output: Int32 = 1) -> Int32 {
        var session: String?
        while true {
            var message: [UInt8]
            do {
                guard let header = try read(input, 4) else { return 0 }
                let length = Int(UInt32(header[0]) | UInt32(header[1]) << 8 | UInt32(header[2]) << 16 | UInt32(header[3]) << 24)
                guard length <= maximumIn else {
                    write(output, .failure(ProtocolError(.badRequest, ["reason": "the message is too large (\(length) bytes)"])))
                    return 1
                }
                guard let body = try read(input, length) else { return 1 }
                message = body
            } catch {
                return 1
            }
            let reply = answer(message, session: &session, socketPath: socketPath)
            ConstantTime.wipe(&message)
            guard write(output, reply) else { return 1 }
        }
    }

    /// One message's answer.
    static func answer(_ message: [UInt8], session: inout String?, socketPath: String) -> Reply {
        var frame: [UInt8]
        let operation: OperationName
        do {
            (frame, operation) = try BrowserMessage.socketFrame(message, session: session)
        } catch let e as ProtocolError {
            return .failure(e)
        } catch {
            return .failure(ProtocolError(.badRequest, ["reason": "not a message of the extension's protocol"]))
        }
        defer { ConstantTime.wipe(&frame) }
        guard let spec = OperationRegistry.current.spec(operation), spec.surfaces.contains(.browser) else {
            return .failure(ProtocolError(.badRequest, ["reason": "\(operation.rawValue) is not served to the browser extension"]))
        }
        guard session != nil || beforeHandshake.contains(operation) else { return .failure(ProtocolError(.notPaired, ["pending": "false"])) }
        let request: Request
        switch Framing.decodeRequest(frame) {
        case .failure(let e): return .failure(e)
        case .success(let r): request = r
        }
        if let hello = request.body(Operations.hello) { return .hello(OperationRegistry.current.hello(hello, surface: .browser)) }
        // An operation without a session of its own (status, unlock, lock) passes only while the session stands.
        if let current = session, !beforeHandshake.contains(operation), !(request.body is any BrowserScoped) {
            let check = Request(Operations.browserSession, BrowserSessionRequest(session: current))
            if case .failure(let e)? = try? AgentClient.send(check, socketPath: socketPath), e.code == .notPaired {
                return forget(e, session: &session)
            }
        }
        let reply: Reply
        do {
            guard let sent = try AgentClient.send(request, socketPath: socketPath) else {
                return .failure(ProtocolError(.agentUnavailable, ["socket": socketPath]))
            }
            reply = sent
        } catch {
            return .failure(ProtocolError(.agentUnavailable, ["socket": socketPath]))
        }
        switch reply {
        case .browserSession(var proven):
            // The session stays here: the extension is told only that it proved its key.
            session = proven.session
            proven.session = nil
            return .browserSession(proven)
        case .failure(let e) where e.code == .notPaired:
            return forget(e, session: &session)
        default:
            return reply
        }
    }

    /// The session ended (its pairing was removed): the host holds none from here.
    static func forget(_ e: ProtocolError, session: inout String?) -> Reply {
        session = nil
        return .failure(e)
    }

    /// Exactly `count` bytes, or nil at the end of input before the first.
    static func read(_ fd: Int32, _ count: Int) throws -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = out.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + done, count - done) }
            if n == 0 {
                if done == 0 { return nil }
                throw Framing.FrameError.closed
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw Framing.FrameError.io(errno)
            }
            done += n
        }
        return out
    }

    /// Writes one answer in the browsers' framing; one over 1 MiB becomes `replyTooLarge`.
    @discardableResult
    static func write(_ fd: Int32, _ reply: Reply) -> Bool {
        var json = (try? [UInt8](ProtocolCoding.wireEncode(ReplyFrame(reply)))) ?? []
        defer { ConstantTime.wipe(&json) }
        if json.count > maximumOut {
            json = (try? [UInt8](ProtocolCoding.wireEncode(ReplyFrame(.failure(ProtocolError(.replyTooLarge, ["bytes": String(json.count)])))))) ?? []
        }
        var frame = [UInt8]()
        let n = UInt32(json.count)
        frame += [UInt8(n & 0xff), UInt8(n >> 8 & 0xff), UInt8(n >> 16 & 0xff), UInt8(n >> 24 & 0xff)]
        frame += json
        defer { ConstantTime.wipe(&frame) }
        var done = 0
        while done < frame.count {
            let written = frame.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, frame.count - done) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            done += written
        }
        return true
    }
}
