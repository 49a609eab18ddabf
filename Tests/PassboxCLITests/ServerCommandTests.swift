import Foundation
import PassboxProtocol
import PassboxSQLite
import PassboxTestKit
import PassboxTestSupport
import Testing

struct ServerNeverListened: Error { let log: String }

/// A `passbox server` process on a free loopback port, its output in files.
final class ServerProcess {
    let process = Process()
    let out: URL, err: URL
    let origin: String
    /// Where it listens (its origin may be another: `--origin`).
    let address: String

    init(dataDirectory: String, in dir: TemporaryDirectory, extra: [String] = [], name: String = "server", port: UInt16 = 0, environment: [String: String] = [:]) throws {
        out = dir.file("\(name)-out")
        err = dir.file("\(name)-err")
        #expect(FileManager.default.createFile(atPath: out.path, contents: nil))
        #expect(FileManager.default.createFile(atPath: err.path, contents: nil))
        process.executableURL = URL(fileURLWithPath: try Transcript.executablePath())
        process.arguments = ["--data", dataDirectory, "server", "--listen", "127.0.0.1:\(port)"] + extra
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        // Waits for the ready line, the last the server prints as it starts (up to a minute: `make test` runs this
        // beside a release build and the browser flows), or for the process to end. Waiting only for the line that
        // says where it listens once let a test read the output before the sign-up policy line after it.
        var found: String?
        let deadline = Date().addingTimeInterval(60)
        while found == nil, process.isRunning, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            let text = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
            guard text.contains("passbox-server ready ") else { continue }
            if let range = text.range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) { found = String(text[range]) }
        }
        guard let found else {
            process.terminate()
            throw ServerNeverListened(log: "the server never said where it listens: \((try? String(contentsOf: err, encoding: .utf8)) ?? "")")
        }
        origin = found
        address = port == 0 ? found : "http://127.0.0.1:\(port)"
    }

    var log: String { (try? String(contentsOf: err, encoding: .utf8)) ?? "" }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    deinit { stop() }
}

/// `passbox server` as a process: it listens, answers, logs one line per request and stops cleanly on SIGTERM.
@Suite struct ServerCommandTests {
    @Test func serverRunsAnswersAndStopsOnSigterm() throws {
        let dir = try TemporaryDirectory("passbox-server")
        let server = try ServerProcess(dataDirectory: dir.path + "/data", in: dir)
        let base = server.origin
        let process = server.process
        process.executableURL = URL(fileURLWithPath: try Transcript.executablePath())
        process.arguments = ["--data", dir.path + "/data", "server", "--listen", "127.0.0.1:0"]
        let health = try Transcript.execute("/usr/bin/curl", ["-sS", "--max-time", "10", base + "/v1/health"], stdin: [], environment: [:])
        #expect(health.stdout == #"{"protocolVersion":\#(ServerAPI.version),"status":"ok"}"#)

        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let log = server.log
        #expect(log.contains("GET /v1/health 200"))
        #expect(log.contains("passbox server: stopped"))
        let mode = try FileManager.default.attributesOfItem(atPath: dir.path + "/data/server")[.posixPermissions] as? Int
        #expect(mode == 0o700)
        for file in try FileManager.default.contentsOfDirectory(atPath: dir.path + "/data/server") {
            let fileMode = try FileManager.default.attributesOfItem(atPath: dir.path + "/data/server/" + file)[.posixPermissions] as? Int
            #expect(fileMode == 0o600, "\(file)")
        }
    }
}

