import Foundation
import PassboxAgent
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxHTTP
import PassboxProtocol
import PassboxService
import PassboxStore
import PassboxTestKit
import PassboxTestSupport
import Testing

/// The agent never waits on a server (issue 28, part 1): a hostile or stuck server holds a sync in the network,
/// and meanwhile `status`, `list` and `show` answer, `lock`, the idle deadline, SIGTERM and logind's
/// PrepareForSleep lock at once, what the sync brings after the lock is dropped, and the vault file is as it
/// was. Each case proves the sync is still in flight (the server holds its request) when the lock happens,
/// so nothing here waits for a fixed time; the figures printed are for the reader, not asserted.
@Suite struct AgentNetworkTests {
    /// One device of an account behind a proxy, its agent running and unlocked after its first sync.
    final class World {
        let dir: TemporaryDirectory
        let server: ServerProcess
        let proxy: MutatingProxy
        let device: SyncDevice
        let socket: String
        var agent: Int32 = 0
        var vaultHash: [UInt8] = []

        init(_ name: String, autoLock: String = "600", environment: [String: String] = [:], before: (SyncDevice) throws -> Void = { _ in }) throws {
            dir = try TemporaryDirectory("passbox-net-\(name)")
            proxy = try MutatingProxy()
            server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir, extra: ["--origin", proxy.origin], port: try PostgresCluster.freePort())
            proxy.target = server.address
            let (device, _) = try SyncDevice.signUp("a", server: proxy.origin, email: "\(name)@example.org", in: dir)
            self.device = device
            for title in ["Mail", "Bank", "Shop"] { try device.session.update { try $0.add(Item(category: .login, title: title), now: Date()) } }
            try device.sync()
            device.service.lock()
            try before(device)
            socket = device.directory + "/run/agent.sock"
            agent = try Transcript.startBackground(
                try Transcript.executablePath(), ["--data", device.directory, "agent", "--test-auto-lock-seconds", autoLock],
                environment: ["XDG_RUNTIME_DIR": ""].merging(environment) { $1 })
            for _ in 0..<500 where (try? AgentClient.send(.status, socketPath: socket)) == nil { usleep(10_000) }
            #expect(try send(.unlock(UnlockRequest(password: SecretText(SyncDevice.password)))) == .done)
            vaultHash = try fileHash()
        }

        func send(_ request: Request) throws -> Reply { try #require(try AgentClient.send(request, socketPath: socket)) }

        func fileHash() throws -> [UInt8] { Hash.sha256(Array(try Data(contentsOf: URL(fileURLWithPath: device.service.store.vaultPath)))) }

        /// Waits (a guard, not a timing) until the live connection's first sync is done.
        func waitLive() throws {
            for _ in 0..<600 where (try? send(.status).status().sync?.live) != true { usleep(50_000) }
            #expect(try send(.status).status().sync?.live == true, "the agent's first sync went through")
        }

        /// Waits (a guard) until the live connection's first sync is done, or the agent has locked meanwhile:
        /// true when live.
        func waitLiveOrLocked() -> Bool {
            for _ in 0..<1_200 {
                guard let status = try? send(.status).status() else { usleep(50_000); continue }
                if status.sync?.live == true { return true }
                if !status.unlocked { return false }
                usleep(50_000)
            }
            return false
        }

        /// The proxy holds every pull from now on; a sync is sent, and this returns once its pull is held.
        func holdPull() -> (Hold, BackgroundReply) {
            let hold = Hold()
            proxy.armAnswers { path in path == "/v1/sync/pull" ? hold.answer() : nil }
            let sync = syncInBackground()
            hold.waitArrived()
            return (hold, sync)
        }

        /// Asks for the status until the agent answers locked (a guard of 30 s, not a timing).
        func waitLocked() -> Bool {
            for _ in 0..<600 {
                if (try? send(.status).status().unlocked) == false { return true }
                usleep(50_000)
            }
            return false
        }

        /// Sends a sync on a thread of its own; its reply comes through `result`.
        func syncInBackground() -> BackgroundReply {
            let result = BackgroundReply()
            let socket = self.socket
            Thread.detachNewThread {
                result.set(Result { try AgentClient.send(.sync(SyncRequest()), socketPath: socket) })
            }
            return result
        }

        deinit {
            if agent > 0 { Transcript.stop(agent) }
            proxy.disarm()
        }
    }

