import Foundation
import PassboxClient
import PassboxCrypto
import PassboxCurl
import PassboxPostgres
import PassboxProtocol
import PassboxSQL

/// `passbox bench server --servers 1,2,3 --database postgresql://…` (issue 36): for each count, that many
/// `passbox server` processes (this binary) on the one PostgreSQL database behind HAProxy (round robin, health
/// checks), loaded through HAProxy with `wrk` at 64 connections: the authenticated read and the synced write of
/// `passbox bench server` (`GET /v1/account`; `POST /v1/signin/challenge`, a row inserted and a rate-limit
/// counter updated in one committed transaction). Beside them, in the same run: one process reached directly
/// (what HAProxy costs) and the database's own floor, single-row transactions from one connection and from 16
/// at once. Every process, HAProxy, wrk and PostgreSQL share this machine's cores, so the figures say what more
/// processes give on it, not on a machine with more cores: docs/ARCHITECTURE.md reads them.
enum ServerClusterBenchmark {
    static let connections = 64

    static func run(counts: [Int], seconds: Int, uri: String) throws {
        guard let haproxy = ["/usr/sbin/haproxy", "/usr/bin/haproxy"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw CLIError.failure("HAProxy is not installed, so server processes cannot be measured behind it", hint: "install it (apt-get install haproxy; make bench does)")
        }
        let dir = NSTemporaryDirectory() + "passbox-bench-cluster-" + String(getpid())
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }

        let floor = try ServerBenchmark.postgresFloor(uri: uri, transactions: 2000)
        let concurrent = try concurrentFloor(uri: uri, connections: 16, seconds: Double(min(seconds, 3)))
        let email = "cluster-\(getpid())-\(Int(Date().timeIntervalSince1970))@example.org"
        var scripts: (read: String, write: String)?