/// `make run` and `make stop` (scripts/server.sh) in German: the server writes its own pid file and a ready line
/// in no language, so the script sees it start (it once waited for the English "listening at", reported a
/// failure, deleted the pid file and left the server running), and `stop` stops it by that pid file.
@Suite struct ServerScriptTests {
    /// `--config FILE` (passbox-server.service's /etc/passbox/server.conf): its settings hold where the command
    /// line names none (here the sign-up mode), the command line wins where both do (the listen address), a
    /// setting it does not know or a line without a value is refused by its line; and under systemd's
    /// Type=notify the server says READY=1 once it listens and STOPPING=1 at SIGTERM, on $NOTIFY_SOCKET.
    @Test func aConfigurationFileAndSystemdReadiness() throws {
        let dir = try TemporaryDirectory("passbox-server-config")
        let config = dir.file("server.conf")
        try "# the service's settings\n\nlisten = 127.0.0.1:9\nsignup = closed\n  quota-mib = 64\n".write(to: config, atomically: true, encoding: .utf8)
        // A datagram socket playing systemd's notification socket.
        let socketPath = dir.path + "/notify"
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in socketPath.utf8.enumerated() { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        #expect(bound == 0)
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        func received() -> String {
            var buffer = [UInt8](repeating: 0, count: 512)
            let n = recv(fd, &buffer, buffer.count, 0)
            return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : ""
        }

        let server = try ServerProcess(dataDirectory: dir.path + "/data", in: dir, extra: ["--config", config.path], environment: ["NOTIFY_SOCKET": socketPath])
        let out = try String(contentsOf: server.out, encoding: .utf8)
        #expect(out.contains("passbox server: no new accounts") && server.origin != "http://127.0.0.1:9", "\(out)")
        let ready = received()
        #expect(ready.hasPrefix("READY=1") && ready.contains("STATUS=serving \(server.origin)"), "\(ready)")
        server.process.terminate()
        server.process.waitUntilExit()
        #expect(server.process.terminationStatus == 0)
        #expect(received() == "STOPPING=1")

        for (text, said) in [
            ("listen = 127.0.0.1:0\ncolour = blue\n", "line 2: unknown setting \"colour\""), ("signup\n", "line 1: expected NAME = VALUE"),
            ("origin =\n", "line 1: origin has no value"), ("config = /etc/passbox/other.conf\n", "line 1: unknown setting \"config\""),
        ] {
            try text.write(to: config, atomically: true, encoding: .utf8)
            let refused = try Transcript.execute(try Transcript.executablePath(), ["--data", dir.path + "/data", "server", "--config", config.path], stdin: [], environment: [:])
            #expect(refused.status == 2 && refused.stderr.contains(said), "\(refused.stderr)")
        }
        let missing = try Transcript.execute(try Transcript.executablePath(), ["--data", dir.path + "/data", "server", "--config", dir.path + "/none.conf"], stdin: [], environment: [:])
        #expect(missing.status == 2 && missing.stderr.contains("cannot read the configuration file"), "\(missing.stderr)")
    }

    @Test func theScriptStartsAndStopsTheServerInGerman() throws {
        let dir = try TemporaryDirectory("passbox-script")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let script = root + "/scripts/server.sh"
        let env = ["PASSBOX_DATA_DIR": dir.path + "/data", "PASSBOX_SERVER_LISTEN": "127.0.0.1:0", "PASSBOX_LANG": "de", "LANG": "de_DE.UTF-8"]
        let started = try Transcript.execute("/bin/bash", [script, "start", try Transcript.executablePath()], stdin: [], environment: env)
        #expect(started.status == 0, "\(started.stdout)\(started.stderr)")
        #expect(started.stdout.contains("Passbox server: http://127.0.0.1:"), "\(started.stdout)")
        let pidFile = dir.path + "/data/server/server.pid"
        let pid = try #require(Int32((try String(contentsOfFile: pidFile, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, 0) == 0, "the server runs under the pid it wrote")
        let mode = try FileManager.default.attributesOfItem(atPath: pidFile)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let log = try String(contentsOfFile: dir.path + "/data/server/server.log", encoding: .utf8)
        #expect(log.contains("erreichbar unter") && log.contains("passbox-server ready origin=http://127.0.0.1:") && log.contains("pid=\(pid)"))
        let again = try Transcript.execute("/bin/bash", [script, "start", try Transcript.executablePath()], stdin: [], environment: env)
        #expect(again.status == 0 && again.stdout.contains("already running"))
        let stopped = try Transcript.execute("/bin/bash", [script, "stop"], stdin: [], environment: env)
        #expect(stopped.status == 0 && stopped.stdout.contains("stopped"), "\(stopped.stdout)\(stopped.stderr)")
        // The script waits for the process to end; what it left is checked, not timed.
        #expect(kill(pid, 0) != 0, "the server has stopped")
        #expect(!FileManager.default.fileExists(atPath: pidFile))
    }
}

/// A server killed in the middle of requests loses no write it acknowledged: after SIGKILL and a restart on
/// the same data directory, every sign-up answered 201 is there (its salt comes back from prelogin).
@Suite struct ServerCrashTests {
    final class Acknowledged: @unchecked Sendable {
        // @unchecked: touched only under `lock`.
        let lock = NSLock()
        var salts: [String: String] = [:]
        var stop = false
        /// Set by the load when it ends (asked to, or the server gone): no more sign-ups will come.
        var ended = false

