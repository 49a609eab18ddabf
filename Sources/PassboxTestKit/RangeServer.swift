import Foundation

/// A local stand-in for the Pwned Passwords range API (Scripts/range_server.py), started for a test and
/// stopped when released. It logs every request's path and Add-Padding header.
public final class RangeServer {
    private let process = Process()
    private let input = Pipe()
    public let port: Int
    public let log: URL

    /// `hashes`: full SHA-1 hex → count (0 entries are served only as padding).
    public init(hashes: [String: Int], directory: TemporaryDirectory) throws {
        guard let script = Bundle.module.url(forResource: "Scripts/range_server", withExtension: "py") else {
            throw CocoaError(.fileNoSuchFile)
        }
        let hashFile = directory.file("hashes.txt")
        try hashes.map { "\($0):\($1)" }.joined(separator: "\n").write(to: hashFile, atomically: true, encoding: .utf8)
        log = directory.file("requests.log")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, hashFile.path, log.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { line += byte }
        port = Int(String(decoding: line, as: UTF8.self)) ?? 0
    }

    /// Each request as [path, Add-Padding header, content length].
    public var requests: [[String]] {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
    }
}
