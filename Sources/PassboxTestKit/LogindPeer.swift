import Foundation

/// A stand-in for systemd-logind on a `PrivateBus` (Scripts/logind_peer.py): owns org.freedesktop.login1,
/// hands out sleep inhibitors as logind does (a pipe's write end), records when each is released and whether
/// the agent of `dataDirectory` was unlocked at that moment, and sends logind's signals when asked.
public final class LogindPeer: @unchecked Sendable {
    // @unchecked: every field is immutable after init.

    /// Whether the peer can run: a private bus, and GLib's Python bindings for its main loop.
    public static let isAvailable = PrivateBus.isAvailable
        && (try? Transcript.execute("/usr/bin/python3", ["-c", "from gi.repository import GLib"], stdin: [], environment: [:]).status) == 0

    let bus: PrivateBus
    let script: String
    let eventsFile: URL
    let directory: TemporaryDirectory
    let pid: Int32

    /// Starts the peer on `bus` and waits until it owns the name. `passbox` and `dataDirectory` are what it runs
    /// `status` with when an inhibitor is released.
    public init(bus: PrivateBus, passbox: String, dataDirectory: String) throws {
        self.bus = bus
        script = try LogindPeer.scriptPath()
        directory = try TemporaryDirectory("passbox-logind")
        eventsFile = directory.file("events")
        pid = try Transcript.startBackground("/usr/bin/python3", [script, "serve", bus.address, eventsFile.path, passbox, dataDirectory])
        guard waitForEvent("ready", timeout: 10) != nil else {
            Transcript.stop(pid)
            throw Transcript.Failure(description: "the logind peer did not start")
        }
    }

    static func scriptPath() throws -> String {
        guard let script = Bundle.module.url(forResource: "Scripts/logind_peer", withExtension: "py") else { throw CocoaError(.fileNoSuchFile) }
        return script.path
    }

    /// What happened so far, one line each: "ready", "inhibit N WHAT MODE WHO: WHY", "released N at SECONDS-SINCE-1970 unlocked=…".
    public var events: [String] {
        ((try? String(contentsOf: eventsFile, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// The first event that starts with `prefix`, waiting up to `timeout` seconds for it.
    public func waitForEvent(_ prefix: String, timeout: Double = 3) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if let event = events.first(where: { $0.hasPrefix(prefix) }) { return event }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        return nil
    }

    /// Sends one of logind's signals from the peer: "sleep" or "wake" (PrepareForSleep true or false), "lock"
    /// (Session.Lock), "active" or "inactive" (the session's Active property), for `session`'s object.
    public func emit(_ signal: String, session: String = "") throws {
        let r = try Transcript.execute("/usr/bin/python3", [script, "emit", bus.address, signal, session], stdin: [], environment: [:])
        guard r.status == 0 else { throw Transcript.Failure(description: "the logind peer could not send \(signal): \(r.stderr)") }
    }

    /// Sends `interface`.ActiveChanged(`active`) on `bus` (a session bus).
    public static func sendScreenSaverActiveChanged(_ active: Bool, interface: String = "org.freedesktop.ScreenSaver", on bus: PrivateBus) throws {
        let r = try Transcript.execute("/usr/bin/python3", [try scriptPath(), "screensaver", bus.address, active ? "true" : "false", interface], stdin: [], environment: [:])
        guard r.status == 0 else { throw Transcript.Failure(description: "could not send ActiveChanged: \(r.stderr)") }
    }

    deinit { Transcript.stop(pid) }
}