        Console.out("")
        Console.out("passbox server processes on one PostgreSQL database (fsync on, synchronous_commit on) behind HAProxy (round robin), wrk at \(connections) connections for \(seconds) s per row.")
        Console.out(String(format: "Database floor: %.0f single-row transactions per second from one connection, %.0f from 16 at once.", floor, concurrent))
        var rows = [["PROCESSES", "KIND", "REQUESTS/S", "P50", "P99", "AGAINST ONE", "FAILED", "CPU: SERVERS / HAPROXY / POSTGRESQL"]]
        var single: [String: Double] = [:]
        for (index, count) in ([0] + counts).enumerated() {
            // Round 0 is one process reached directly, without HAProxy. Each round listens on a port of its own.
            let front = try UIBenchmark.freePort()
            let origin = "http://127.0.0.1:\(front)"
            let cluster = try Cluster(processes: max(count, 1), uri: uri, origin: origin, front: front, directory: dir + "/round-\(index)", haproxy: count == 0 ? nil : haproxy)
            defer { cluster.stop() }
            if scripts == nil { scripts = try prepare(origin: origin, email: email, directory: dir) }
            guard let scripts else { break }
            for (kind, script, path) in [("read", scripts.read, "/v1/account"), ("write", scripts.write, "/v1/signin/challenge")] {
                let before = cluster.cpu()
                let clock = DispatchTime.now().uptimeNanoseconds
                let f = try ServerBenchmark.wrk(url: cluster.url + path, script: script, connections: connections, seconds: seconds)
                let used = cluster.cpu() - before
                let capacity = Double(DispatchTime.now().uptimeNanoseconds - clock) / 1e9 * Double(ProcessInfo.processInfo.activeProcessorCount) / 100
                var against = ""
                if count == 1 { single[kind] = f.requestsPerSecond }
                if count > 1, let one = single[kind], one > 0 { against = String(format: "× %.2f", f.requestsPerSecond / one) }
                let name = count == 0 ? "1, direct" : String(count)
                rows.append([name, kind, String(format: "%.0f", f.requestsPerSecond), String(format: "%.2f ms", f.p50), String(format: "%.2f ms", f.p99), against, String(f.failures),
                    String(format: "%.0f %% / %.0f %% / %.0f %%", used.servers / capacity, used.proxy / capacity, used.database / capacity)])
            }
        }
        Console.out(Output.table(rows))
        Console.out("CPU is each part's share of all \(ProcessInfo.processInfo.activeProcessorCount) cores over the row (wrk takes the rest). Every process, HAProxy, wrk and PostgreSQL share these cores: more processes add none here (docs/ARCHITECTURE.md, past one machine).")
    }

    /// An account and its session, made through the first servers started, and wrk's two request scripts. The
    /// write comes from a random forwarded address each time (the servers trust HAProxy on 127.0.0.1), as
    /// devices behind a proxy would: one address is allowed 300 challenges a minute.
    static func prepare(origin: String, email: String, directory: String) throws -> (read: String, write: String) {
        let client = try AccountClient(server: origin)
        let password = Array("bench tulip ocean marble violin".utf8)
        let (_, session) = try password.withUnsafeBytes {
            try client.signup(email: email, password: $0, deviceID: "bench-device", deviceName: "bench")
        }
        let read = directory + "/read.lua", write = directory + "/write.lua"
        try ServerBenchmark.readScript(token: session.token).write(toFile: read, atomically: true, encoding: .utf8)
        try """
        wrk.method = "POST"
        wrk.headers["Content-Type"] = "application/json"
        wrk.headers["\(ServerAPI.header)"] = "\(ServerAPI.version)"
        wrk.body = '{"deviceID":"bench-device","email":"\(email)"}'
        request = function()
          wrk.headers["X-Forwarded-For"] = "10." .. math.random(0, 255) .. "." .. math.random(0, 255) .. "." .. math.random(1, 254)
          return wrk.format()
        end

        """.write(toFile: write, atomically: true, encoding: .utf8)
        return (read, write)
    }

    /// Single-row transactions per second into the database from `connections` connections at once.
    static func concurrentFloor(uri: String, connections: Int, seconds: Double) throws -> Double {
        let setup = try PostgresConnection(uri)
        try setup.execute(ServerBenchmark.postgresFloorTable)
        defer { try? setup.execute("DROP TABLE bench_floor") }
        let counts = Counts(connections)
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        let start = DispatchTime.now().uptimeNanoseconds
        DispatchQueue.concurrentPerform(iterations: connections) { index in
            guard let db = try? PostgresConnection(uri) else { return }
            let payload = Value.blob(SecureRandom.bytes(count: 64))
            var done = 0
            while DispatchTime.now().uptimeNanoseconds < deadline {
                guard (try? db.transaction({ try db.run("INSERT INTO bench_floor (value) VALUES (?)", [payload]) })) != nil else { break }
                done += 1
            }
            counts.set(index, done)
        }
        return Double(counts.total) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }

    final class Counts: @unchecked Sendable {
        // @unchecked: each slot is written by one thread, and read after all of them ended, under `lock`.
        private let lock = NSLock()
        private var values: [Int]
        init(_ n: Int) { values = Array(repeating: 0, count: n) }
        func set(_ i: Int, _ v: Int) { lock.withLock { values[i] = v } }
        var total: Int { lock.withLock { values.reduce(0, +) } }
    }

    /// CPU seconds used so far by the server processes, by HAProxy, and by every `postgres` process on the machine.
    struct CPU {
        var servers = 0.0, proxy = 0.0, database = 0.0
        static func - (a: CPU, b: CPU) -> CPU { CPU(servers: a.servers - b.servers, proxy: a.proxy - b.proxy, database: a.database - b.database) }
    }

    /// User and system CPU seconds of a process from /proc/PID/stat (0 once it is gone), and its command name.
    static func cpuSeconds(_ pid: Int32) -> (seconds: Double, name: String) {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")") else { return (0, "") }
        let name = String(text[text.index(after: open)..<close])
        let fields = text[text.index(close, offsetBy: 2)...].split(separator: " ")
        // After the name: state is field 3, utime 14 and stime 15 (1-based over the whole line).
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return (0, name) }
        return ((user + system) / Double(sysconf(Int32(_SC_CLK_TCK))), name)
    }

    /// `processes` server processes (this binary) on the database, and HAProxy in front of them at `front`
    /// (or, without `haproxy`, the one process listening at `front` itself).
    final class Cluster {
        var children: [Process] = []
        let url: String

        init(processes: Int, uri: String, origin: String, front: UInt16, directory: String, haproxy: String?) throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            url = "http://127.0.0.1:\(front)"
            let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            var ports: [UInt16] = []
            for n in 0..<processes {
                let port = haproxy == nil ? front : try UIBenchmark.freePort()
                ports.append(port)
                let out = directory + "/server-\(n).out"
                _ = FileManager.default.createFile(atPath: out, contents: nil)
                let child = Process()
                child.executableURL = executable
                child.arguments = [
                    "--data", directory + "/server-\(n)", "server", "--listen", "127.0.0.1:\(port)", "--database", uri, "--origin", origin, "--trusted-proxy", "127.0.0.1/32",
                ]
                child.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
                child.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
                try child.run()
                children.append(child)
                try waitFor(ready: out, child)
            }
            guard let haproxy else { return }
            var configuration = """
                global
                    maxconn 4096
                defaults
                    mode http
                    timeout connect 5s
                    timeout client 60s
                    timeout server 60s
                frontend passbox
                    bind 127.0.0.1:\(front)
                    option forwardfor
                    default_backend passbox
                backend passbox
                    balance roundrobin

                """
            // No health checks: under a load past what the processes take, a check answered late would take a
            // process out, and the figures would be HAProxy's refusals (dist/proxy/ allows checks 5 s).
            for (n, port) in ports.enumerated() { configuration += "    server s\(n) 127.0.0.1:\(port)\n" }
            try configuration.write(toFile: directory + "/haproxy.cfg", atomically: true, encoding: .utf8)
            let proxy = Process()
            proxy.executableURL = URL(fileURLWithPath: haproxy)
            proxy.arguments = ["-db", "-f", directory + "/haproxy.cfg"]
            proxy.standardOutput = FileHandle.nullDevice
            proxy.standardError = FileHandle.nullDevice
            try proxy.run()
            children.append(proxy)
            proxyProcess = proxy
            // Ready once the health check answers through it.
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline, proxy.isRunning {
                if (try? HTTPGet.get(url + "/v1/health", timeoutSeconds: 2))?.status == 200 { return }
                Thread.sleep(forTimeInterval: 0.05)
            }
            stop()
            throw CLIError.failure("HAProxy did not answer at \(url)")
        }

        var proxyProcess: Process?

        func cpu() -> CPU {
            var total = CPU()
            for child in children where child !== proxyProcess { total.servers += ServerClusterBenchmark.cpuSeconds(child.processIdentifier).seconds }
            if let proxyProcess { total.proxy = ServerClusterBenchmark.cpuSeconds(proxyProcess.processIdentifier).seconds }
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
                guard let pid = Int32(entry) else { continue }
                let (seconds, name) = ServerClusterBenchmark.cpuSeconds(pid)
                if name == "postgres" { total.database += seconds }
            }
            return total
        }

        func waitFor(ready out: String, _ child: Process) throws {
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline, child.isRunning {
                if let text = try? String(contentsOfFile: out, encoding: .utf8), text.contains("passbox-server ready ") { return }
                Thread.sleep(forTimeInterval: 0.02)
            }
            stop()
            let said = ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").suffix(400)
            throw CLIError.failure("a server process of the benchmark did not start: \(said)")
        }

        func stop() {
            for child in children.reversed() where child.isRunning {
                child.terminate()
                child.waitUntilExit()
            }
            children = []
        }
    }
}
