import Foundation
@_exported import PassboxCurl
import PassboxHTTP
import PassboxPostgres
import PassboxServerAPI

/// A running `passbox server`: the account API over HTTP (or HTTPS with a certificate) in front of a SQLite
/// database in its data directory or a PostgreSQL database. Nothing about a request is kept in the process.
public final class PassboxServer: Sendable {
    public struct Configuration: Sendable {
        public var address = "127.0.0.1"
        public var port: UInt16 = 8787
        /// The directory of `server.sqlite` (made 0700 if missing).
        public var dataDirectory: String
        /// A PostgreSQL database instead of `server.sqlite` (libpq connection URI).
        public var postgres: String?
        var database: ServerDatabase { postgres.map(ServerDatabase.postgres) ?? .sqlite(directory: dataDirectory) }
        /// The origin clients reach the server at, which they sign (default: http://ADDRESS:PORT).
        public var origin: String?
        public var tls: (certificatePEM: String, keyPEM: String)?
        public var limits = HTTPServer.Limits()
        /// Who may make an account: anyone, holders of an invitation, or nobody.
        public var signup: SignupMode = .open
        /// Sign-in challenges one address may ask for per minute.
        public var challengesPerMinute = 300
        /// What one account may keep on this server, in MiB: its items, manifests and attachments together.
        public var quotaMiB = 1024
        /// Accounts one address (an IPv6 /64) may make per hour, and all addresses together.
        public var signupsPerAddressPerHour = 10
        public var signupsPerHour = 200
        /// `/metrics` on the API's listener: off, or for the holder of a token (`MetricsAccess`).
        public var metrics = MetricsAccess.off
        /// A listener of its own for `/metrics` (a loopback address; port 0 picks one).
        public var metricsListen: (address: String, port: UInt16)?
        /// Reverse proxies whose `X-Forwarded-For` names the client (`--trusted-proxy CIDR`).
        public var trustedProxies: [AddressBlock] = []
        /// Where invitation links are mailed from (`--smtp`, `--smtp-from`, `--smtp-login-file`); nil: no mail.
        public var mailer: SMTPMail?
        /// Where the breach catalogue it mirrors for its accounts is (SEC-15): the first of these files that
        /// exists when a device asks (the operator's copy in the data directory, then the shipped snapshot).
        public var breachCatalogues: [String] = []

        public init(dataDirectory: String) { self.dataDirectory = dataDirectory }
    }

    private let http: HTTPServer
    private let metricsHTTP: HTTPServer?
    /// The port `/metrics` has a listener of its own on, if any.
    public var metricsPort: UInt16? { metricsHTTP?.port }
    private let hub: SyncHub
    private let sync: SyncService
    private let listener: NotificationListener?
    /// The port it listens on.
    public var port: UInt16 { http.port }
    public let origin: String

    public init(_ configuration: Configuration, log: @escaping @Sendable (String) -> Void) throws {
        if configuration.postgres == nil { try Self.makeDataDirectory(configuration.dataDirectory) }
        let pool = try ConnectionPool(configuration.database)
        // With port 0 the port, and so the default origin, is known only once listening.
        let holder = OriginHolder(configuration.origin.map(SignInTranscript.normalizedOrigin) ?? "")
        var accounts = AccountService(pool: pool, origin: holder)
        accounts.signup = configuration.signup
        accounts.challengesPerMinute = configuration.challengesPerMinute
        accounts.signupsPerAddressPerHour = configuration.signupsPerAddressPerHour
        accounts.signupsPerHour = configuration.signupsPerHour
        accounts.quota = StorageQuota(bytes: configuration.quotaMiB << 20)
        let hub = SyncHub()
        let sync = SyncService(pool: pool, hub: hub, isPostgres: configuration.postgres != nil, quota: StorageQuota(bytes: configuration.quotaMiB << 20))
        self.hub = hub
        self.sync = sync
        // Other server processes on the same PostgreSQL database announce their pushes with NOTIFY.
        listener = try configuration.postgres.map { try NotificationListener(uri: $0, hub: hub, log: log) }
        let quota = StorageQuota(bytes: configuration.quotaMiB << 20)
        let blobs = BlobService(pool: pool, quota: quota)
        var sharing = SharingService(pool: pool)
        sharing.mailer = configuration.mailer
        sharing.origin = holder
        sharing.log = log
        var router = ServerRouter(accounts: accounts, sync: sync, blobs: blobs, sharing: sharing, log: log)
        router.metricsAccess = configuration.metrics
        router.breachCatalogues = configuration.breachCatalogues
        router.clientAddress = ClientAddress(trustedProxies: configuration.trustedProxies)
        #if DEBUG
            // The tests of an older client's answer (ServerCommandTests) raise the oldest version served.
            if let oldest = ProcessInfo.processInfo.environment["PASSBOX_TEST_OLDEST_CLIENT"].flatMap(Int.init) { router.oldestClient = oldest }
        #endif
        if let listen = configuration.metricsListen {
            let metrics = router.metrics
            metricsHTTP = try HTTPServer(address: listen.address, port: listen.port) { request in
                guard request.method == "GET", request.path == "/metrics" else { return HTTPResponse(status: 404) }
                return HTTPResponse(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4"), ("Cache-Control", "no-store")], body: Array(metrics.text().utf8))
            }
        } else {
            metricsHTTP = nil
        }
        var limits = configuration.limits
        // On PostgreSQL each handler holds a connection and a server backend: on a small machine more than 16 at
        // once only take turns on the same cores. (On SQLite the waiting handlers join one group commit.)
        if configuration.postgres != nil { limits.handlers = min(limits.handlers, Self.postgresHandlers) }
        // Behind a trusted proxy every connection comes from the proxy's address: the limit per address would cap
        // the whole service at 64 connections (a proxy opening a 65th saw it closed, and its client a failed
        // request). The proxy limits its clients (dist/proxy/); the limit on all connections stays.
        if !configuration.trustedProxies.isEmpty { limits.connectionsPerAddress = max(limits.connectionsPerAddress, limits.connections) }
        http = try HTTPServer(address: configuration.address, port: configuration.port, limits: limits, tls: configuration.tls, handler: router.handle)
        let host = configuration.address.contains(":") ? "[\(configuration.address)]" : configuration.address
        origin = SignInTranscript.normalizedOrigin(configuration.origin ?? "\(configuration.tls == nil ? "http" : "https")://\(host):\(http.port)")
        holder.set(origin)
    }

    /// Requests answered at once on PostgreSQL.
    public static let postgresHandlers: UInt32 = 16

    /// Stops listening and waits for the requests being answered (long polls are answered at once).
    public func stop() {
        let sync = self.sync
        hub.stop { (try? sync.revision(account: $0)) ?? 0 }
        listener?.stop()
        metricsHTTP?.stop()
        http.stop()
    }
}

/// Who may make an account on a server.
public enum SignupMode: String, Sendable, CaseIterable {
    case open, invite, closed
}

extension PassboxServer {
    /// Makes a single-use invitation for `email` in the server's database (run by the operator on the server's
    /// machine, with the server running or not); returns the token, shown once.
    public static func invite(email: String, dataDirectory: String, postgres: String? = nil, days: Int = 7) throws -> String {
        if postgres == nil { try makeDataDirectory(dataDirectory) }
        let pool = try ConnectionPool(postgres.map(ServerDatabase.postgres) ?? .sqlite(directory: dataDirectory))
        return try pool.with { try AccountService.invite($0, email: email, days: days) }
    }

