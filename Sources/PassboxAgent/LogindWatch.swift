import Foundation
internal import CLogindSupport

/// Locks the agent when systemd-logind says the session is being locked or the machine is about to sleep.
/// Where there is no system bus (containers, minimal servers) the watch reports why and does nothing.
public enum LogindWatch {
    public enum Reason: Sendable {
        case sessionLocked, sleeping
    }

    final class Callbacks: Sendable {
        let onLock: @Sendable (Reason) -> Void
        let onStatus: @Sendable (String) -> Void
        init(onLock: @escaping @Sendable (Reason) -> Void, onStatus: @escaping @Sendable (String) -> Void) {
            self.onLock = onLock
            self.onStatus = onStatus
        }
    }

    /// Starts watching on a thread of its own. `onStatus` receives what is watched, or why nothing is, and
    /// again if the bus goes away later.
    public static func start(onLock: @escaping @Sendable (Reason) -> Void, onStatus: @escaping @Sendable (String) -> Void) {
        let callbacks = Callbacks(onLock: onLock, onStatus: onStatus)
        Thread.detachNewThread {
            let context = Unmanaged.passRetained(callbacks).toOpaque()
            var status = [CChar](repeating: 0, count: 256)
            _ = CLogind_watch({ reason, context in
                let callbacks = Unmanaged<Callbacks>.fromOpaque(context!).takeUnretainedValue()
                callbacks.onLock(reason == 2 ? .sleeping : .sessionLocked)
            }, context, { status, context in
                let callbacks = Unmanaged<Callbacks>.fromOpaque(context!).takeUnretainedValue()
                callbacks.onStatus(String(cString: status!))
            }, &status, status.count)
            callbacks.onStatus(String(decoding: status.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            Unmanaged<Callbacks>.fromOpaque(context).release()
        }
    }
}
