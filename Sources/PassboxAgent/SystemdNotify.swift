internal import CLogindSupport

/// sd_notify(3) through libsystemd (loaded only when systemd gave a notification socket): how `passbox server`
/// under `Type=notify` says it is ready to serve and that it is stopping.
public enum SystemdNotify {
    /// Whether systemd was told (false when no notification socket was given, or the call failed).
    @discardableResult
    public static func send(_ state: String) -> Bool {
        CLogind_notify(state) > 0
    }
}