        var count: Int { lock.withLock { salts.count } }
        var snapshot: [String: String] { lock.withLock { salts } }
    }

    /// Sign-ups sent one after another until `acknowledged.stop` (or the server is gone), each answered 201
    /// recorded with its salt; the semaphore is signalled when the sender stops.
    /// What a server under `signUps`' load is started with: sign-ups unlimited (the default 10 an address an hour
    /// ended the load at ten, and a test waiting for an eleventh, after a snapshot at 8, waited out its deadline).
    static let loadArguments = ["--signups-per-address-hour", "1000000", "--signups-per-hour", "1000000"]

    static func signUps(to origin: String, _ acknowledged: Acknowledged, prefix: String = "user") -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        Thread.detachNewThread {
            var i = 0
            while true {
                acknowledged.lock.lock()
                let stop = acknowledged.stop
                acknowledged.lock.unlock()
                if stop { break }
                let email = "\(prefix)\(i)@example.org"
                let salt = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
                let id = String((0..<6).map { _ in alphabet.randomElement()! })
                let body = #"{"accountID":"\#(id)","email":"\#(email)","salt":"\#(salt)","kdf":{"memoryKiB":65536,"passes":3,"lanes":1},"signInPublicKey":"\#(Data(count: 32).base64EncodedString())","keyset":"AQ=="}"#
                let r = try? Transcript.execute(
                    "/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "60", "-H", "Content-Type: application/json", "--data-binary", body, origin + "/v1/signup"],
                    stdin: [], environment: [:])
                if r?.stdout == "201" {
                    acknowledged.lock.lock()
                    acknowledged.salts[email] = salt
                    acknowledged.lock.unlock()
                }
                // No answer: the server is gone (curl could not connect, or the connection broke). A slow answer
                // (28, past --max-time) is not that: ending the load there, on a busy machine, left a test
                // waiting for sign-ups that never came.
                // Refused as too many (429): no more will come either.
                if r == nil || (r?.stdout == "000" && r?.status != 28) || r?.stdout == "429" { break }
                i += 1
            }
            acknowledged.lock.withLock { acknowledged.ended = true }
            done.signal()
        }
        return done
    }

