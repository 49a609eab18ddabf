import Foundation
import PassboxCore
import PassboxCrypto
import PassboxHTTP

/// The web UI's server, inside the agent: the UI's files and its JSON API on 127.0.0.1 at a random port.
///
/// Who may use it: whoever holds a session cookie, and a session is made only from a one-time token that the
/// agent hands out on its own socket (`web-open`, which checks the peer's user id). Every request must name
/// this server in `Host` (no DNS rebinding); a request with an `Origin` must come from this origin, and every
/// API call must carry it (no cross-site request forgery); `Sec-Fetch-Site`, where the browser sends it, must
/// be same-origin (or none, for an address typed or bookmarked). The API has no CORS headers, so a page of
/// another origin cannot read an answer either. Every answer has a strict Content-Security-Policy and
/// `Cache-Control: no-store`.
public final class WebServer: @unchecked Sendable {
    // @unchecked: `tokens` and `sessions` are touched only under `lock`; the rest is set in init.
    public typealias API = @Sendable ([UInt8]) -> [UInt8]

    private var http: HTTPServer?
    public private(set) var port: UInt16 = 0
    public var origin: String { "http://127.0.0.1:\(port)" }
    private let assets: WebAssets
    private let api: API
    /// Where the opener files go (the agent's 0700 socket directory).
    private let directory: String
    private let lock = NSLock()
    /// One-time tokens by their SHA-256, with when they stop working and their opener file.
    private var tokens: [String: (expires: Date, opener: String)] = [:]
    /// Sessions, oldest first: the SHA-256 of the cookie and of the page's key (see `redeem`).
    private var sessions: [(cookie: String, key: String)] = []
    static let tokenSeconds: TimeInterval = 60
    static let untrustedConnections: UInt32 = 16
    static let maximumSessions = 32
    /// The largest API request (a request frame; items are small).
    static let maximumBody = 4 << 20

    public init(directory: String, api: @escaping API) throws {
        self.directory = directory
        self.api = api
        assets = try WebAssets.load()
        var limits = HTTPServer.Limits()
        // A browser opens six connections at once for the page's files.
        limits.threads = 6
        limits.handlers = 8
        limits.connections = 64
        limits.connectionsPerAddress = 64
        // Any local user can connect to 127.0.0.1: connections that have not yet shown the session's cookie
        // share 16 slots (a new one closes the oldest) and close after 5 idle seconds, so the other 48 are
        // always there for the owner's browser, which shows it on its first request.
        limits.untrustedConnections = Self.untrustedConnections
        limits.untrustedTimeoutSeconds = 5
        limits.maximumBody = Self.maximumBody
        limits.timeoutSeconds = 60
        do {
            http = try HTTPServer(address: "127.0.0.1", port: 0, limits: limits) { [weak self] request in
                self?.answer(request) ?? HTTPResponse(status: 503)
            }
        } catch {
            throw WebServerError(reason: error.reason)
        }
        port = http?.port ?? 0
    }

    public func stop() {
        http?.stop()
        http = nil
        lock.lock()
        let openers = tokens.values.map(\.opener)
        tokens.removeAll()
        sessions.removeAll()
        lock.unlock()
        for opener in openers { unlink(opener) }
    }

    deinit { stop() }

    // MARK: Tokens and sessions

