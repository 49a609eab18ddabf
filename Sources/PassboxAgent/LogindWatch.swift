import Foundation
internal import CLogindSupport

/// Locks the agent when systemd-logind says the session is being locked, another session took the seat (a
/// user switch) or the machine is about to sleep, and when the screen saver on the session bus starts. Holds
/// a logind delay inhibitor for sleep and releases it only once `onLock(.sleeping)` has returned. Where a bus
/// is missing (containers, minimal servers, no desktop) the watch reports why and watches what is left.
public enum LogindWatch {
    public enum Reason: Sendable {
        case sessionLocked, sleeping, userSwitched, screenSaverStarted
    }

    final class Callbacks: Sendable {
        let onLock: @Sendable (Reason) -> Void
        let onStatus: @Sendable (String) -> Void
        init(onLock: @escaping @Sendable (Reason) -> Void, onStatus: @escaping @Sendable (String) -> Void) {
            self.onLock = onLock
            self.onStatus = onStatus
        }
    }

    /// Starts watching on a thread of its own. `onLock` runs on that thread and must return only once the agent
    /// is locked: for `.sleeping` the machine sleeps as soon as it returns. `onStatus` receives what is
    /// watched, or why a part is not, and again whenever that changes (the inhibitor released and taken again,
    /// a bus going away).
    public static func start(onLock: @escaping @Sendable (Reason) -> Void, onStatus: @escaping @Sendable (String) -> Void) {
        let callbacks = Callbacks(onLock: onLock, onStatus: onStatus)
        Thread.detachNewThread {
            let context = Unmanaged.passRetained(callbacks).toOpaque()
            var status = [CChar](repeating: 0, count: 600)
            _ = CLogind_watch({ reason, context in
                let callbacks = Unmanaged<Callbacks>.fromOpaque(context!).takeUnretainedValue()
                let reasons: [Int32: Reason] = [1: .sessionLocked, 2: .sleeping, 3: .userSwitched, 4: .screenSaverStarted]
                callbacks.onLock(reasons[reason] ?? .sessionLocked)
            }, context, { status, context in
                let callbacks = Unmanaged<Callbacks>.fromOpaque(context!).takeUnretainedValue()
                callbacks.onStatus(String(cString: status!))
            }, &status, status.count)
            callbacks.onStatus(String(decoding: status.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            Unmanaged<Callbacks>.fromOpaque(context).release()
        }
    }
}