    /// Waits until `n` sign-ups were acknowledged, or the load ended (the caller's check then fails at once
    /// instead of after the deadline), at most five minutes: beside make test's other lanes a sign-up may take
    /// many seconds.
    static func waitFor(_ n: Int, _ acknowledged: Acknowledged) {
        let deadline = Date().addingTimeInterval(300)
        while Date() < deadline, acknowledged.lock.withLock({ acknowledged.salts.count < n && !acknowledged.ended }) {
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Every acknowledged sign-up of `salts` answers prelogin with its salt on the server at `origin`.
    static func expectPresent(_ salts: [String: String], at origin: String, _ what: String) throws {
        for (email, salt) in salts {
            let r = try Transcript.execute(
                "/usr/bin/curl", ["-s", "--max-time", "5", "-H", "Content-Type: application/json", "--data-binary", #"{"email":"\#(email)"}"#, origin + "/v1/prelogin"],
                stdin: [], environment: [:])
            #expect(r.stdout.contains(#""salt":"\#(salt)""#), "\(email) was acknowledged and then lost (\(what))")
        }
    }

    @Test(arguments: Backend.cases) func aKilledServerKeepsEveryAcknowledgedSignUp(_ backend: Backend) throws {
        let dir = try TemporaryDirectory("passbox-crash")
        let store = try backend.serverArguments(directory: dir.path + "/data/server")
        let first = try ServerProcess(dataDirectory: dir.path + "/data", in: dir, extra: store + Self.loadArguments)
        let acknowledged = Acknowledged()
        let done = Self.signUps(to: first.origin, acknowledged)
        // The kill comes once six sign-ups were acknowledged (a fixed 1.5 s saw only four on a loaded machine).
        Self.waitFor(6, acknowledged)
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        acknowledged.lock.lock()
        acknowledged.stop = true
        acknowledged.lock.unlock()
        done.wait()

        let second = try ServerProcess(dataDirectory: dir.path + "/data", in: dir, extra: store)
        let salts = acknowledged.snapshot
        #expect(salts.count > 5, "the load made sign-ups before the kill")
        try Self.expectPresent(salts, at: second.origin, "after a kill")
        second.stop()
    }

    /// Two `passbox server` processes on one database answer as one: a device signed up through one is
    /// served by the other with its session, and once it signs out through the first, the second refuses it.
    @Test(arguments: Backend.cases) func twoServerProcessesOnOneDatabaseAnswerAsOne(_ backend: Backend) throws {
        let dir = try TemporaryDirectory("passbox-two-servers")
        let store = try backend.serverArguments(directory: dir.path + "/shared")
        let a = try ServerProcess(dataDirectory: dir.path + "/a", in: dir, extra: store, name: "a")
        let b = try ServerProcess(dataDirectory: dir.path + "/b", in: dir, extra: store, name: "b")
        let device = dir.path + "/device"
        let password = "tulip ocean marble violin anchor"
        let made = try Transcript.execute(
            try Transcript.executablePath(), ["--data", device, "signup", "--server", a.origin, "--email", "two@example.org"], stdin: [password, password],
            environment: ["XDG_RUNTIME_DIR": ""])
        #expect(made.status == 0, "\(made.stderr)")
        let record = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: device + "/account.json"))) as? [String: Any]
        let token = try #require(record?["token"] as? String)
        func account(at server: ServerProcess) throws -> String {
            try Transcript.execute(
                "/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5", "-H", "Authorization: Bearer \(token)", server.origin + "/v1/account"],
                stdin: [], environment: [:]
            ).stdout
        }
        #expect(try account(at: b) == "200", "the session made through a is good at b")
        // The same email again through b: the account made through a is there.
        let again = try Transcript.execute(
            try Transcript.executablePath(), ["--data", dir.path + "/other", "signup", "--server", b.origin, "--email", "two@example.org"], stdin: [password, password],
            environment: ["XDG_RUNTIME_DIR": ""])
        #expect(again.status == 1)
        #expect(again.stderr.contains("already exists on this server"), "\(again.stderr)")
        let out = try Transcript.execute(try Transcript.executablePath(), ["--data", device, "signout", "--forget-secret-key"], stdin: [], environment: ["XDG_RUNTIME_DIR": ""])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(try account(at: b) == "401", "signed out through a, refused at b")
        a.stop()
        b.stop()
    }
}

/// Behind a trusted proxy every connection comes from the proxy's address: the server does not cap them at its
/// limit per address (64), which would close a busy proxy's 65th connection; without `--trusted-proxy` the cap
/// stays. 80 connections are open at once from 127.0.0.1, then each asks for the health check.
@Suite struct ServerProxyConnectionTests {
    static let opener = """
        import socket, sys
        port = int(sys.argv[1])
        socks = []
        for _ in range(80):
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            socks.append(s)
        answered = 0
        for s in socks:
            try:
                s.sendall(b"GET /v1/health HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n")
                if s.recv(64).startswith(b"HTTP/1.1 200"):
                    answered += 1
            except OSError:
                pass
        print(answered)
        """

