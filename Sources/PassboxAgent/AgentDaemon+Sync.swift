import Foundation
import PassboxClient
import PassboxProtocol
import PassboxService

/// Live updates for an account's vault: one long poll to the server at a time, on a thread of its own; when
/// another device's change lands the agent syncs within a moment. The agent also syncs after each change made
/// through it and every few minutes.
///
/// Syncing runs on `syncQueue`, one at a time, and reaches the vault only in short steps on the agent's queue
/// (`VaultGate`): lock, the idle deadline, SIGTERM and logind's Lock and PrepareForSleep run on that queue
/// and so never wait for the network; a sync overtaken by a lock drops what it brought.
extension AgentDaemon {
    /// How often the agent syncs without news from the server.
    static let periodicSync: TimeInterval = 300

    /// The operations that can change the vault.
    static let changes: Set<OperationName> = [
        .add, .edit, .delete, .restoreVersion, .trashRestore, .trashDelete, .trashEmpty, .setOneTimePassword, .importOneTimePasswords, .check, .dismiss,
        .fixHTTPS, .vaultCreate, .vaultEdit, .move,
    ]

    /// Operations that wait for a sync in flight before they reach the vault (on `syncQueue`, not holding the
    /// vault queue): they change vaults' names or replace what a sync step compares against. An item's edit
    /// needs no wait: a pull is verified and merged in one step against the vault as it is then, and a push's
    /// late acknowledgement keeps an edit made after its items were sealed.
    /// (Locking, deleting all data, signing out and a password change replace the session, so a sync in flight
    /// drops what it brings: they never wait for one.)
    static let waitsForSync: Set<OperationName> = [
        .vaultCreate, .vaultEdit, .vaultDelete, .move, .accountSignIn, .accountSignUp, .backupRestore, .importItems, .createVault, .duressSet, .duressChange,
        .linkFinish,
    ]

    /// The account pages' requests that need only the data directory and the network.
    static let accountNetwork: Set<OperationName> = [.accountView, .accountActivity, .deviceSignOut, .twoFactorEnrol, .twoFactorConfirm, .twoFactorDisable, .recoverySetup]

    /// The Family & Team page's requests: the data directory, the network and the key that opens grants.
    static let sharingNetwork: Set<OperationName> = [.sharing, .orgShow, .orgChange, .orgAccept, .securityCode]

    /// The gate a sync reaches the vault through: a step at a time on the agent's queue.
    var vaultGate: VaultGate {
        guard let queue else { return .inline }
        return VaultGate { step in queue.sync(execute: step) }
    }

    /// Answers what must not hold the vault queue while the network works; nil for everything else (it goes
    /// to `handle` on the queue). Called on a connection's thread, never on the vault queue.
    func answerOffQueue(_ request: Request) -> Reply? {
        guard let queue else { return nil }
        let operation = request.operation
        if let r = request.body(Operations.sync) {
            let reply: Reply
            do {
                reply = .synced(try syncQueue.sync { try service.sync(takeNotices: r.takeNotices, gate: vaultGate) })
            } catch {
                reply = .failure(ProtocolError.from(error))
            }
            queue.sync { touchAfterVaultWork() }
            return reply
        }
        if let r = request.body(Operations.accountSignOut), r.forgetSecretKey {
            // The server ends the session off the queue; then the vault locks, with all the agent held of it.
            let (unlocked, account) = queue.sync { (service.isUnlocked, service.store.isAccountVault) }
            guard account, unlocked || r.lastFour != nil else { return nil }
            if !unlocked, let lastFour = r.lastFour {
                // "Use a different account…" on the lock page: the Secret Key's last four characters instead.
                do { try AccountOperations.checkLastFour(lastFour, dataDirectory: dataDirectory) } catch { return .failure(ProtocolError.from(error)) }
            }
            let ended = Result { try accountQueue.sync { try AccountOperations.signOut(dataDirectory) } }
            return queue.sync {
                switch ended {
                case .failure(let error): return .failure(ProtocolError.from(error))
                case .success(let ended):
                    service.finishSignOut()
                    lock()
                    forgetQuickUnlock()
                    return .count(CountReply(count: ended ? 1 : 0))
                }
            }
        }
        if let r = request.body(Operations.accountPassword) {
            // DEV-3: the server takes the new keys off the queue; then a new quick-unlock key from the new password.
            guard queue.sync(execute: { service.isUnlocked && service.store.isAccountVault }) else { return nil }
            let changed = Result { try accountQueue.sync { try AccountOperations.changeMasterPassword(r, dataDirectory: dataDirectory) } }
            return queue.sync {
                if case .failure(let error) = changed { return .failure(ProtocolError.from(error)) }
                do {
                    // The store read the account record when the vault opened: it is read again with the new one.
                    service.lock()
                    try unlockWithMasterPassword(r.new)
                } catch {
                    lock()
                    forgetQuickUnlock()
                    return .failure(ProtocolError.from(error))
                }
                touchAfterVaultWork()
                return .done
            }
        }
        if let r = request.body(Operations.breachRanges) {
            // The web page's breach check: the range service is asked off the vault queue (a slow service holds
            // up nothing else); a locked vault is answered `locked` on the queue as any vault operation is.
            guard let hashes = queue.sync(execute: { service.session?.breachHashes() }) else { return nil }
            do {
                return .ranges(try VaultSession.breachRanges(r, dataDirectory: dataDirectory, keeping: hashes))
            } catch {
                return .failure(ProtocolError.from(error))
            }
        }
        if let r = request.body(Operations.saveAttachment) {
            // An attachment another device added is downloaded off the queue (its ciphertext: checked against
            // the attachment's key when installed, in the request's own turn on the queue).
            guard let blob = queue.sync(execute: { service.blobToFetch(r) }) else { return nil }
            let fetched = Result { try accountQueue.sync { try VaultService.downloadBlob(id: blob.id, length: blob.length, dataDirectory: dataDirectory) } }
            return queue.sync {
                let bytes: [UInt8]
                switch fetched {
                case .failure(let error): return .failure(ProtocolError.from(error))
                case .success(let b): bytes = b
                }
                service.prefetchedBlob = (blob.id, bytes)
                defer { service.prefetchedBlob = nil }
                return handle(request)
            }
        }
        if Self.accountNetwork.contains(operation) {
            guard queue.sync(execute: { service.isUnlocked && service.store.isAccountVault }) else { return nil }
            let reply = accountQueue.sync { VaultService.performAccountNetwork(request, dataDirectory: dataDirectory) }
            queue.sync { touchAfterVaultWork() }
            return reply
        }
        if Self.sharingNetwork.contains(operation) {
            // The key that opens grants comes from the open vault; the rest is the network's, off the queue.
            guard let boxKey = queue.sync(execute: { () -> Data?? in
                guard service.isUnlocked, service.store.isAccountVault else { return nil }
                return .some(service.session?.vault.sync?.boxKey)
            }) else { return nil }
            // On the sync queue too: a sync of the organisations reads and writes sharing.json (kept heads, pins,
            // warnings) as these requests do, and one must not write over what the other just wrote.
            let context = SharingContext(dataDirectory: dataDirectory, boxKey: boxKey)
            let reply = syncQueue.sync { accountQueue.sync { VaultService.performSharing(request, context: context) } }
            queue.sync { touchAfterVaultWork() }
            return reply
        }
        if Self.linkWaits.contains(operation) {
            do {
                return try Self.operations.answer(self, request) ?? .failure(ProtocolError(.badRequest, ["reason": "not a link request"]))
            } catch {
                return .failure(ProtocolError.from(error))
            }
        }
        if Self.waitsForSync.contains(operation) {
            return syncQueue.sync { queue.sync { handle(request) } }
        }
        return nil
    }