    /// A new one-time address, and its opener file (0600) that forwards to it.
    public func mintOpenAddress(now: Date = Date()) throws -> (url: String, opener: String) {
        sweep(now: now)
        let token = Base16.encode(SecureRandom.bytes(count: 32))
        let url = "\(origin)/open/\(token)"
        let opener = directory + "/open-\(Base16.encode(SecureRandom.bytes(count: 8))).html"
        let page = "<!doctype html><meta charset=\"utf-8\"><meta name=\"referrer\" content=\"no-referrer\"><meta http-equiv=\"refresh\" content=\"0;url=\(url)\"><title>Passbox</title>\n"
        let fd = open(opener, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw WebServerError(reason: "could not write \(opener): \(String(cString: strerror(errno)))") }
        let bytes = Array(page.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count else {
            unlink(opener)
            throw WebServerError(reason: "could not write \(opener)")
        }
        lock.lock()
        tokens[Self.digest(token)] = (now.addingTimeInterval(Self.tokenSeconds), opener)
        lock.unlock()
        return (url, opener)
    }

    /// Drops expired tokens and their opener files.
    func sweep(now: Date) {
        lock.lock()
        let expired = tokens.filter { $0.value.expires <= now }
        for key in expired.keys { tokens[key] = nil }
        lock.unlock()
        for entry in expired.values { unlink(entry.opener) }
    }

    /// Spends a token: a new session's cookie value and its page key, or nil for a token unknown, spent or
    /// expired. The key goes to the page in the address's fragment (never sent to any server), which the page
    /// moves into its tab's `sessionStorage` (kept apart by port, unlike cookies) and sends with every API
    /// call: a server on another port of 127.0.0.1, which browsers send this origin's cookies to, never sees it.
    func redeem(_ token: String, now: Date = Date()) -> (cookie: String, key: String)? {
        sweep(now: now)
        lock.lock()
        guard let entry = tokens.removeValue(forKey: Self.digest(token)) else {
            lock.unlock()
            return nil
        }
        let session = (cookie: Base16.encode(SecureRandom.bytes(count: 32)), key: Base16.encode(SecureRandom.bytes(count: 32)))
        sessions.append((Self.digest(session.cookie), Self.digest(session.key)))
        if sessions.count > Self.maximumSessions { sessions.removeFirst(sessions.count - Self.maximumSessions) }
        lock.unlock()
        unlink(entry.opener)
        return session
    }

    /// Whether the request carries a live session's cookie and that session's page key. Both are looked up
    /// by their SHA-256, so the time a lookup takes says nothing about how much of a guess was right.
    func hasSession(_ request: HTTPRequest) -> Bool {
        guard let value = cookie(request), let key = request.header(Self.keyHeader) else { return false }
        let (cookieDigest, keyDigest) = (Self.digest(value), Self.digest(key))
        lock.lock()
        defer { lock.unlock() }
        return sessions.contains { $0.cookie == cookieDigest && $0.key == keyDigest }
    }

    static let keyHeader = "X-Passbox-Key"

    var cookieName: String { "passbox-\(port)" }

    func cookie(_ request: HTTPRequest) -> String? {
        for header in request.headers where header.name == "cookie" {
            for part in header.value.split(separator: ";") {
                let pair = part.trimmingCharacters(in: .whitespaces)
                if pair.hasPrefix(cookieName + "=") { return String(pair.dropFirst(cookieName.count + 1)) }
            }
        }
        return nil
    }

    static func digest(_ text: String) -> String { Base16.encode(Hash.sha256(Array(text.utf8))) }

    // MARK: Answers

    /// The headers every answer carries.
    static let commonHeaders: [(name: String, value: String)] = [
        (
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; "
                + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        ),
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
        ("Cross-Origin-Opener-Policy", "same-origin"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
        ("Permissions-Policy", "camera=(), microphone=(), geolocation=()"),
    ]

    static func plain(_ status: Int) -> HTTPResponse {
        HTTPResponse(status: status, headers: commonHeaders + [("Content-Type", "text/plain; charset=utf-8")], body: Array("\(status)\n".utf8))
    }

    func answer(_ request: HTTPRequest) -> HTTPResponse {
        var response = checkedAnswer(request)
        // A request with a live session's cookie (every request the owner's page makes) or one that opened a
        // session trusts its connection; Host was checked, so the cookie is this server's.
        if response.status != 421, response.headers.contains(where: { $0.name == "Set-Cookie" }) || hasLiveCookie(request) {
            response.trustsConnection = true
        }
        return response
    }

    /// Whether the request carries the cookie of a live session (looked up by its SHA-256, as in `hasSession`).
    func hasLiveCookie(_ request: HTTPRequest) -> Bool {
        guard let value = cookie(request) else { return false }
        let cookieDigest = Self.digest(value)
        lock.lock()
        defer { lock.unlock() }
        return sessions.contains { $0.cookie == cookieDigest }
    }

    func checkedAnswer(_ request: HTTPRequest) -> HTTPResponse {
        // Host names this server, or the request was meant for another (DNS rebinding): refused.
        guard request.header("Host") == "127.0.0.1:\(port)" else { return Self.plain(421) }
        if let origin = request.header("Origin"), origin != self.origin { return Self.plain(403) }
        let isOpen = request.path.hasPrefix("/open/")
        // A top-level navigation to the page itself may come from elsewhere (the opener file `passbox ui` hands
        // the browser is a file:// page, and a redirect keeps its cross-site mark); it loads only the page,
        // which holds no data. Everything else must come from this origin.
        let isNavigation = request.method == "GET" && request.path == "/" && request.header("Sec-Fetch-Mode") == "navigate"
        if let site = request.header("Sec-Fetch-Site"), site != "same-origin", site != "none", !isOpen, !isNavigation { return Self.plain(403) }
        if isOpen {
            guard request.method == "GET" else { return Self.plain(405) }
            guard let session = redeem(String(request.path.dropFirst("/open/".count))) else {
                return HTTPResponse(status: 303, headers: Self.commonHeaders + [("Location", "/")])
            }
            return HTTPResponse(
                status: 303,
                headers: Self.commonHeaders + [("Location", "/#k=\(session.key)"), ("Set-Cookie", "\(cookieName)=\(session.cookie); Path=/; HttpOnly; SameSite=Strict")])
        }
        if request.path == "/api" {
            guard request.method == "POST" else { return Self.plain(405) }
            // Every API call names its origin (browsers send Origin on every POST) and its own content type,
            // which a form or a cross-site fetch without a preflight cannot send.
            guard request.header("Origin") == origin, request.header("Content-Type") == "application/x-passbox-frame" else { return Self.plain(403) }
            guard hasSession(request) else { return Self.plain(401) }
            let body = api(request.body)
            return HTTPResponse(status: 200, headers: Self.commonHeaders + [("Content-Type", "application/json")], body: body)
        }
        guard request.method == "GET" || request.method == "HEAD" else { return Self.plain(405) }
        guard let asset = assets.file(request.path == "/" ? "/index.html" : request.path) else { return Self.plain(404) }
        return HTTPResponse(status: 200, headers: Self.commonHeaders + [("Content-Type", asset.type)], body: request.method == "HEAD" ? [] : asset.bytes)
    }
}

public struct WebServerError: Error, CustomStringConvertible, Sendable {
    public let reason: String
    public var description: String { reason }
}
