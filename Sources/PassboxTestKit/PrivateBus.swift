import Foundation

/// A dbus-daemon of the test's own that stands in for the system or the session bus; stopped when released.
public final class PrivateBus: @unchecked Sendable {
    // @unchecked: every field is immutable after init.
    public enum Kind: String, Sendable {
        case system, session
    }

    /// Whether dbus-daemon and python3-dbus (for the peers in Scripts/logind_peer.py) are installed.
    public static let isAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
        && (try? Transcript.execute("/usr/bin/python3", ["-c", "import dbus"], stdin: [], environment: [:]).status) == 0

    /// The address to put in DBUS_SYSTEM_BUS_ADDRESS or DBUS_SESSION_BUS_ADDRESS.
    public let address: String
    private let directory: TemporaryDirectory
    private let pid: Int32

    public init(_ kind: Kind) throws {
        directory = try TemporaryDirectory("passbox-bus")
        let socket = directory.path + "/bus_socket"
        let config = directory.file("bus.conf")
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig><type>\(kind.rawValue)</type><listen>unix:path=\(socket)</listen><auth>EXTERNAL</auth>
            <policy context="default"><allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/></policy>
            </busconfig>
            """.write(to: config, atomically: true, encoding: .utf8)
        pid = try Transcript.startBackground("/usr/bin/dbus-daemon", ["--config-file=\(config.path)", "--nofork", "--nopidfile"])
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: socket) { Thread.sleep(forTimeInterval: 0.05) }
        address = "unix:path=\(socket)"
    }

    deinit { Transcript.stop(pid) }
}