    final class BackgroundReply: @unchecked Sendable {
        // @unchecked: touched only under `lock`; `done` signals once it is set.
        private let lock = NSLock()
        private var value: Result<Reply?, Error>?
        let done = DispatchSemaphore(value: 0)
        func set(_ v: Result<Reply?, Error>) {
            lock.lock()
            value = v
            lock.unlock()
            done.signal()
        }
        var reply: Reply? {
            lock.lock()
            defer { lock.unlock() }
            return (try? value?.get()) ?? nil
        }
    }

    /// A proxy answer that holds the request until released (a server that never answers), counting arrivals.
    final class Hold: @unchecked Sendable {
        private let lock = NSLock()
        private var arrived = 0
        private let released = DispatchSemaphore(value: 0)
        func answer() -> HTTPResponse {
            lock.lock()
            arrived += 1
            lock.unlock()
            _ = released.wait(timeout: .now() + 120)
            released.signal()
            return HTTPResponse(status: 502)
        }
        var count: Int {
            lock.lock()
            defer { lock.unlock() }
            return arrived
        }
        func release() { released.signal() }
        func waitArrived() {
            for _ in 0..<1_200 where count == 0 { usleep(25_000) }
        }
    }

    /// Measures one request (for the printed figure).
    func timed(_ body: () throws -> Reply) rethrows -> (Reply, Double) {
        let start = DispatchTime.now()
        let reply = try body()
        return (reply, Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6)
    }

    @Test func aServerThatNeverAnswersHoldsUpNothing() throws {
        let w = try World("never")
        try w.waitLive()
        let (hold, sync) = w.holdPull()
        defer { hold.release() }
        #expect(hold.count > 0, "the sync's pull reached the server")
        // While the server holds the pull: status, list and show answer.
        let (status, statusMS) = try timed { try w.send(.status) }
        #expect(try status.status().unlocked)
        let list = try w.send(.list(ListRequest())).items().items
        #expect(list.count == 3)
        #expect(try w.send(.show(ShowRequest(item: "Mail"))).item().summary.title == "Mail")
        let (locked, lockMS) = try timed { try w.send(.lock(LockRequest())) }
        #expect(locked == .done)
        #expect(try w.send(.status).status().unlocked == false)
        #expect(sync.done.wait(timeout: .now()) == .timedOut, "the sync was still in the network when the lock took effect")
        print("a server that never answers: status in \(Int(statusMS)) ms, lock in \(Int(lockMS)) ms, with the pull held")
        hold.release()
        #expect(sync.done.wait(timeout: .now() + 120) == .success)
        // Released, the held pull fails (a 502 here): whatever comes back after the lock, the sync ends without
        // touching the vault, and records nothing in it.
        if case .synced = sync.reply { Issue.record("a sync overtaken by a lock went through: \(String(describing: sync.reply))") }
        #expect(try w.fileHash() == w.vaultHash, "the vault file is as it was")
    }

    /// Sends `request` on a thread of its own; its reply comes through the result.
    static func inBackground(_ request: Request, socket: String) -> BackgroundReply {
        let result = BackgroundReply()
        Thread.detachNewThread { result.set(Result { try AgentClient.send(request, socketPath: socket) }) }
        return result
    }

    /// Signing out and the first read of an attachment another device added reach the server off the queue:
    /// while the server holds either request, status and list answer and a lock takes effect.
    @Test func signingOutAndFetchingAnAttachmentHoldUpNothing() throws {
        let w = try World("offqueue")
        try w.waitLive()
        _ = try w.send(.add(AddRequest(category: "document", changes: ItemChanges(title: "Lease"))))
        let content = SecureRandom.bytes(count: 3000)
        let attached = try w.send(.attach(AttachRequest(item: "Lease", base64: Data(content).base64EncodedString(), name: "lease.pdf"))).attachments()
        let id = try #require(attached.changed?.id)
        _ = try w.send(.sync(SyncRequest()))
        // As if another device had added it: the blob is not on this device.
        let blob = try #require(try FileManager.default.subpathsOfDirectory(atPath: w.device.directory).first { $0.hasSuffix("/" + id) })
        try FileManager.default.removeItem(atPath: w.device.directory + "/" + blob)
        let read = Request.saveAttachment(SaveAttachmentRequest(item: "Lease", attachment: "lease.pdf", path: nil))

        let download = Hold()
        w.proxy.armAnswers { path in path.hasPrefix("/v1/blobs/") ? download.answer() : nil }
        let saving = Self.inBackground(read, socket: w.socket)
        download.waitArrived()
        #expect(download.count > 0, "the download reached the server")
        #expect(try w.send(.status).status().unlocked)
        #expect(try w.send(.list(ListRequest())).items().items.count == 4)
        #expect(try w.send(.lock(LockRequest())) == .done)
        #expect(saving.done.wait(timeout: .now()) == .timedOut, "the download was still held when the lock took effect")
        download.release()
        #expect(saving.done.wait(timeout: .now() + 120) == .success)
        if case .attachmentSaved = saving.reply { Issue.record("a read overtaken by a lock answered its file") }
        w.proxy.disarm()
        #expect(try w.send(.unlock(UnlockRequest(password: SecretText(SyncDevice.password)))) == .done)
        let saved = try w.send(read).attachmentSaved()
        #expect(saved.base64.flatMap { Data(base64Encoded: $0) } == Data(content), "fetched and checked once the server answers")

        let signout = Hold()
        w.proxy.armAnswers { path in path == "/v1/session" ? signout.answer() : nil }
        let leaving = Self.inBackground(.accountSignOut(AccountSignOutRequest(forgetSecretKey: true)), socket: w.socket)
        signout.waitArrived()
        #expect(signout.count > 0, "the sign-out reached the server")
        #expect(try w.send(.status).status().unlocked)
        #expect(try w.send(.lock(LockRequest())) == .done)
        #expect(leaving.done.wait(timeout: .now()) == .timedOut, "the sign-out was still held when the lock took effect")
        signout.release()
        #expect(leaving.done.wait(timeout: .now() + 120) == .success)
    }

