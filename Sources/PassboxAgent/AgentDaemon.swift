import Foundation
import PassboxCore
import PassboxCrypto
import PassboxProtocol
import PassboxService
import PassboxStore
import PassboxImaging
import PassboxWeb
internal import CLinux

/// The agent process: one `VaultService` kept for as long as it runs, served over the Unix socket. Locks after
/// the idle time, on `passbox lock`, on SIGTERM/SIGINT/SIGHUP, when the session locks or the machine sleeps
/// (logind), and on exit. Adds to the service what only a long-lived process has: status with the idle
/// deadline, and quick unlock (PAM) with the sealed Argon2id output of the last typed master password.
public final class AgentDaemon: @unchecked Sendable {
    // @unchecked: every field is used only on `server.queue` (and before the server starts).
    public let dataDirectory: String
    let service: VaultService
    var testAutoLockSeconds: Double?
    var idle = IdleDeadline(interval: AutoLock.default.seconds, now: Date())
    /// What the logind watch reports: what it watches, or why it cannot.
    var lockSignals = "starting"

    /// Quick unlock: the Argon2id output of the last typed master password, sealed; the moment and boot it
    /// was typed in; the policy fixed at that moment (a later settings change cannot widen it).
    var sealedKey: SealedSecret?
    var passwordTypedAt: Date?
    var bootIDAtTyping: String?
    var policy = QuickUnlockPolicy()
    var quickUnlockFailures = 0
    let pamService: String
    /// The clipboard helpers of values copied through this agent, ended when it locks.
    let clipboard = Clipboard()
    /// What this agent answered since the vault opened, as fingerprints: PRIMARY is cleared at lock if it holds
    /// one (CLIP-1).
    var shown = ShownValues()
    /// New breaches: when the catalogue is asked for next, and what the vault showed (SEC-14, SEC-18).
    var breaches = BreachWatch()
    var signalSources = [any DispatchSourceProtocol]()
    /// Whether the live connection to the account's server is up (nil: none is wanted: locked, or local).
    var liveConnected: Bool?
    var queue: DispatchQueue?
    /// Runs one sync at a time, and the requests that must not interleave with one (`waitsForSync`). The vault
    /// queue never waits for it (it only ever `async`s onto it), so a lock never waits for the network.
    let syncQueue = DispatchQueue(label: "passbox.agent.sync")
    /// The account pages' network requests (view, activity, devices, two-factor), off the vault queue.
    let accountQueue = DispatchQueue(label: "passbox.agent.account")
    /// The web UI's server (nil until the agent runs, or when it could not start: `web-open` then says why).
    var web: WebServer?
    var webFailure = "the agent is starting"
    /// The browser extension's pairings, challenges and sessions.
    lazy var browsers = BrowserPairing(directory: dataDirectory)
    /// A device link in progress (the web UI's "Sign in on another device" and "Use a code").
    let links = LinkSessions()

    public init(
        dataDirectory: String, testAutoLockSeconds: Double? = nil, pamService: String = SystemAuthentication.defaultService, testCheapKDF: Bool = false,
        testCatalogueSeconds: Double? = nil
    ) {
        self.dataDirectory = dataDirectory
        if let testCatalogueSeconds { breaches.interval = testCatalogueSeconds }
        self.testAutoLockSeconds = testAutoLockSeconds
        self.pamService = pamService
        service = VaultService(dataDirectory: dataDirectory)
        if testCheapKDF {
            service.newVaultParameters = { Argon2Parameters(memoryKiB: 64, passes: 1, lanes: 1) }
            service.backupParameters = Argon2Parameters(memoryKiB: 64, passes: 1, lanes: 1)
            service.exportParameters = Argon2Parameters(memoryKiB: 64, passes: 1, lanes: 1)
        }
        service.buildsSearchIndexAtUnlock = true
        service.quickUnlockUnavailable = { [pamService] in SystemAuthentication.unavailability(service: pamService) }
    }

    /// Whether quick unlock is wanted: the setting, else on where PAM can be used.
    var quickUnlockEnabled: Bool {
        Settings.load(dataDirectory).quickUnlock ?? (SystemAuthentication.unavailability(service: pamService) == nil)
    }

