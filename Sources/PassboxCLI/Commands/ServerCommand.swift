import Foundation
import PassboxAgent
import PassboxCore
import PassboxCrypto
import PassboxHTTP
import PassboxServer
import PassboxService
import PassboxWording

extension Commands {
    /// The server's options that take a value: each may also be a line of its configuration file (`--config`).
    static let serverValued: Set<String> = [
        "listen", "server-data", "database", "origin", "tls-cert", "tls-key", "signup", "quota-mib", "blob-quota-mib", "pid-file", "metrics", "metrics-token-file",
        "trusted-proxy", "signups-per-hour", "signups-per-address-hour", "smtp", "smtp-from", "smtp-login-file",
    ]

    static let serverUsage =
        "passbox server [--config FILE] [--listen ADDRESS:PORT] [--server-data DIR | --database postgresql://USER@HOST/DB] [--origin URL] [--tls-cert FILE --tls-key FILE] [--signup open|invite|closed] [--quota-mib N] [--signups-per-hour N] [--signups-per-address-hour N] [--trusted-proxy CIDR]... [--metrics LOOPBACK:PORT | --metrics-token-file FILE] [--smtp smtp[s]://HOST[:PORT] --smtp-from ADDRESS [--smtp-login-file FILE]] [--pid-file FILE]"