    /// Endless pages, each `more` with a revision one higher: the pull stops at the sync's page limit as
    /// `syncRefused`, and a lock meanwhile ends it at once and drops it.
    @Test func endlessPagesAreRefusedAndALockEndsThemAtOnce() throws {
        let w = try World("endless")
        try w.waitLive()
        let pages = PageCounter()
        w.proxy.arm { reply in
            var r = reply
            r.revision = reply.revision + Int64(pages.next())
            (r.more, r.latest, r.items, r.manifests) = (true, nil, [], [])
            return r
        }
        // First without a lock: refused at the limit, nothing applied.
        let refused = try w.send(.sync(SyncRequest()))
        guard case .failure(let error) = refused else {
            Issue.record("endless pages were accepted: \(refused)")
            return
        }
        #expect(error.code == .syncRefused && error.facts["reason"] == "tooManyPages", "\(error)")
        #expect(pages.count >= SyncLimits().pages && pages.count < SyncLimits().pages + 10, "\(pages.count) pages")
        #expect(try w.fileHash() != [] && w.send(.status).status().sync?.lastFailure == "syncRefused")
        let before = try w.fileHash()
        // Then a lock while the pages come.
        let start = pages.count
        let sync = w.syncInBackground()
        for _ in 0..<1_200 where pages.count < start + 20 { usleep(5_000) }
        let (locked, lockMS) = try timed { try w.send(.lock(LockRequest())) }
        #expect(locked == .done)
        let atLock = pages.count - start
        #expect(sync.done.wait(timeout: .now() + 60) == .success)
        #expect(sync.reply == .failure(ProtocolError(.locked)))
        #expect(atLock < SyncLimits().pages, "the lock came while the pull went on (\(atLock) pages)")
        print("endless pages: lock in \(Int(lockMS)) ms after \(atLock) pages")
        #expect(try w.fileHash() == before)
    }

    /// The idle deadline locks while the server holds the pull.
    @Test func theIdleDeadlineLocksWhileTheServerHoldsThePull() throws {
        let w = try World("idle", autoLock: "8")
        // The deadline must outlast an unlock, the first live sync and the held sync's start on a loaded machine
        // (three seconds did not, one fresh run in three, with the browser flows beside it); if it still locks
        // first, the agent is unlocked again and the case starts over (a guard, not a timing).
        var attempt: (Hold, BackgroundReply)?
        for _ in 0..<5 where attempt == nil {
            if try w.send(.status).status().unlocked == false {
                #expect(try w.send(.unlock(UnlockRequest(password: SecretText(SyncDevice.password)))) == .done)
            }
            guard w.waitLiveOrLocked() else { continue }
            let (hold, sync) = w.holdPull()
            if hold.count > 0 { attempt = (hold, sync); break }
            hold.release()
            _ = sync.done.wait(timeout: .now() + 120)
            w.proxy.disarm()
        }
        let (hold, sync) = try #require(attempt, "the held sync reached the server before the deadline locked")
        defer { hold.release() }
        #expect(w.waitLocked(), "the idle deadline locked")
        #expect(sync.done.wait(timeout: .now()) == .timedOut, "while the pull was still held")
        hold.release()
        _ = sync.done.wait(timeout: .now() + 120)
        #expect(try w.fileHash() == w.vaultHash)
    }