    @Test func aTrustedProxysConnectionsAreNotCappedPerAddress() throws {
        let dir = try TemporaryDirectory("passbox-server-proxy-connections")
        for (trusted, expected) in [(true, true), (false, false)] {
            let server = try ServerProcess(
                dataDirectory: dir.path + "/data-\(trusted)", in: dir, extra: trusted ? ["--trusted-proxy", "127.0.0.1/32"] : [], name: "server-\(trusted)")
            let port = try #require(server.origin.split(separator: ":").last.map(String.init))
            let out = try Transcript.execute("/usr/bin/python3", ["-c", Self.opener, port], stdin: [], environment: [:])
            let answered = Int(out.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
            if expected {
                #expect(answered == 80, "trusted proxy: \(answered) of 80 connections answered \(out.stderr)")
            } else {
                #expect(answered >= 0 && answered <= 64, "no trusted proxy: \(answered) of 80 connections answered, past the cap of 64 \(out.stderr)")
            }
            server.stop()
        }
    }
}

/// `passbox server backup` under write load and `restore` (issue 36): every sign-up acknowledged before the
/// backup started is in the backup, brought back into a new data directory and served from there; what is not
/// a backup, a newer server's backup, and a data directory with a database are refused, and nothing is made.
@Suite struct ServerBackupTests {
    @Test func aBackupUnderWriteLoadKeepsEveryAcknowledgedWrite() throws {
        let dir = try TemporaryDirectory("passbox-server-backup")
        let server = try ServerProcess(dataDirectory: dir.path + "/data", in: dir, extra: ServerCrashTests.loadArguments)
        let acknowledged = ServerCrashTests.Acknowledged()
        let done = ServerCrashTests.signUps(to: server.origin, acknowledged)
        ServerCrashTests.waitFor(6, acknowledged)
        let before = acknowledged.snapshot
        let file = dir.path + "/server-backup.sqlite"
        let backup = try Transcript.execute(try Transcript.executablePath(), ["--data", dir.path + "/data", "server", "backup", "--to", file], stdin: [], environment: [:])
        #expect(backup.status == 0 && backup.stdout.contains("Backed up the server's database"), "\(backup.stdout)\(backup.stderr)")
        // The load went on through the backup and after it.
        ServerCrashTests.waitFor(before.count + 3, acknowledged)
        acknowledged.lock.withLock { acknowledged.stop = true }
        done.wait()
        server.stop()
        #expect((try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int) == 0o600)
        #expect(acknowledged.count >= before.count + 3, "the sign-ups went on beside the backup")

        let again = try Transcript.execute(try Transcript.executablePath(), ["--data", dir.path + "/data", "server", "backup", "--to", file], stdin: [], environment: [:])
        #expect(again.status == 1 && again.stderr.contains("exists already"))
        let restored = try Transcript.execute(try Transcript.executablePath(), ["--data", dir.path + "/restored", "server", "restore", "--from", file], stdin: [], environment: [:])
        #expect(restored.status == 0 && restored.stdout.contains("Restored"), "\(restored.stdout)\(restored.stderr)")
        #expect((try FileManager.default.attributesOfItem(atPath: dir.path + "/restored/server/server.sqlite")[.posixPermissions] as? Int) == 0o600)
        let twice = try Transcript.execute(try Transcript.executablePath(), ["--data", dir.path + "/restored", "server", "restore", "--from", file], stdin: [], environment: [:])
        #expect(twice.status == 1 && twice.stderr.contains("has a server database already"))
        let back = try ServerProcess(dataDirectory: dir.path + "/restored", in: dir, name: "restored")
        try ServerCrashTests.expectPresent(before, at: back.origin, "in the backup")
        back.stop()

        // Not a backup, and a newer server's: refused, and no database made.
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: dir.path + "/junk"))
        let newer = dir.path + "/newer.sqlite"
        try FileManager.default.copyItem(atPath: file, toPath: newer)
        let bumped = try Transcript.execute("/usr/bin/python3", ["-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA user_version = 999'); c.commit()", newer], stdin: [], environment: [:])
        #expect(bumped.status == 0, "\(bumped.stderr)")
        for (source, said) in [(dir.path + "/junk", "is not a database this server can read"), (newer, "comes from a newer Passbox server (schema 999")] {
            let refused = try Transcript.execute(try Transcript.executablePath(), ["--data", dir.path + "/empty", "server", "restore", "--from", source], stdin: [], environment: [:])
            #expect(refused.status == 1 && refused.stderr.contains(said), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.path + "/empty/server/server.sqlite"))
        }
        let postgres = try Transcript.execute(try Transcript.executablePath(), ["--data", dir.path + "/data", "server", "backup", "--to", dir.path + "/pg", "--database", "postgresql://passbox@localhost/passbox"], stdin: [], environment: [:])
        #expect(postgres.status == 2 && postgres.stderr.contains("pg_dump"))

