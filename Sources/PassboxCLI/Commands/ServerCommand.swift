import Foundation
import PassboxCore
import PassboxHTTP
import PassboxServer

extension Commands {
    static let serverUsage = "passbox server [--listen ADDRESS:PORT] [--server-data DIR | --database postgresql://USER@HOST/DB] [--origin URL] [--tls-cert FILE --tls-key FILE] [--signup open|invite|closed] [--blob-quota-mib N]"

    /// `passbox server`: the account server in the foreground until SIGINT or SIGTERM, one log line per request
    /// on standard error.
    static func server(_ c: Context, _ a: Arguments) throws {
        try a.expectPositionals(0...0, usage: serverUsage)
        let listen = a.value("listen") ?? "127.0.0.1:8787"
        guard let (address, port) = parseListen(listen) else {
            throw CLIError.usage(c.tr("server.badListen", ["value": listen]), hint: c.tr("server.badListen.hint"))
        }
        var configuration = PassboxServer.Configuration(dataDirectory: a.value("server-data") ?? c.dataDirectory + "/server")
        configuration.address = address
        configuration.port = port
        configuration.postgres = try postgresURI(a, c)
        configuration.origin = a.value("origin")
        if let quota = a.value("blob-quota-mib") {
            guard let mib = Int(quota), (0...(1 << 30)).contains(mib) else { throw CLIError.usage("--blob-quota-mib takes a number of MiB", hint: "passbox server --blob-quota-mib 4096") }
            configuration.blobQuotaMiB = mib
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
        Console.out(c.tr("server.listening", ["origin": server.origin, "data": data]))
        Console.out(c.tr("server.signup.\(configuration.signup.rawValue)"))
        var received: Int32 = 0
        sigwait(&signals, &received)
        server.stop()
        Console.err(c.tr("server.stopped"))
    }

    /// `passbox server invite EMAIL`: a single-use invitation, printed once.
    static func serverInvite(_ c: Context, _ a: Arguments) throws {
        try a.expectPositionals(1...1, usage: inviteUsage)
        let days = a.value("days").map { Int($0) ?? 0 } ?? 7
        guard (1...90).contains(days) else { throw CLIError.usage(c.tr("server.badDays"), hint: c.tr("server.badDays.hint")) }
        umask(0o077)
        let token = try PassboxServer.invite(
            email: a.positionals[0], dataDirectory: a.value("server-data") ?? c.dataDirectory + "/server", postgres: try postgresURI(a, c), days: days)
        Console.out(c.tr("server.invited", ["email": Console.visibleLine(a.positionals[0]), "days": String(days)]))
        Console.out("    " + token)
    }

    static let inviteUsage = "passbox server invite EMAIL [--days N] [--server-data DIR | --database postgresql://USER@HOST/DB]"

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