    /// SIGTERM ends the agent (locked) while the server holds the pull.
    @Test func sigtermEndsTheAgentWhileTheServerHoldsThePull() throws {
        let w = try World("sigterm")
        try w.waitLive()
        let (hold, _) = w.holdPull()
        defer { hold.release() }
        kill(w.agent, SIGTERM)
        var status: Int32 = 0
        var ended: Int32 = 0
        for _ in 0..<600 where ended == 0 {
            ended = waitpid(w.agent, &status, WNOHANG)
            if ended == 0 { usleep(20_000) }
        }
        #expect(ended == w.agent, "the agent ended on SIGTERM with the pull still held")
        #expect(hold.count > 0)
        if ended == w.agent { w.agent = 0 }
        #expect(try w.fileHash() == w.vaultHash)
    }

    /// A server that trickles its answer a byte a second: the agent's unlock-time sync sits in it, and lock and
    /// status answer meanwhile.
    @Test func aServerThatTricklesHoldsUpNothing() throws {
        let port = try PostgresCluster.freePort()
        let marker = NSTemporaryDirectory() + "passbox-trickle-\(getpid())-\(port)"
        defer { unlink(marker) }
        let script = """
            import socket, sys, threading, time, os
            s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(16)
            def drip(c):
                try:
                    c.recv(65536)
                    open(sys.argv[2], "a").write("pull\\n")
                    for b in b"HTTP/1.1 200 OK\\r\\nContent-Type: application/json\\r\\nContent-Length: 100000\\r\\n\\r\\n" + b" " * 100000:
                        c.send(bytes([b])); time.sleep(1)
                except Exception:
                    pass
            while True:
                c, _ = s.accept(); threading.Thread(target=drip, args=(c,), daemon=True).start()
            """
        let trickle = try Transcript.startBackground("/usr/bin/python3", ["-c", script, String(port), marker])
        defer { Transcript.stop(trickle) }
        for _ in 0..<200 where !canConnect(port) { usleep(25_000) }
        // The device's record names the trickling server from now on.
        let w = try World("trickle") { device in
            var record = try #require(try AccountRecord.load(device.directory))
            record.server = "http://127.0.0.1:\(port)"
            try record.save(device.directory)
        }
        for _ in 0..<600 where !FileManager.default.fileExists(atPath: marker) { usleep(25_000) }
        #expect(FileManager.default.fileExists(atPath: marker), "the agent's sync reached the trickling server")
        #expect(try w.send(.status).status().unlocked)
        #expect(try w.send(.list(ListRequest())).items().items.count == 3)
        let (locked, lockMS) = try timed { try w.send(.lock(LockRequest())) }
        #expect(locked == .done)
        #expect(try w.send(.status).status().unlocked == false)
        print("a server that trickles a byte a second: lock in \(Int(lockMS)) ms")
        #expect(try w.fileHash() == w.vaultHash)
    }

    /// logind's PrepareForSleep locks while the server holds the pull.
    @Test(.enabled(if: LogindPeer.isAvailable, "skipped: dbus-daemon, python3-dbus and python3-gi are not installed (make test installs them)"))
    func prepareForSleepLocksWhileTheServerHoldsThePull() throws {
        let bus = try PrivateBus(.system)
        let logindDir = try TemporaryDirectory("passbox-net-logind")
        let logind = try LogindPeer(bus: bus, passbox: try Transcript.executablePath(), dataDirectory: logindDir.path)
        let w = try World("sleep", environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        try w.waitLive()
        for _ in 0..<400 where !((try? w.send(.status).status().lockSignals)?.contains("watching systemd-logind") ?? false) { usleep(25_000) }
        let (hold, sync) = w.holdPull()
        defer { hold.release() }
        try logind.emit("sleep")
        #expect(w.waitLocked(), "PrepareForSleep locked")
        #expect(sync.done.wait(timeout: .now()) == .timedOut, "while the pull was still held")
        hold.release()
        _ = sync.done.wait(timeout: .now() + 120)
        #expect(try w.fileHash() == w.vaultHash)
    }

    /// Whether something listens on the loopback port (a connect, closed at once).
    func canConnect(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } } == 0
    }

    final class PageCounter: @unchecked Sendable {
        private let lock = NSLock()
        private var n = 0
        func next() -> Int {
            lock.lock()
            defer { lock.unlock() }
            n += 1
            return n
        }
        var count: Int {
            lock.lock()
            defer { lock.unlock() }
            return n
        }
    }
}