    /// `passbox server`: the account server in the foreground until SIGINT or SIGTERM, one log line per request
    /// on standard error.
    static func server(_ c: Context, _ arguments: Arguments) throws {
        try arguments.expectPositionals(0...0, usage: serverUsage)
        var a = arguments
        if let file = a.value("config") { a.underlay(try serverConfiguration(file)) }
        let listen = a.value("listen") ?? "127.0.0.1:8787"
        guard let (address, port) = parseListen(listen) else {
            throw CLIError.usage(c.tr("server.badListen", ["value": listen]), hint: c.tr("server.badListen.hint"))
        }
        var configuration = PassboxServer.Configuration(dataDirectory: serverDataDirectory(c, a))
        configuration.address = address
        configuration.port = port
        configuration.postgres = try postgresURI(a, c)
        configuration.origin = a.value("origin")
        // SEC-15: the breach catalogue devices refresh through this server: the operator's copy in the server's
        // data directory (`passbox --data DIR check update-data` writes it there), else the shipped snapshot.
        configuration.breachCatalogues = Catalogues.candidates(Catalogues.breachesFile, directory: configuration.dataDirectory)
        // --blob-quota-mib is the name the quota had while it counted attachments alone.
        if let quota = a.value("quota-mib") ?? a.value("blob-quota-mib") {
            guard let mib = Int(quota), (0...(1 << 30)).contains(mib) else { throw CLIError.usage("--quota-mib takes a number of MiB", hint: "passbox server --quota-mib 4096") }
            configuration.quotaMiB = mib
        }
        for (option, keyPath) in [("signups-per-hour", \PassboxServer.Configuration.signupsPerHour), ("signups-per-address-hour", \.signupsPerAddressPerHour)] {
            guard let text = a.value(option) else { continue }
            guard let n = Int(text), (0...1_000_000).contains(n) else { throw CLIError.usage("--\(option) takes a number of sign-ups", hint: "passbox server --\(option) 20") }
            configuration[keyPath: keyPath] = n
        }
        for text in a.all("trusted-proxy").flatMap({ $0.split(separator: ",").map(String.init) }) {
            guard let block = AddressBlock(text) else { throw CLIError.usage("--trusted-proxy takes an address or CIDR block (\(Console.visibleLine(text)))", hint: "passbox server --trusted-proxy 127.0.0.1/32") }
            configuration.trustedProxies.append(block)
        }
        if let listenMetrics = a.value("metrics") {
            guard let (metricsAddress, metricsPort) = parseListen(listenMetrics), isLoopback(metricsAddress) else {
                throw CLIError.usage("--metrics takes a loopback address and port (\(Console.visibleLine(listenMetrics)))", hint: "passbox server --metrics 127.0.0.1:9187, or --metrics-token-file FILE")
            }
            configuration.metricsListen = (metricsAddress, metricsPort)
        }
        if let tokenFile = a.value("metrics-token-file") {
            // The token is read from a file (an argument would be readable by every user through /proc).
            guard let data = FileManager.default.contents(atPath: tokenFile), let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
                text.utf8.count >= 16, text.utf8.count <= 256
            else { throw CLIError.usage("--metrics-token-file must name a file holding a token of 16 to 256 characters", hint: "head -c 32 /dev/urandom | base64 > metrics.token") }
            configuration.metrics = .token(Hash.sha256(Array(text.utf8)))
        }
        if let smtp = a.value("smtp") {
            // Off by default. A login comes from a file ("user:password" on its first line), never from argv.
            var user: String?, password: String?
            if let file = a.value("smtp-login-file") {
                guard let data = FileManager.default.contents(atPath: file), let line = String(data: data, encoding: .utf8)?.split(separator: "\n").first,
                    let colon = line.firstIndex(of: ":")
                else { throw CLIError.usage("--smtp-login-file must name a file whose first line is user:password", hint: "printf 'passbox:PASSWORD' > smtp.login; chmod 600 smtp.login") }
                user = String(line[..<colon])
                password = String(line[line.index(after: colon)...])
            }
            do {
                configuration.mailer = try SMTPMail(url: smtp, from: a.value("smtp-from") ?? "", user: user, password: password)
            } catch let failure as SMTPMail.Failure {
                throw CLIError.usage("--smtp: \(failure.description)", hint: "passbox server --smtp smtps://mail.example.org --smtp-from passbox@example.org [--smtp-login-file FILE]")
            }
        }
        if let mode = a.value("signup") {
            guard let chosen = SignupMode(rawValue: mode) else { throw CLIError.usage(c.tr("server.badSignup", ["value": Console.visibleLine(mode)]), hint: c.tr("server.badSignup.hint")) }
            configuration.signup = chosen
        }
        switch (a.value("tls-cert"), a.value("tls-key")) {
        case (let certificate?, let key?):
            configuration.tls = (try readPEM(certificate, c), try readPEM(key, c))
        case (nil, nil):
            // Plain HTTP carries bearer tokens in the clear: only on this machine.
            guard isLoopback(address) else { throw CLIError.usage(c.tr("server.plainNotLoopback", ["address": address]), hint: c.tr("server.plainNotLoopback.hint")) }
        default:
            throw CLIError.usage(c.tr("server.tlsPair"), hint: c.tr("server.tlsPair.hint"))
        }
        // On every address of the machine the server cannot know the name clients reach it by, and clients sign
        // that name: it must be given.
        if configuration.origin == nil, ["0.0.0.0", "::"].contains(address) {
            throw CLIError.usage(c.tr("server.originNeeded", ["address": address]), hint: c.tr("server.originNeeded.hint"))
        }
        // SIGINT and SIGTERM are blocked before the worker threads start (they inherit the mask) and taken here.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        // The database, its log and shared-memory files are the server's alone.
        umask(0o077)
        let server: PassboxServer
        do {
            server = try PassboxServer(configuration) { line in Console.err(line) }
        } catch {
            throw CLIError.failure(c.tr("server.cannotStart", ["reason": String(describing: error)]), hint: c.tr("server.cannotStart.hint"))
        }
        let data = configuration.postgres.map(redactedURI) ?? configuration.dataDirectory
        let pidFile = a.value("pid-file")
        if let pidFile {
            do {
                try ServerReadiness.writePIDFile(pidFile)
            } catch {
                server.stop()
                throw CLIError.failure(c.tr("server.cannotStart", ["reason": "could not write the pid file \(pidFile)"]), hint: c.tr("server.cannotStart.hint"))
            }
        }
        Console.out(c.tr("server.listening", ["origin": server.origin, "data": data]))
        Console.out(c.tr("server.signup.\(configuration.signup.rawValue)"))
        // One line in no language, for scripts and service managers to wait for.
        Console.out(ServerReadiness.readyLine(origin: server.origin, metricsPort: server.metricsPort))
        // Under systemd (Type=notify): ready now, and stopping once a signal came.
        SystemdNotify.send("READY=1\nSTATUS=serving \(server.origin)")
        var received: Int32 = 0
        sigwait(&signals, &received)
        SystemdNotify.send("STOPPING=1")
        server.stop()
        if let pidFile { ServerReadiness.removePIDFile(pidFile) }
        Console.err(c.tr("server.stopped"))
    }