    /// Whether quick unlock may be offered now, and if not why (a wording key and its facts).
    func quickUnlockView(now: Date = Date()) -> QuickUnlockView {
        if let why = SystemAuthentication.unavailability(service: pamService) {
            return QuickUnlockView(offered: false, reason: "quickUnlock.system", days: nil, available: false, user: why)
        }
        guard sealedKey != nil else {
            return QuickUnlockView(offered: false, reason: passwordTypedAt != nil ? "quickUnlock.noKey" : "quickUnlock.notTyped", days: nil, available: true, user: nil)
        }
        let verdict = policy.verdict(passwordTypedAt: passwordTypedAt, bootIDAtTyping: bootIDAtTyping, currentBootID: QuickUnlockPolicy.currentBootID(), now: now)
        if let (key, days) = QuickUnlockPolicy.reasonKey(verdict) {
            return QuickUnlockView(offered: false, reason: key, days: days, available: true, user: nil)
        }
        return QuickUnlockView(offered: true, reason: nil, days: nil, available: true, user: SystemAuthentication.userName())
    }

    /// Opens the vault with the typed master password; keeps its Argon2id output sealed for quick unlock when
    /// that is on, and fixes the reminder policy as it is set now.
    func unlockWithMasterPassword(_ password: SecretText) throws {
        rememberTyped(try service.unlock(password: password))
    }

    /// After the master password was typed (unlock, sign-up, sign-in): the key it gave, sealed for quick unlock
    /// when that is on, and the reminder policy fixed as it is set now.
    func rememberTyped(_ key: SecretBytes) {
        passwordTypedAt = Date()
        bootIDAtTyping = QuickUnlockPolicy.currentBootID()
        let settings = Settings.load(dataDirectory)
        policy = QuickUnlockPolicy(reminder: QuickUnlockPolicy.Reminder(rawValue: settings.effectiveReminderDays) ?? .days14)
        sealedKey = quickUnlockEnabled ? SealedSecret(key) : nil
        quickUnlockFailures = 0
        idle.touch(now: Date())
    }

    /// Drops the quick-unlock key too (password changed elsewhere, agent stopping, too many refusals).
    func forgetQuickUnlock() {
        sealedKey = nil
        quickUnlockFailures = 0
    }

    var autoLockSeconds: Double {
        if let testAutoLockSeconds { return testAutoLockSeconds }
        return Double(Settings.load(dataDirectory).effectiveAutoLockMinutes * 60)
    }

    /// Locks: the keys are released (and wiped), values copied through this agent leave the clipboard, and
    /// freed heap goes back to the system. The lock after every command of auto-lock "immediately" keeps a
    /// value just copied until its own deadline (`keepingClipboard`), or copying could not be used at all.
    func lock(keepingClipboard: Bool = false) {
        service.lock()
        // A device link this device opened ends with the vault (off this queue: it asks the server).
        if links.currentOffer != nil { DispatchQueue.global().async { [self] in endOpenLink() } }
        if !keepingClipboard {
            clipboard.clearServed()
            let fingerprints = shown.take()
            if !fingerprints.isEmpty { clipboard.clearPrimary(holding: fingerprints, display: ClipboardDisplay.fromEnvironment()) }
        }
        releaseMemory()
    }

    /// The OS authenticates the user (PAM); the sealed key then opens the vault without Argon2id. Three
    /// refusals drop the key: the master password is needed again.
    func quickUnlock(_ r: QuickUnlockRequest) throws {
        if service.isUnlocked { return }
        let view = quickUnlockView()
        guard view.offered, let sealedKey else {
            throw ProtocolError(.quickUnlockNotOffered, ["reason": view.reason ?? "quickUnlock.noKey", "days": view.days.map(String.init) ?? "", "system": view.user ?? ""])
        }
        guard !r.loginPassword.isEmpty else { throw ProtocolError(.badRequest, ["reason": "no login password"]) }
        switch SystemAuthentication.authenticate(service: pamService, password: r.loginPassword) {
        case .accepted:
            break
        case .refused(let why):
            quickUnlockFailures += 1
            let left = max(0, 3 - quickUnlockFailures)
            if left == 0 { forgetQuickUnlock() }
            throw ProtocolError(.quickUnlockRefused, ["triesLeft": String(left), "system": why])
        case .unavailable(let why):
            throw ProtocolError(.quickUnlockUnavailable, ["reason": why])
        }
        do {
            try service.unlock(passwordKey: sealedKey.open())
            quickUnlockFailures = 0
            idle.touch(now: Date())
        } catch {
            // The slot no longer opens with this key (the password was changed elsewhere): drop it.
            forgetQuickUnlock()
            throw error
        }
    }

    func status() -> StatusReply {
        service.refreshStore()
        idle.interval = autoLockSeconds
        let remaining = service.isUnlocked ? idle.remaining(now: Date()) : 0
        var reply = StatusReply(
            unlocked: service.isUnlocked, vault: service.store.vaultPath, locksInSeconds: Int(remaining.rounded(.up)),
            autoLockMinutes: Settings.load(dataDirectory).effectiveAutoLockMinutes, pid: Int(getpid()), lockSignals: lockSignals, quickUnlock: quickUnlockView())
        reply.sync = service.syncStatus()
        reply.sync?.live = liveConnected
        reply.vaultExists = service.store.exists || service.store.isAccountVault
        reply.account = AccountOperations.brief(dataDirectory)
        reply.breachAlerts = service.isUnlocked && breaches.alerts > 0 ? breaches.alerts : nil
        reply.vaultMark = service.session.map { Int(truncatingIfNeeded: $0.changeMark) }
        service.addBackupStatus(&reply)
        return reply
    }