        // An earlier database's write-ahead log beside the place: refused, and nothing made.
        let leftover = dir.path + "/leftover/server"
        try FileManager.default.createDirectory(atPath: leftover, withIntermediateDirectories: true)
        try Data("old log".utf8).write(to: URL(fileURLWithPath: leftover + "/server.sqlite-wal"))
        let stale = try Transcript.execute(try Transcript.executablePath(), ["--data", dir.path, "server", "restore", "--from", file, "--server-data", leftover], stdin: [], environment: [:])
        #expect(stale.status == 1 && stale.stderr.contains("still has server.sqlite-wal of an earlier database"), "\(stale.stderr)")
        #expect(!FileManager.default.fileExists(atPath: leftover + "/server.sqlite"))
        // No database where the backup looks: the hint names --server-data (or the installed service's directory).
        let none = try Transcript.execute(try Transcript.executablePath(), ["--data", dir.path + "/empty", "server", "backup", "--to", dir.path + "/none.sqlite"], stdin: [], environment: [:])
        #expect(none.status == 1 && none.stderr.contains("has no server database") && none.stderr.contains("--server-data"), "\(none.stderr)")
        // Restored by root into a directory of the service's own user: the database is that user's.
        if geteuid() == 0 {
            let owned = dir.path + "/owned/server"
            try FileManager.default.createDirectory(atPath: owned, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            #expect(chown(owned, 65534, 65534) == 0)
            let mine = try Transcript.execute(try Transcript.executablePath(), ["--data", dir.path, "server", "restore", "--from", file, "--server-data", owned], stdin: [], environment: [:])
            #expect(mine.status == 0, "\(mine.stderr)")
            let attributes = try FileManager.default.attributesOfItem(atPath: owned + "/server.sqlite")
            #expect((attributes[.ownerAccountID] as? Int) == 65534 && (attributes[.posixPermissions] as? Int) == 0o600)
        }
    }
}