    /// Makes the data directory (0700) when it is missing and tightens it when it is there.
    static func makeDataDirectory(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ServerStartError(reason: "could not make the data directory \(path)")
        }
        chmod(path, 0o700)
    }
}

/// The origin sign-ins are checked against, set once the server listens.
final class OriginHolder: @unchecked Sendable {
    // @unchecked: `value` is read and written under `lock`.
    private let lock = NSLock()
    private var value: String

    init(_ value: String) { self.value = value }

    func set(_ new: String) {
        lock.lock()
        value = new
        lock.unlock()
    }

    var current: String {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}

/// Why the server could not start.
public struct ServerStartError: Error, CustomStringConvertible, Sendable {
    /// Which failure it is, where a command answers one with advice of its own (`passbox server backup` names
    /// where the installed service keeps its database when the directory given has none).
    public enum Kind: Sendable { case other, noDatabase }
    public let reason: String
    public var kind: Kind = .other
    public var description: String { reason }
}

/// One connection per server process that LISTENs for the pushes of every process on the PostgreSQL database
/// and wakes this process's long polls. A broken connection is opened again a second later.
final class NotificationListener: @unchecked Sendable {
    // @unchecked: `stopping` is touched only under `lock`.
    private let lock = NSLock()
    private var stopping = false
    private let done = DispatchSemaphore(value: 0)

    /// Used by the listening thread only (opened first here, so a wrong URI fails the start).
    private var connection: PostgresConnection?

    init(uri: String, hub: SyncHub, log: @escaping @Sendable (String) -> Void) throws {
        connection = try Self.listening(uri)
        let thread = Thread { [self] in
            loop(uri: uri, hub: hub, log: log)
            done.signal()
        }
        thread.name = "passbox-sync-listen"
        thread.start()
    }

    private func loop(uri: String, hub: SyncHub, log: @escaping @Sendable (String) -> Void) {
        while !isStopping {
            do {
                if connection == nil { connection = try Self.listening(uri) }
                if let payload = try connection!.nextNotification(timeout: 0.5) {
                    let parts = payload.split(separator: ":")
                    if parts.count == 2, parts[1] == "shared" {
                        hub.nudge(accounts: [String(parts[0])])
                    } else if parts.count == 2, let revision = Int64(parts[1]) {
                        hub.notify(account: String(parts[0]), revision: revision)
                    }
                }
            } catch {
                connection = nil
                // The kind and SQLSTATE only: a database's message can quote values.
                let state = (error as? PostgresError).map { " SQLSTATE \($0.sqlState)" } ?? ""
                log("sync notifications: \(String(describing: type(of: error)))\(state); listening again in 1 s")
                Thread.sleep(forTimeInterval: 1)
            }
        }
    }

    private static func listening(_ uri: String) throws -> PostgresConnection {
        let c = try PostgresConnection(uri)
        try c.run("LISTEN passbox_sync", [])
        return c
    }

    private var isStopping: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopping
    }

    func stop() {
        lock.lock()
        let first = !stopping
        stopping = true
        lock.unlock()
        if first { done.wait() }
    }
}