    /// Answers one request on the server's queue: the agent's own operations, else the service's.
    public func handle(_ request: Request) -> Reply {
        let wasOpen = service.isUnlocked
        defer { noteBackupProblem(wasOpen: wasOpen) }
        do {
            if let reply = try Self.operations.answer(self, request) { return reply }
            // The extension's vault operations come through the host with the session the handshake gave it.
            if let scoped = request.body as? any BrowserScoped { try browsers.check(scoped.session) }
            let reply = service.handle(request)
            shown.note(reply)
            if case .check = reply { breachAlertsSeen(request) }
            // The breach catalogue's address changed (turned on, say): the next tick of the timer fetches it.
            if case .settings = reply, request.body(Operations.changeSetting)?.name == "breach-catalogue" { breaches.nextFetch = .distantPast }
            // Saves that may follow the answer run on the queue once this request is done (its reply is written
            // by the connection's thread meanwhile); whatever comes next on the queue sees them done.
            if service.session?.deferred.isEmpty == false {
                if let queue {
                    queue.async { [self] in service.session?.takeDeferred().forEach { $0() } }
                } else {
                    service.session?.takeDeferred().forEach { $0() }
                }
            }
            if let queue { syncAfterChange(request, queue: queue) }
            if request.operation.needsVault, service.isUnlocked {
                idle.touch(now: Date())
                if autoLockSeconds == 0 { lock(keepingClipboard: true) }
            }
            return reply
        } catch {
            return .failure(ProtocolError.from(error))
        }
    }

    /// The operations the agent answers itself (locking, the clipboard, the web UI, what it keeps of a
    /// sign-in), or around the service's answer.
    static let operations: OperationTable<AgentDaemon> = {
        var t = OperationTable<AgentDaemon>()
        t.on(Operations.status) { a, _ in a.status() }
        t.on(Operations.unlock) { a, r in
            try a.unlockWithMasterPassword(r.password)
            return Done()
        }
        t.on(Operations.quickUnlock) { a, r in
            try a.quickUnlock(r)
            return Done()
        }
        t.on(Operations.lock) { a, r in
            a.lock()
            if r.forget { a.forgetQuickUnlock() }
            return Done()
        }
        t.on(Operations.copy) { a, r in
            let value = try a.service.perform(.resolve(ResolveRequest(references: [r.reference], markUsed: true))).resolved().values[0]
            try a.clipboard.copy(value, seconds: max(1, min(r.clearAfter, 3600)), display: r.display)
            a.idle.touch(now: Date())
            if a.autoLockSeconds == 0 { a.lock(keepingClipboard: true) }
            return Done()
        }
        t.on(Operations.webOpen) { a, _ in
            if a.web == nil, let queue = a.queue { a.startWeb(queue: queue) }
            guard let web = a.web else { throw ProtocolError(.webUnavailable, ["reason": a.webFailure]) }
            let minted = try web.mintOpenAddress()
            return WebOpenReply(url: minted.url, opener: minted.opener, origin: web.origin)
        }
        t.on(Operations.browserPairBegin) { a, r in try a.browsers.begin(r) }
        t.on(Operations.browserPairConfirm) { a, r in
            try a.browsers.confirm(r)
            return Done()
        }
        t.on(Operations.browserPairings) { a, _ in try a.browsers.list() }
        t.on(Operations.browserRemove) { a, r in try a.browsers.remove(r) }
        t.on(Operations.browserChallenge) { a, _ in a.browsers.challenge() }
        t.on(Operations.browserProve) { a, r in try a.browsers.prove(r) }
        t.on(Operations.browserSession) { a, r in
            try a.browsers.check(r.session)
            return Done()
        }
        t.on(Operations.readQR) { _, r in
            guard let bytes = Data(base64Encoded: r.image), bytes.count <= 16 << 20 else {
                throw ProtocolError(.imageUnreadable, ["reason": "notAnUpload"])
            }
            do {
                return ResolveReply(values: try ParseChild.qrCodes(bytes: Array(bytes), name: "the image"))
            } catch let e as QRCodeReader.ReadError {
                throw ProtocolError(.imageUnreadable, e.facts.merging(["reason": e.reason]) { _, reason in reason })
            }
        }
        t.on(Operations.accountSignUp) { a, r in
            let (reply, key) = try a.service.signUp(r)
            if let key { a.rememberTyped(key) } else { a.idle.touch(now: Date()) }
            return reply
        }
        t.on(Operations.linkOpen) { a, _ in try a.linkOpen() }
        t.on(Operations.linkWait) { a, _ in try a.linkWait() }
        t.on(Operations.linkConfirm) { a, r in try a.linkConfirm(r) }
        t.on(Operations.linkBegin) { a, r in try a.linkBegin(r) }
        t.on(Operations.linkAnswer) { a, _ in try a.linkAnswer() }
        t.on(Operations.linkFinish) { a, r in try a.linkFinish(r) }
        t.on(Operations.accountSignIn) { a, r in
            if let key = try a.service.signIn(r) { a.rememberTyped(key) }
            return Done()
        }
        // The vault closes (signed out, or every vault erased) with everything the agent held of it
        // (clipboard, quick-unlock key).
        t.on(Operations.accountSignOut) { a, r in try a.closing(.accountSignOut(r)).answer(CountReply.self) }
        t.on(Operations.deleteAllData) { a, r in try a.closing(.deleteAllData(r)).answer(Done.self) }
        t.on(Operations.createVault) { a, r in
            let reply = a.service.handle(.createVault(r))
            if a.service.isUnlocked { a.idle.touch(now: Date()) }
            return try reply.answer(Done.self)
        }
        t.on(Operations.changePassword) { a, r in
            try a.service.changePassword(current: r.current, new: r.new)
            // The slot was re-keyed: keep the agent unlocked with the new keys and a new quick-unlock key (LCK-6).
            do {
                try a.unlockWithMasterPassword(r.new)
            } catch {
                a.lock()
                a.forgetQuickUnlock()
                throw error
            }
            return Done()
        }
        return t
    }()