    /// After a request that used the vault: the idle deadline starts again, or (auto-lock at 0) it locks.
    func touchAfterVaultWork() {
        guard service.isUnlocked else { return }
        idle.touch(now: Date())
        if autoLockSeconds == 0 { lock(keepingClipboard: true) }
    }

    func startLiveSync(queue: DispatchQueue) {
        let thread = Thread { [self] in liveLoop(queue) }
        thread.name = "passbox-live-sync"
        thread.start()
    }

    /// Syncs (on `syncQueue`, never from the vault queue), leaving any failure in the sync state (status shows
    /// it); whether it went through.
    @discardableResult
    func syncQuietly() -> Bool {
        dispatchPrecondition(condition: .notOnQueue(queue ?? syncQueue))
        return syncQueue.sync { (try? service.sync(takeNotices: false, gate: vaultGate)) != nil }
    }

    /// After a request: a change made through the agent is pushed at once, unless the server is known to be
    /// out of reach (then the change waits for the live connection to come back). Called on the vault queue:
    /// the sync is only queued.
    func syncAfterChange(_ request: Request, queue: DispatchQueue) {
        guard Self.changes.contains(request.operation), liveConnected != false, service.hasQueuedChanges else { return }
        let gate = vaultGate
        syncQueue.async { [self] in _ = try? service.sync(takeNotices: false, gate: gate) }
    }

    private func liveLoop(_ queue: DispatchQueue) {
        var lastSync = Date.distantPast
        var unlockedBefore = false
        // After a failed sync the loop waits longer each time (3 s doubling to 5 minutes), so a server whose
        // long poll answers at once with news it then cannot deliver is not asked again and again.
        var failures = 0
        while true {
            guard let target = queue.sync(execute: { service.liveTarget() }) else {
                queue.sync { liveConnected = nil }
                unlockedBefore = false
                failures = 0
                Thread.sleep(forTimeInterval: 0.5)
                continue
            }
            // At unlock, and every few minutes: a full round of pull and push.
            if !unlockedBefore || Date().timeIntervalSince(lastSync) > Self.periodicSync {
                unlockedBefore = true
                lastSync = Date()
                let ok = syncQuietly()
                queue.sync { liveConnected = service.syncStatus().map { $0.lastFailure == nil } }
                failures = ok ? 0 : failures + 1
                if !ok { Thread.sleep(forTimeInterval: Self.backoff(failures)) }
                continue
            }
            do {
                let client = try SyncClient(server: target.server, token: target.token)
                let reply = try client.wait(since: target.revision)
                queue.sync { liveConnected = true }
                // The account changed, or a shared vault of one of its families or teams did.
                if reply.revision > target.revision || reply.shared == true {
                    lastSync = Date()
                    let ok = syncQuietly()
                    failures = ok ? 0 : failures + 1
                    if !ok { Thread.sleep(forTimeInterval: Self.backoff(failures)) }
                }
            } catch {
                queue.sync { liveConnected = false }
                Thread.sleep(forTimeInterval: 3)
            }
        }
    }

    /// Seconds to wait after `failures` failed syncs in a row: 3, 6, 12 … at most 300.
    static func backoff(_ failures: Int) -> TimeInterval { min(300, 3 * pow(2, Double(max(0, min(failures, 10) - 1)))) }
}
