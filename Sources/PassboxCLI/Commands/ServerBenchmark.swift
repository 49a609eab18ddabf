import Foundation
import PassboxAgent
import PassboxClient
import PassboxCrypto
import PassboxProtocol
import PassboxServer
import PassboxPostgres
import PassboxSQLite

/// `passbox bench server [--seconds N] [--database postgresql://…]`: a `passbox server` on SQLite (and, with
/// `--database`, one on that PostgreSQL database; `make bench` starts a throwaway cluster for it) in this
/// process, loaded with `wrk` at
/// 1, 16 and 64 connections: an authenticated read (`GET /v1/account`: the session looked up and its last
/// use written, the account and devices read) and a small write (`POST /v1/signin/challenge`: one row
/// inserted), beside the storage floor measured in the same run (single-row transactions straight into the
/// same database with the same durability). Targets (issue 11): writes reach at least half the floor; p99
/// under 20 ms at 64 connections on loopback.
enum ServerBenchmark {
    struct Figures {
        var requestsPerSecond = 0.0
        var p50 = 0.0, p99 = 0.0
        /// Answers other than 2xx or 3xx, and socket errors (connect, read, write, timeout), as wrk counts them.
        var failures = 0
    }

    static func run(_ args: Arguments, _ context: Context) throws {
        let seconds = max(1, Int(args.value("seconds") ?? "5") ?? 5)
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/wrk") else {
            throw CLIError.failure("wrk is not installed, so the server cannot be measured", hint: "install it (apt-get install wrk; make bench does)")
        }
        if let list = args.value("servers") {
            let counts = list.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !counts.isEmpty, counts.count == list.split(separator: ",").count, counts.allSatisfy({ (1...8).contains($0) }) else {
                throw CLIError.usage("--servers takes counts of server processes from 1 to 8, such as 1,2,3", hint: "passbox bench server --servers 1,2,3 --database postgresql://USER@HOST/DB")
            }
            guard let uri = try Commands.postgresURI(args, context) else {
                throw CLIError.usage("several server processes share one PostgreSQL database: give it with --database", hint: "make bench starts a throwaway cluster for it")
            }
            return try ServerClusterBenchmark.run(counts: counts, seconds: seconds, uri: uri)
        }
        let dir = NSTemporaryDirectory() + "passbox-bench-server-" + String(getpid())
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try measure(seconds: seconds, dir: dir, postgres: nil)
        if let uri = try Commands.postgresURI(args, context) {
            try measure(seconds: seconds, dir: dir, postgres: uri)
        } else {
            Console.out("PostgreSQL: give --database postgresql://USER@HOST/DB (make bench starts a throwaway cluster) for its rows.")
        }
    }

    /// One server on one engine: the floor, then reads and writes at 1, 16 and 64 connections.
    static func measure(seconds: Int, dir: String, postgres: String?) throws {
        var configuration = PassboxServer.Configuration(dataDirectory: dir + "/server")
        configuration.postgres = postgres
        configuration.port = 0
        configuration.limits.connectionsPerAddress = 256
        configuration.challengesPerMinute = Int.max  // the write measured is a challenge, from one address
        let server = try PassboxServer(configuration) { _ in }
        defer { server.stop() }

        // One account and a session, as a device makes them (a new email each run: a PostgreSQL database stays).
        let client = try AccountClient(server: server.origin)
        let password = Array("bench tulip ocean marble violin".utf8)
        let email = "bench-\(getpid())-\(Int(Date().timeIntervalSince1970))@example.org"
        let (_, session) = try password.withUnsafeBytes {
            try client.signup(email: email, password: $0, deviceID: "bench-device", deviceName: "bench")
        }
        let floor = try postgres.map { try postgresFloor(uri: $0, transactions: 2000) } ?? storageFloor(path: dir + "/server/server.sqlite", transactions: 2000)

        let read = dir + "/read.lua", write = dir + "/write.lua"
        try readScript(token: session.token).write(toFile: read, atomically: true, encoding: .utf8)
        try "wrk.method = \"POST\"\nwrk.headers[\"Content-Type\"] = \"application/json\"\nwrk.body = '{\"deviceID\":\"bench-device\",\"email\":\"\(email)\"}'\n"
            .write(toFile: write, atomically: true, encoding: .utf8)

        let engine = postgres == nil ? "SQLite (WAL, synchronous=FULL)" : "PostgreSQL (fsync on, synchronous_commit on, read committed)"
        Console.out("")
        let handlers = postgres == nil ? configuration.limits.handlers : min(configuration.limits.handlers, PassboxServer.postgresHandlers)
        Console.out("passbox server on \(engine), \(configuration.limits.threads) connection threads and \(handlers) handler threads, loopback, wrk for \(seconds) s per row.")
        Console.out(String(format: "Storage floor: %.0f single-row transactions per second straight into the same database, one after another.", floor))
        var rows = [["KIND", "CONNECTIONS", "REQUESTS/S", "P50", "P99", "TARGET"]]
        for (kind, script, path) in [("read", read, "/v1/account"), ("write", write, "/v1/signin/challenge")] {
            for connections in [1, 16, 64] {
                let f = try wrk(url: server.origin + path, script: script, connections: connections, seconds: seconds)
                var target = ""
                if kind == "write" { target = String(format: "≥ %.0f/s (half the floor)%@", floor / 2, f.requestsPerSecond >= floor / 2 ? " met" : " missed") }
                if connections == 64 { target += (target.isEmpty ? "" : "; ") + String(format: "p99 < 20 ms%@", f.p99 < 20 ? " met" : " missed") }
                rows.append([kind, String(connections), String(format: "%.0f", f.requestsPerSecond), String(format: "%.2f ms", f.p50), String(format: "%.2f ms", f.p99), target])
            }
        }
        Console.out(Output.table(rows))
    }

    /// wrk's script for the authenticated read: `GET /v1/account` with the session, as today's client asks.
    static func readScript(token: String) -> String {
        "wrk.method = \"GET\"\nwrk.headers[\"Authorization\"] = \"Bearer \(token)\"\nwrk.headers[\"\(ServerAPI.header)\"] = \"\(ServerAPI.version)\"\n"
    }

    /// The floor's own table in a PostgreSQL database (made anew; dropped after the measurement).
    static let postgresFloorTable = "DROP TABLE IF EXISTS bench_floor; CREATE TABLE bench_floor (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, value BYTEA NOT NULL)"

    /// Single-row transactions per second into the PostgreSQL database (its own table, one connection).
    static func postgresFloor(uri: String, transactions: Int) throws -> Double {
        let db = try PostgresConnection(uri)
        try db.execute(postgresFloorTable)
        defer { try? db.execute("DROP TABLE bench_floor") }
        return try floor(db, transactions: transactions)
    }

    /// Single-row transactions per second into the database at `path` (its own table, same settings).
    static func storageFloor(path: String, transactions: Int) throws -> Double {
        let db = try Database(path: path)
        try db.execute("CREATE TABLE IF NOT EXISTS bench_floor (id INTEGER PRIMARY KEY, value BLOB NOT NULL)")
        defer { try? db.execute("DROP TABLE bench_floor") }
        return try floor(db, transactions: transactions)
    }

    /// `transactions` single-row inserts into `bench_floor`, each its own transaction, one after another.
    static func floor(_ db: any SQLConnection, transactions: Int) throws -> Double {
        let payload = Value.blob(SecureRandom.bytes(count: 64))
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<transactions {
            _ = try db.transaction { try db.run("INSERT INTO bench_floor (value) VALUES (?)", [payload]) }
        }
        return Double(transactions) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }

    /// Runs wrk and reads its requests per second and latency percentiles.
    static func wrk(url: String, script: String, connections: Int, seconds: Int) throws -> Figures {
        let r = Clipboard.runTool(
            ["/usr/bin/wrk", "-t", String(min(connections, 2)), "-c", String(connections), "-d", "\(seconds)s", "--latency", "-s", script, url], input: nil,
            readOutput: true)
        let text = String(decoding: r.output, as: UTF8.self)
        guard r.status == 0 else { throw CLIError.failure("wrk failed: \(text.prefix(300))") }
        var figures = Figures()
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            if words.first == "Requests/sec:", words.count > 1 { figures.requestsPerSecond = Double(words[1]) ?? 0 }
            if words.count == 2, words[0] == "50%" { figures.p50 = milliseconds(String(words[1])) }
            if words.count == 2, words[0] == "99%" { figures.p99 = milliseconds(String(words[1])) }
            if line.contains("Non-2xx or 3xx responses:"), let n = words.last.flatMap({ Int($0) }) { figures.failures += n }
            if line.contains("Socket errors:") {
                // "Socket errors: connect 0, read 0, write 0, timeout 0"
                figures.failures += line.split(whereSeparator: { $0 == " " || $0 == "," }).compactMap { Int($0) }.reduce(0, +)
            }
        }
        return figures
    }

    /// "1.23ms", "850.00us", "1.02s" in milliseconds.
    static func milliseconds(_ text: String) -> Double {
        for (unit, factor) in [("us", 0.001), ("ms", 1.0), ("s", 1000.0), ("m", 60_000.0)] where text.hasSuffix(unit) {
            return (Double(text.dropLast(unit.count)) ?? 0) * factor
        }
        return 0
    }
}
