import Foundation

/// A desktop notification server on a `PrivateBus` (Scripts/notify_peer.py): owns org.freedesktop.Notifications
/// and records each notification it is sent.
public final class NotifyPeer: @unchecked Sendable {
    // @unchecked: every field is immutable after init.
    public static let isAvailable = LogindPeer.isAvailable

    let directory: TemporaryDirectory
    let eventsFile: URL
    let pid: Int32

    public init(bus: PrivateBus) throws {
        guard let script = Bundle.module.url(forResource: "Scripts/notify_peer", withExtension: "py") else { throw CocoaError(.fileNoSuchFile) }
        directory = try TemporaryDirectory("passbox-notify")
        eventsFile = directory.file("events")
        pid = try Transcript.startBackground("/usr/bin/python3", [script.path, bus.address, eventsFile.path])
        for _ in 0..<200 where !lines.contains("ready") { Thread.sleep(forTimeInterval: 0.05) }
        guard lines.contains("ready") else {
            Transcript.stop(pid)
            throw Transcript.Failure(description: "the notification server did not start")
        }
    }

    var lines: [String] { ((try? String(contentsOf: eventsFile, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }

    /// The notifications so far: app, summary and body of each.
    public var notifications: [[String: String]] {
        lines.filter { $0 != "ready" }.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] }
    }

    deinit { Transcript.stop(pid) }
}
