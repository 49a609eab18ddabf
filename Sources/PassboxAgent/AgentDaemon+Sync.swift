import Foundation
import PassboxClient
import PassboxProtocol
import PassboxService

/// Live updates for an account's vault: one long poll to the server at a time, on a thread of its own; when
/// another device's change lands the agent syncs within a moment. The agent also syncs after each change made
/// through it and every few minutes. Syncing runs on the agent's queue, like every other operation.
extension AgentDaemon {
    /// How often the agent syncs without news from the server.
    static let periodicSync: TimeInterval = 300

    /// The operations that can change the vault.
    static let changes: Set<OperationName> = [
        .add, .edit, .delete, .restoreVersion, .trashRestore, .trashDelete, .trashEmpty, .setOneTimePassword, .importOneTimePasswords, .check, .dismiss,
        .fixHTTPS, .vaultCreate, .vaultEdit, .move,
    ]

    func startLiveSync(queue: DispatchQueue) {
        let thread = Thread { [self] in liveLoop(queue) }
        thread.name = "passbox-live-sync"
        thread.start()
    }

    /// Syncs on the agent's queue, leaving any failure in the sync state (status shows it).
    func syncQuietly() {
        _ = try? service.sync(takeNotices: false)
    }

    /// After a request: a change made through the agent is pushed at once, unless the server is known to be
    /// out of reach (then the change waits for the live connection to come back, not holding up the queue).
    func syncAfterChange(_ request: Request, queue: DispatchQueue) {
        guard Self.changes.contains(request.operation), liveConnected != false, service.hasQueuedChanges else { return }
        queue.async { [self] in syncQuietly() }
    }

    private func liveLoop(_ queue: DispatchQueue) {
        var lastSync = Date.distantPast
        var unlockedBefore = false
        while true {
            guard let target = queue.sync(execute: { service.liveTarget() }) else {
                queue.sync { liveConnected = nil }
                unlockedBefore = false
                Thread.sleep(forTimeInterval: 0.5)
                continue
            }
            // At unlock, and every few minutes: a full round of pull and push.
            if !unlockedBefore || Date().timeIntervalSince(lastSync) > Self.periodicSync {
                unlockedBefore = true
                lastSync = Date()
                queue.sync {
                    syncQuietly()
                    liveConnected = service.syncStatus().map { $0.lastFailure == nil }
                }
                continue
            }
            do {
                let client = try SyncClient(server: target.server, token: target.token)
                let revision = try client.wait(since: target.revision)
                queue.sync { liveConnected = true }
                if revision > target.revision {
                    lastSync = Date()
                    queue.sync { syncQuietly() }
                }
            } catch {
                queue.sync { liveConnected = false }
                Thread.sleep(forTimeInterval: 3)
            }
        }
    }
}