    /// Every operation a handler answers: the agent's own, the service's and the open vault's (`hello` is
    /// answered by the socket and web servers themselves).
    public static var handledOperations: Set<OperationName> { Set(operations.handlers.keys).union(VaultService.handledOperations) }

    /// The service's answer to a request that may close the vault; when it did, the agent drops what it held.
    func closing(_ request: Request) -> Reply {
        let reply = service.handle(request)
        if !service.isUnlocked {
            lock()
            forgetQuickUnlock()
        }
        return reply
    }

    /// Gives freed heap back to the system after a lock (the vault's pages were wiped when released).
    func releaseMemory() {
        _ = CLinux_releaseFreeMemory()
    }

    /// Binds the socket and serves until a signal ends the process.
    public func run() throws -> Never {
        ProcessHardening.disableCoreDumps()
        // A detached agent must not keep its starter's pipes and sockets open: a caller reading them would never
        // see EOF (Foundation's Process also watches a socket pair to learn that its child ended).
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            guard let fd = Int32(name), fd > 2,
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
                target.hasPrefix("pipe:") || target.hasPrefix("socket:")
            else { continue }
            close(fd)
        }
        let server = AgentServer(socketPath: AgentPaths.socketPath(dataDirectory: dataDirectory), offQueue: { [self] in answerOffQueue($0) }) { [self] request in
            handle(request)
        }
        try server.bind()
        queue = server.queue
        startLiveSync(queue: server.queue)
        // Lock and leave on SIGTERM, SIGINT or SIGHUP.
        for sig in [SIGTERM, SIGINT, SIGHUP] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: server.queue)
            source.setEventHandler { [self] in
                lock()
                forgetQuickUnlock()
                server.removeSocket()
                exit(0)
            }
            source.resume()
            signalSources.append(source)
        }
        // The timer fires in real time and locks at the deadline, whatever clients do.
        let timer = DispatchSource.makeTimerSource(queue: server.queue)
        timer.schedule(deadline: .now() + 0.25, repeating: 0.25)
        timer.setEventHandler { [self] in
            idle.interval = autoLockSeconds
            if service.isUnlocked, idle.isDue(now: Date()) { lock() }
            clipboard.reapFinished()
            watchBreaches(queue: server.queue)
        }
        timer.resume()
        signalSources.append(timer)
        // Lock when the session locks, the user switches away, the screen saver starts or the machine is about to
        // sleep, where a bus exists. Synchronously: before sleep the watch releases logind's delay inhibitor only
        // when this returns. Sleep also drops the quick-unlock key: after resume the master password is needed,
        // so a laptop stolen while asleep does not open with the login password.
        LogindWatch.start(
            onLock: { [self] reason in
                server.queue.sync {
                    lock()
                    if reason == .sleeping { forgetQuickUnlock() }
                }
            }, onStatus: { [self] status in server.queue.async { self.lockSignals = status } })
        server.serve()
    }
}