/// Upgrades (issue 36): a database an earlier server wrote (`Tests/ServerFixtures/server-schema-14.sqlite`, made
/// once by `make-server-fixture.sh` with the server of schema 14) is restored and served by this binary: its
/// schema is brought up to date when the server starts, and the account in it is there.
@Suite struct ServerUpgradeTests {
    @Test func anEarlierServersDatabaseIsServedByThisOne() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let dir = try TemporaryDirectory("passbox-server-upgrade")
        let restored = try Transcript.execute(
            try Transcript.executablePath(), ["--data", dir.path + "/data", "server", "restore", "--from", root + "/Tests/ServerFixtures/server-schema-14.sqlite"], stdin: [], environment: [:])
        #expect(restored.status == 0 && restored.stdout.contains("Restored 1 account (schema 14)"), "\(restored.stdout)\(restored.stderr)")
        let server = try ServerProcess(dataDirectory: dir.path + "/data", in: dir)
        try ServerCrashTests.expectPresent(["fixture@example.org": "cGFzc2JveC1maXh0dXJlIQ=="], at: server.origin, "in schema 14's database")
        server.stop()
        let version = try Database.openReadOnly(dir.path + "/data/server/server.sqlite").rows("PRAGMA user_version").first?[0].integer
        #expect((version ?? 0) >= 14)
    }

    /// An older client gets a clear answer from an upgraded server: every `/v1/` request names its client's
    /// version (`Passbox-API`, none before 13), and one older than the server serves is refused with
    /// `clientTooOld` (400) before it is read, worded on the device with both versions and what to do, and
    /// nothing is made there. The health check answers every version. (A debug build's server takes
    /// PASSBOX_TEST_OLDEST_CLIENT to be upgraded past this client.)
    @Test func anOlderClientIsToldToUpdate() throws {
        let dir = try TemporaryDirectory("passbox-server-older-client")
        func post(_ origin: String, _ path: String, version: String?) throws -> (status: String, body: String) {
            let out = try Transcript.execute(
                "/usr/bin/curl",
                ["-s", "-w", "\n%{http_code}", "--max-time", "10", "-H", "Content-Type: application/json", "--data-binary", #"{"email":"old@example.org"}"#]
                    + (version.map { ["-H", "Passbox-API: \($0)"] } ?? []) + [origin + path], stdin: [], environment: [:])
            let lines = out.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            return (String(lines.last ?? ""), lines.dropLast().joined(separator: "\n"))
        }
        // Today's server serves today's client and those before the header; one older than 12 is told.
        let today = try ServerProcess(dataDirectory: dir.path + "/today", in: dir, name: "today")
        #expect(try post(today.origin, "/v1/prelogin", version: nil).status == "200")
        #expect(try post(today.origin, "/v1/prelogin", version: String(ServerAPI.version)).status == "200")
        let eleven = try post(today.origin, "/v1/prelogin", version: "11")
        #expect(eleven.status == "400" && eleven.body == #"{"code":"clientTooOld","facts":{"client":"11","oldest":"12"}}"#, "\(eleven)")
        today.stop()

        // A server upgraded past this client.
        let newer = ServerAPI.version + 1
        let upgraded = try ServerProcess(dataDirectory: dir.path + "/upgraded", in: dir, name: "upgraded", environment: ["PASSBOX_TEST_OLDEST_CLIENT": String(newer)])
        let refused = try post(upgraded.origin, "/v1/prelogin", version: String(ServerAPI.version))
        #expect(refused.status == "400" && refused.body.contains(#""code":"clientTooOld""#), "\(refused)")
        let health = try Transcript.execute("/usr/bin/curl", ["-s", "-w", "%{http_code}", "-o", "/dev/null", "--max-time", "10", upgraded.origin + "/v1/health"], stdin: [], environment: [:])
        #expect(health.stdout == "200")
        let password = "tulip ocean marble violin anchor"
        for (language, said, hint) in [
            ("en", "the server was upgraded and serves Passbox from protocol version \(newer) on; this Passbox speaks version \(ServerAPI.version)", "update Passbox on this device"),
            ("de", "der Server wurde aktualisiert und bedient Passbox ab Protokollversion \(newer); dieses Passbox spricht Version \(ServerAPI.version)", "aktualisieren Sie Passbox auf diesem Gerät"),
        ] {
            let device = dir.path + "/device-" + language
            let signup = try Transcript.execute(
                try Transcript.executablePath(), ["--data", device, "signup", "--server", upgraded.origin, "--email", "old@example.org"], stdin: [password, password],
                environment: ["XDG_RUNTIME_DIR": "", "PASSBOX_LANG": language])
            #expect(signup.status == 1, "\(signup.stdout)\(signup.stderr)")
            #expect(signup.stderr.contains(said) && signup.stderr.contains(hint), "\(signup.stderr)")
            #expect(!FileManager.default.fileExists(atPath: device + "/account.json"))
        }
        upgraded.stop()
    }
}
