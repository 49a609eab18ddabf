import Foundation

/// Other apps' tools the interop tests compare against (keepassxc-cli, pykeepass through Debian's python3).
/// Absent, a test says so and skips; with `PASSBOX_REQUIRE_PEERS=1` (set by `make test`, which installs them)
/// absence is a failure.
public enum Peers {
    public struct Missing: Error, CustomStringConvertible {
        public let description: String
    }

    /// The tool's path, or nil when it is not installed and not required.
    public static func find(_ path: String, package: String) throws -> String? {
        if FileManager.default.isExecutableFile(atPath: path) { return path }
        if ProcessInfo.processInfo.environment["PASSBOX_REQUIRE_PEERS"] == "1" {
            throw Missing(description: "\(path) is missing (apt-get install \(package)); PASSBOX_REQUIRE_PEERS=1 makes that a failure")
        }
        print("note: \(path) is not installed (apt-get install \(package)); the comparison with it is skipped")
        return nil
    }

    /// Debian's python3 with pykeepass importable, or nil (as `find`).
    public static func pykeepass() throws -> String? {
        guard let python = try find("/usr/bin/python3", package: "python3") else { return nil }
        let probe = try Transcript.execute(python, ["-c", "import pykeepass"], stdin: [], environment: [:])
        if probe.status == 0 { return python }
        return try find("/nonexistent/pykeepass", package: "python3-pykeepass")
    }
}
