import Foundation
import PassboxPostgres
import PassboxProcess
import PassboxTestKit

/// A throwaway PostgreSQL cluster for the tests: `initdb` in a temporary directory, listening on loopback on
/// a port of its own, run as an unprivileged user (`postgres` when the tests run as root, since PostgreSQL
/// refuses to run as root), stopped and removed when the test process ends, also when it dies: a watcher
/// process stops it once the test process is gone. One cluster serves the whole test process; each test
/// takes a database of its own (`database()`).
///
/// Where PostgreSQL is not installed the tests that need it skip and say why, unless
/// `PASSBOX_REQUIRE_POSTGRES=1` (set by `make test`), where that is a failure. `PASSBOX_POSTGRES_BIN` names
/// the directory of `initdb` and `pg_ctl` when it is not under /usr/lib/postgresql.
public final class PostgresCluster: @unchecked Sendable {
    // @unchecked: every property is set once in init; `counter` is touched only under `lock`.
    public let port: UInt16
    public let directory: String
    private let lock = NSLock()
    private var counter = 0

    /// The cluster of this test process, started on first use; nil (with the reason) when PostgreSQL is missing.
    public static let shared: Result<PostgresCluster, SetupError> = {
        do {
            let cluster = try PostgresCluster()
            atexit { if case .success(let cluster) = PostgresCluster.shared { cluster.stop() } }
            return .success(cluster)
        } catch let error as SetupError {
            return .failure(error)
        } catch {
            return .failure(SetupError(reason: String(describing: error)))
        }
    }()

    /// Whether tests that need PostgreSQL can run; false with a reason to print when they skip.
    public static var isAvailable: Bool {
        if case .success = shared { return true }
        return ProcessInfo.processInfo.environment["PASSBOX_REQUIRE_POSTGRES"] == "1"
    }

    /// The cluster, or the error that says why there is none (a test that runs when PostgreSQL is required).
    public static func require() throws -> PostgresCluster { try shared.get() }

    public struct SetupError: Error, CustomStringConvertible {
        public let reason: String
        public var description: String { "PostgreSQL test cluster: \(reason)" }
    }

    /// A new empty database in the cluster; its connection URI.
    public func database() throws -> String {
        lock.lock()
        counter += 1
        let name = "t\(getpid())_\(counter)"
        lock.unlock()
        let admin = try PostgresConnection(uri("postgres"))
        // A name this code made from numbers: CREATE DATABASE takes no bound parameters.
        try admin.execute("CREATE DATABASE \(name)")
        return uri(name)
    }

    /// The URI of database `name` (trust authentication on loopback, user `passbox`).
    public func uri(_ name: String) -> String { "postgresql://passbox@127.0.0.1:\(port)/\(name)?connect_timeout=5" }

    private let bin: String
    private let runAs: [String]

    private init() throws {
        guard let bin = Self.findBin() else {
            throw SetupError(reason: "initdb not found under /usr/lib/postgresql (apt-get install postgresql, or set PASSBOX_POSTGRES_BIN)")
        }
        self.bin = bin
        // PostgreSQL will not run as root: as root the cluster belongs to the `postgres` user.
        if getuid() == 0 {
            guard getpwnam("postgres") != nil else { throw SetupError(reason: "running as root and there is no postgres user to run the cluster as") }
            runAs = ["/usr/sbin/runuser", "-u", "postgres", "--"]
        } else {
            runAs = []
        }
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("passbox-pg-\(getpid())-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        if getuid() == 0, let user = getpwnam("postgres") { chown(base, user.pointee.pw_uid, user.pointee.pw_gid) }
        directory = base
        port = try Self.freePort()
        try run(["\(bin)/initdb", "-D", "\(base)/data", "-U", "passbox", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"])
        let settings = """

            listen_addresses = '127.0.0.1'
            port = \(port)
            unix_socket_directories = '\(base)'
            max_connections = 200
            shared_buffers = 64MB
            fsync = on
            synchronous_commit = on

            """
        guard let handle = FileHandle(forWritingAtPath: "\(base)/data/postgresql.conf") else { throw SetupError(reason: "postgresql.conf missing after initdb") }
        handle.seekToEndOfFile()
        handle.write(Data(settings.utf8))
        handle.closeFile()
        try run(["\(bin)/pg_ctl", "-D", "\(base)/data", "-l", "\(base)/log", "-w", "-t", "30", "start"])
        startWatcher()
    }

    /// Stops the cluster and removes its directory.
    public func stop() {
        try? run(["\(bin)/pg_ctl", "-D", "\(directory)/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A shell that waits for this test process to end and then stops and removes the cluster, so a test run
    /// that crashes leaves nothing behind either.
    private func startWatcher() {
        let script = """
            while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done
            if [ -d '\(directory)/data' ]; then \(runAs.joined(separator: " ")) '\(bin)/pg_ctl' -D '\(directory)/data' -m immediate -w stop >/dev/null 2>&1; fi
            rm -rf '\(directory)'
            """
        // Its own session, so a signal to the test process's group does not end it before it has cleaned up.
        _ = try? ChildProcess.spawn(["/bin/sh", "-c", script], newSession: true)
    }

    /// Runs a PostgreSQL tool to its end (posix_spawn and waitpid: Foundation's Process would also wait for
    /// the server that `pg_ctl start` leaves running).
    private func run(_ command: [String]) throws {
        let result = try Transcript.execute(runAs.first ?? command[0], Array((runAs + command).dropFirst()), stdin: [], environment: [:])
        guard result.status == 0 else {
            throw SetupError(reason: "\(command[0]) failed: " + String((result.stdout + result.stderr).suffix(2000)))
        }
    }

    private static func findBin() -> String? {
        if let given = ProcessInfo.processInfo.environment["PASSBOX_POSTGRES_BIN"] { return given }
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        return versions.reversed().map { "\(root)/\($0)/bin" }.first { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }
    }

    /// A port nothing listens on now (bound to 0, read back, closed).
    public static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SetupError(reason: "no socket for a free port") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw SetupError(reason: "could not find a free port") }
        return UInt16(bigEndian: address.sin_port)
    }
}

/// The storage engines every server test runs on: SQLite always, PostgreSQL where it is installed (see
/// `PostgresCluster`; where it is missing the first use says so, once).
public enum Backend: String, Sendable, CaseIterable, CustomStringConvertible {
    case sqlite, postgres
    public var description: String { rawValue }

    public static let cases: [Backend] = {
        if PostgresCluster.isAvailable { return [.sqlite, .postgres] }
        if case .failure(let error) = PostgresCluster.shared { print("skipped on PostgreSQL: \(error)") }
        return [.sqlite]
    }()

    /// `passbox server`'s arguments for a fresh store of this engine under `directory` (SQLite) or a fresh
    /// database in the test cluster (PostgreSQL).
    public func serverArguments(directory: String) throws -> [String] {
        switch self {
        case .sqlite: ["--server-data", directory]
        case .postgres: ["--database", try PostgresCluster.require().database()]
        }
    }
}
