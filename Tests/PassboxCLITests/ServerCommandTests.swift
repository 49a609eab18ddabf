import Foundation
import PassboxTestSupport
import Testing

struct ServerNeverListened: Error { let log: String }

/// A `passbox server` process on a free loopback port, its output in files.
final class ServerProcess {
    let process = Process()
    let out: URL, err: URL
    let origin: String

    init(dataDirectory: String, in dir: TemporaryDirectory, extra: [String] = []) throws {
        out = dir.file("server-out")
        err = dir.file("server-err")
        #expect(FileManager.default.createFile(atPath: out.path, contents: nil))
        #expect(FileManager.default.createFile(atPath: err.path, contents: nil))
        process.executableURL = URL(fileURLWithPath: try Transcript.executablePath())
        process.arguments = ["--data", dataDirectory, "server", "--listen", "127.0.0.1:0"] + extra
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        var found: String?
        for _ in 0..<200 where found == nil {
            Thread.sleep(forTimeInterval: 0.05)
            let text = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) { found = String(text[range]) }
        }
        guard let found else {
            process.terminate()
            throw ServerNeverListened(log: "the server never said where it listens: \((try? String(contentsOf: err, encoding: .utf8)) ?? "")")
        }
        origin = found
    }

    var log: String { (try? String(contentsOf: err, encoding: .utf8)) ?? "" }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    deinit { stop() }
}

/// `passbox server` as a process: it listens, answers, logs one line per request and stops cleanly on SIGTERM.
@Suite struct ServerCommandTests {
    @Test func serverRunsAnswersAndStopsOnSigterm() throws {
        let dir = try TemporaryDirectory("passbox-server")
        let server = try ServerProcess(dataDirectory: dir.path + "/data", in: dir)
        let base = server.origin
        let process = server.process
        process.executableURL = URL(fileURLWithPath: try Transcript.executablePath())
        process.arguments = ["--data", dir.path + "/data", "server", "--listen", "127.0.0.1:0"]
        let health = try Transcript.execute("/usr/bin/curl", ["-sS", "--max-time", "10", base + "/v1/health"], stdin: [], environment: [:])
        #expect(health.stdout == #"{"protocolVersion":3,"status":"ok"}"#)

        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let log = server.log
        #expect(log.contains("GET /v1/health 200"))
        #expect(log.contains("passbox server: stopped"))
        let mode = try FileManager.default.attributesOfItem(atPath: dir.path + "/data/server")[.posixPermissions] as? Int
        #expect(mode == 0o700)
        for file in try FileManager.default.contentsOfDirectory(atPath: dir.path + "/data/server") {
            let fileMode = try FileManager.default.attributesOfItem(atPath: dir.path + "/data/server/" + file)[.posixPermissions] as? Int
            #expect(fileMode == 0o600, "\(file)")
        }
    }
}