    /// `--config FILE` (what `passbox-server.service` reads from /etc/passbox/server.conf): one `NAME = VALUE` a
    /// line, NAME one of the server's options without its dashes; blank lines and `#` comments are passed over.
    /// An option on the command line wins over the file's; a repeatable one (`trusted-proxy`) adds to it.
    static func serverConfiguration(_ path: String) throws -> [(name: String, value: String)] {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw CLIError.usage("cannot read the configuration file \(Console.visibleLine(path))", hint: "passbox server --config /etc/passbox/server.conf")
        }
        var pairs: [(name: String, value: String)] = []
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let place = "\(Console.visibleLine(path)) line \(n + 1)"
            guard let eq = line.firstIndex(of: "=") else { throw CLIError.usage("\(place): expected NAME = VALUE", hint: "listen = 127.0.0.1:8787") }
            let name = line[..<eq].trimmingCharacters(in: .whitespaces), value = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            guard serverValued.contains(name) else {
                throw CLIError.usage("\(place): unknown setting \"\(Console.visibleLine(name))\"", hint: "settings: " + serverValued.sorted().joined(separator: ", "))
            }
            guard !value.isEmpty else { throw CLIError.usage("\(place): \(name) has no value", hint: "comment the line out with # to leave the setting unset") }
            pairs.append((name, value))
        }
        return pairs
    }

    /// `passbox server invite EMAIL`: a single-use invitation, printed once.
    static func serverInvite(_ c: Context, _ a: Arguments) throws {
        try a.expectPositionals(1...1, usage: inviteUsage)
        let days = a.value("days").map { Int($0) ?? 0 } ?? 7
        guard (1...90).contains(days) else { throw CLIError.usage(c.tr("server.badDays"), hint: c.tr("server.badDays.hint")) }
        umask(0o077)
        let token = try PassboxServer.invite(
            email: a.positionals[0], dataDirectory: serverDataDirectory(c, a), postgres: try postgresURI(a, c), days: days)
        Console.out(c.tr("server.invited", ["email": Console.visibleLine(a.positionals[0]), "days": String(days)]))
        Console.out("    " + token)
    }

    /// The SQLite server's data directory: `--server-data`, else DATA/server (the package's service keeps it
    /// in /var/lib/passbox-server/server).
    static func serverDataDirectory(_ c: Context, _ a: Arguments) -> String { a.value("server-data") ?? c.dataDirectory + "/server" }

    /// Where to look when a backup or restore names no database: the installed service's directory, if any.
    static func serverDataHint(_ c: Context, _ a: Arguments, _ error: ServerStartError) -> String? {
        guard error.kind == .noDatabase else { return nil }
        let service = "/var/lib/passbox-server/server"
        return a.value("server-data") == nil && FileManager.default.fileExists(atPath: service)
            ? "the installed service keeps its database in \(service): sudo passbox server backup --server-data \(service) --to FILE"
            : "name the server's data directory with --server-data"
    }

    static let inviteUsage = "passbox server invite EMAIL [--days N] [--server-data DIR | --database postgresql://USER@HOST/DB]"
    static let serverBackupUsage = "passbox server backup --to FILE [--server-data DIR]"
    static let serverRestoreUsage = "passbox server restore --from FILE [--server-data DIR]"

    /// `passbox server backup --to FILE`: SQLite's online backup of the server's database, while it runs.
    static func serverBackup(_ c: Context, _ a: Arguments) throws {
        try a.expectPositionals(0...0, usage: serverBackupUsage)
        guard a.value("database") == nil else {
            throw CLIError.usage("a PostgreSQL database is backed up with its own tools", hint: "pg_dump --format=custom --file FILE DATABASE (docs/CLI.md, \"Backing up the server\")")
        }
        guard let file = a.value("to") else { throw CLIError.usage("usage: \(serverBackupUsage)") }
        umask(0o077)
        let path = absolute(file)
        let done: ServerBackup.Summary
        do {
            done = try ServerBackup.backup(dataDirectory: serverDataDirectory(c, a), to: path)
        } catch let e as ServerStartError {
            throw CLIError.failure(e.reason, hint: serverDataHint(c, a, e))
        }
        Console.out("Backed up the server's database (schema \(done.schemaVersion), \(Output.count(done.accounts, "account")), \(done.bytes) bytes) to \(path) (0600).")
    }

    /// `passbox server restore --from FILE`: the backup, checked, as the database of a data directory without one.
    static func serverRestore(_ c: Context, _ a: Arguments) throws {
        try a.expectPositionals(0...0, usage: serverRestoreUsage)
        guard let file = a.value("from") else { throw CLIError.usage("usage: \(serverRestoreUsage)") }
        umask(0o077)
        let directory = serverDataDirectory(c, a)
        let done: ServerBackup.Summary
        do {
            done = try ServerBackup.restore(from: absolute(file), dataDirectory: directory)
        } catch let e as ServerStartError {
            throw CLIError.failure(e.reason, hint: "restore a file passbox server backup wrote, into a data directory without server.sqlite (--server-data)")
        }
        Console.out("Restored \(Output.count(done.accounts, "account")) (schema \(done.schemaVersion)) into \(directory)/server.sqlite; start the server on it.")
    }

    /// `--database`: a PostgreSQL connection URI with no password in it (the command line is readable by every
    /// user of the machine through /proc; libpq reads the password from ~/.pgpass or `passfile=`).
    static func postgresURI(_ a: Arguments, _ c: Context) throws -> String? {
        guard let uri = a.value("database") else { return nil }
        guard a.value("server-data") == nil else { throw CLIError.usage(c.tr("server.databaseAndData"), hint: c.tr("server.databaseAndData.hint")) }
        guard uri.hasPrefix("postgresql://") || uri.hasPrefix("postgres://"), let parts = URLComponents(string: uri) else {
            throw CLIError.usage(c.tr("server.badDatabase", ["value": Console.visibleLine(redactedURI(uri))]), hint: c.tr("server.badDatabase.hint"))
        }
        let query = parts.queryItems ?? []
        if parts.password != nil || query.contains(where: { $0.name == "password" }) {
            throw CLIError.usage(c.tr("server.databasePassword"), hint: c.tr("server.databasePassword.hint"))
        }
        return uri
    }

    /// A connection URI as printed: user, host, port and database, never a password or the query.
    static func redactedURI(_ uri: String) -> String {
        guard let parts = URLComponents(string: uri), let scheme = parts.scheme else { return "(a database URI)" }
        let user = parts.user.map { $0 + "@" } ?? ""
        let port = parts.port.map { ":\($0)" } ?? ""
        return "\(scheme)://\(user)\(parts.host ?? "")\(port)\(parts.path)"
    }

    /// `ADDRESS:PORT`, `[IPv6]:PORT` or `:PORT` (loopback).
    static func parseListen(_ text: String) -> (String, UInt16)? {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host.isEmpty ? "127.0.0.1" : host, port)
    }

    static func isLoopback(_ address: String) -> Bool { address.hasPrefix("127.") || address == "::1" }

    static func readPEM(_ path: String, _ c: Context) throws -> String {
        guard let data = FileManager.default.contents(atPath: path), data.count < 1 << 20, let text = String(data: data, encoding: .utf8),
            text.contains("-----BEGIN ")
        else { throw CLIError.failure(c.tr("server.badPEM", ["path": path]), hint: c.tr("server.badPEM.hint")) }
        return text
    }
}

/// How `passbox server` tells scripts and service managers that it is up: a pid file it writes itself (0600,
/// atomically, removed when it stops) and one ready line that does not depend on the language:
/// `passbox-server ready origin=URL pid=N` (and ` metrics=PORT` with a metrics listener of its own).
enum ServerReadiness {
    static func readyLine(origin: String, metricsPort: UInt16?) -> String {
        "passbox-server ready origin=\(origin) pid=\(getpid())" + (metricsPort.map { " metrics=\($0)" } ?? "")
    }

    static func writePIDFile(_ path: String) throws {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw CLIError.failure("cannot write \(path)", hint: "") }
        let text = Array("\(getpid())\n".utf8)
        let written = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == text.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw CLIError.failure("cannot write \(path)", hint: "")
        }
    }

    /// Removes the pid file if it still names this process (another server may have taken it over).
    static func removePIDFile(_ path: String) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8), Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) == getpid() else { return }
        unlink(path)
    }
}
