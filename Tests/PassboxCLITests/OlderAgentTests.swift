import Foundation
import PassboxAgent
import PassboxProtocol
import PassboxTestKit
import Testing

/// A command that needs a newer agent than the one running says so, instead of a wrong answer: an agent of
/// generation 15 ignores `list --codes`' filter (it came in 16) and would list every item.
@Suite struct OlderAgentTests {
    /// A stand-in agent of generation 15 on the data directory's socket: `hello` answers its generation, any
    /// other request `locked`; it records the operations asked.
    final class Generation15: @unchecked Sendable {
        let fd: Int32
        /// Signalled when the serving thread has left `accept`: only then is the descriptor closed, so that its
        /// number cannot be reused by another test's socket while this thread still uses it.
        let ended = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var seen: [String] = []
        var asked: [String] { lock.withLock { seen } }

        init(socket path: String) throws {
            fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (i, byte) in path.utf8.enumerated() where i < raw.count - 1 { raw[i] = byte }
            }
            let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
            try #require(bound == 0 && Glibc.listen(fd, 4) == 0, "the stand-in agent's socket")
            Thread.detachNewThread { [self] in serve() }
        }

        /// Ends the serving thread, then closes the socket.
        func stop() {
            shutdown(fd, Int32(SHUT_RDWR))
            _ = ended.wait(timeout: .now() + 10)
            close(fd)
        }

        func serve() {
            defer { ended.signal() }
            while true {
                let client = Glibc.accept(fd, nil, nil)
                if client < 0 { return }
                while let body = try? Framing.readFrame(client) {
                    let json = body.prefix { $0 != 0 }
                    let op = (try? JSONSerialization.jsonObject(with: Data(json)) as? [String: Any]).flatMap { ($0["request"] as? [String: Any])?["op"] as? String } ?? "?"
                    lock.withLock { seen.append(op) }
                    let reply: Reply = op == "hello" ? .hello(HelloReply(version: 15, oldest: 13, operations: [], missing: [])) : .failure(ProtocolError(.locked))
                    guard let bytes = try? ProtocolCoding.wireEncode(ReplyFrame(reply, version: 15)), (try? Framing.writeFrame(client, Array(bytes))) != nil else { break }
                }
                close(client)
            }
        }
    }

    @Test func listCodesRefusesAnAgentBeforeGeneration16() throws {
        let dir = try TemporaryDirectory("passbox-older-agent")
        try FileManager.default.createDirectory(atPath: dir.path + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let agent = try Generation15(socket: dir.path + "/run/agent.sock")
        defer { agent.stop() }
        let result = try Transcript.execute(try Transcript.executablePath(), ["--data", dir.path, "list", "--codes"], stdin: [], environment: ["XDG_RUNTIME_DIR": "", "LANG": "C.UTF-8"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("protocol 15") && result.stderr.contains("list --codes"), "\(result.stderr)")
        #expect(agent.asked == ["hello"], "nothing listed after the agent's generation was known: \(agent.asked)")
    }
}
