import Foundation
import PassboxProtocol

/// The extension's side of a `passbox browser-host` process (the benchmark's and the tests'): the browsers'
/// framing (a little-endian 32-bit length, then JSON) over the host's standard input and output.
public final class BrowserHostClient {
    public struct Ended: Error {}

    public let process = Process()
    public let toHost = Pipe(), fromHost = Pipe()

    /// Starts `executable --data DIRECTORY browser-host` with `environment` added to this process's.
    public init(executable: String, dataDirectory: String, environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--data", dataDirectory, "browser-host"]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = toHost
        process.standardOutput = fromHost
        try process.run()
    }

    /// One message's bytes, framed.
    public func sendRaw(_ body: [UInt8]) throws {
        let n = UInt32(body.count)
        try toHost.fileHandleForWriting.write(contentsOf: Data([UInt8(n & 0xff), UInt8(n >> 8 & 0xff), UInt8(n >> 16 & 0xff), UInt8(n >> 24 & 0xff)] + body))
    }

    /// The next answer's `reply` object; `Ended` when the host closed first.
    public func receive() throws -> [String: Any] {
        guard let header = try fromHost.fileHandleForReading.read(upToCount: 4), header.count == 4 else { throw Ended() }
        let length = Int(header[0]) | Int(header[1]) << 8 | Int(header[2]) << 16 | Int(header[3]) << 24
        var body = Data()
        while body.count < length, let more = try fromHost.fileHandleForReading.read(upToCount: length - body.count), !more.isEmpty { body += more }
        guard let frame = try JSONSerialization.jsonObject(with: body) as? [String: Any], let reply = frame["reply"] as? [String: Any] else { throw Ended() }
        return reply
    }

    /// Sends one request as the extension does (secrets as `{"secret": N}` in the body) and returns the reply's
    /// kind and body.
    public func call(_ op: String, _ body: [String: Any]? = nil, secrets: [String] = []) throws -> (kind: String, body: [String: Any]) {
        var request: [String: Any] = ["op": op]
        if let body { request["body"] = body }
        var message: [String: Any] = ["version": ProtocolVersion.current, "request": request]
        if !secrets.isEmpty { message["secrets"] = secrets }
        try sendRaw(Array(try JSONSerialization.data(withJSONObject: message)))
        let reply = try receive()
        return (reply["kind"] as? String ?? "", reply["body"] as? [String: Any] ?? [:])
    }

    /// Closes the host's input and waits for it to end.
    public func stop() {
        try? toHost.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
