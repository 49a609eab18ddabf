import Foundation
import PassboxCrypto
import PassboxHTTP
import PassboxPostgres
import PassboxServerAPI

/// Maps HTTP requests to the account operations: JSON in, JSON out, errors as `ProtocolError` with an HTTP
/// status. Logs one line per request (method, route, status, duration) and never a body, a token, a header or
/// an email.
struct ServerRouter: Sendable {
    let accounts: AccountService
    let sync: SyncService
    let blobs: BlobService
    let sharing: SharingService
    let log: @Sendable (String) -> Void
    let metrics = Metrics()
    /// Who may read `/metrics` on this listener (nobody by default).
    var metricsAccess = MetricsAccess.off
    /// Reverse proxies whose `X-Forwarded-For` names the client.
    var clientAddress = ClientAddress(trustedProxies: [])
    /// The breach catalogue's files, the first that exists served (`Configuration.breachCatalogues`).
    var breachCatalogues: [String] = []
    /// The oldest client version served (`ServerAPI.oldestClient`; a debug build's tests raise it).
    var oldestClient = ServerAPI.oldestClient

    func handle(_ peerRequest: HTTPRequest) -> HTTPResponse {
        let started = DispatchTime.now()
        // Every X-Forwarded-For line, in order: a proxy that adds a line of its own (HAProxy) puts it last.
        let forwarded = peerRequest.headers.filter { $0.name == "x-forwarded-for" }.map(\.value)
        let request = peerRequest.with(
            clientAddress: clientAddress.of(peer: peerRequest.clientAddress, forwardedFor: forwarded.isEmpty ? nil : forwarded.joined(separator: ",")))
        let route = "\(request.method) \(request.path)"
        var response: HTTPResponse
        do {
            try Self.refuseCrossSite(request, origin: accounts.origin.current)
            try Self.refuseOldClient(request, oldest: oldestClient)
            response = try answer(request, route: route)
        } catch let slowed as AccountService.SlowedAnswer {
            // Answered after the slowdown from a timer; the connection waits suspended, no handler thread held.
            let answer = Self.failure(slowed.error)
            response = HTTPResponse.later { respond in DispatchQueue.global().asyncAfter(deadline: .now() + slowed.seconds) { respond(answer) } }
        } catch let error as ProtocolError {
            response = Self.failure(error)
        } catch is DecodingError {
            response = Self.failure(ProtocolError(.badRequest, ["reason": "the body is not the JSON this route takes"]))
        } catch {
            response = Self.failure(ProtocolError(.internalError, ["type": String(describing: type(of: error))]))
            // The kind of failure, and for the database its SQLSTATE: never its message, which can quote values.
            let state = (error as? PostgresError).map { " SQLSTATE \($0.sqlState)" } ?? ""
            log("internal error on \(Self.template(request)): \(String(describing: type(of: error)))\(state)")
        }
        let common = [("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff")]
        response.headers += common
        if let start = response.deferred {
            response.deferred = { respond in
                start { later in
                    var later = later
                    later.headers += common
                    respond(later)
                }
            }
        }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e6
        let template = Self.template(request)
        log("\(request.method) \(template) \(response.status) \(String(format: "%.1f", elapsed)) ms")
        metrics.record(method: Self.knownMethods.contains(request.method) ? request.method : "other", route: template, status: response.status, seconds: elapsed / 1000)
        return response
    }

    static let knownMethods: Set<String> = ["GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"]

    static let routes: Set<String> = [
        "GET /metrics", "GET /v1/health", "POST /v1/signup", "POST /v1/prelogin", "POST /v1/signin/challenge", "POST /v1/signin", "GET /v1/account",
        "DELETE /v1/session", "GET /v1/activity", "POST /v1/devices/signout-others", "POST /v1/account/password", "GET /v1/2fa", "POST /v1/2fa/enrol", "POST /v1/2fa/confirm",
        "POST /v1/2fa/disable", "GET /v1/recovery", "POST /v1/recovery", "POST /v1/recovery/blob", "POST /v1/recovery/complete",
        "POST /v1/sync/pull", "POST /v1/sync/push", "POST /v1/sync/wait", "POST /v1/blobs/remove",
        "POST /v1/keys", "GET /v1/orgs", "POST /v1/orgs/append", "POST /v1/orgs/fetch", "POST /v1/orgs/invite", "POST /v1/orgs/revoke", "POST /v1/orgs/vaults/put", "POST /v1/orgs/leave", "POST /v1/orgs/recovery/allow", "POST /v1/orgs/recovery/approve", "POST /v1/recovery/family/start", "POST /v1/recovery/family/keys",
        "POST /v1/invitations/preview", "POST /v1/invitations/accept",
        "POST /v1/devices/attest", "POST /v1/link/start", "POST /v1/link/hello", "POST /v1/link/reply", "POST /v1/link/seal", "POST /v1/link/poll", "POST /v1/link/cancel",
    ]

    /// The route as logged: its template (no ids), or "(unknown route)".
    static func template(_ request: HTTPRequest) -> String {
        if routes.contains("\(request.method) \(request.path)") { return request.path }
        if request.method == "DELETE", request.path.hasPrefix("/v1/devices/") { return "/v1/devices/{device}" }
        if request.method == "GET", request.path.hasPrefix("/invite/") { return "/invite/{token}" }
        if request.path.hasPrefix("/v1/blobs/") {
            if request.method == "POST", request.path.hasSuffix("/complete") { return "/v1/blobs/{id}/complete" }
            if request.method == "PUT" || request.method == "GET" { return "/v1/blobs/{id}/{part}" }
        }
        return "(unknown route)"
    }

    private func answer(_ request: HTTPRequest, route: String) throws -> HTTPResponse {
        switch route {
        case "GET /v1/health": return try Self.json(HealthReply(status: "ok", protocolVersion: ServerAPI.version))
        case "GET /metrics":
            guard metricsAccess.allows(request) else { throw ProtocolError(.notFound, ["route": request.path]) }
            return HTTPResponse(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4")], body: Array(metrics.text().utf8))
        case "POST /v1/signup": return try Self.json(accounts.signup(Self.decode(SignupRequest.self, request), address: request.clientAddress), status: 201)
        case "POST /v1/prelogin": return try Self.json(accounts.prelogin(Self.decode(PreloginRequest.self, request)))
        case "POST /v1/signin/challenge": return try Self.json(accounts.challenge(Self.decode(ChallengeRequest.self, request), address: request.clientAddress))
        case "POST /v1/signin": return try Self.json(accounts.signin(Self.decode(SigninRequest.self, request), address: request.clientAddress))
        case "GET /v1/account":
            return try Self.json(accounts.account(token: Self.bearer(request), address: request.clientAddress))
        case "DELETE /v1/session":
            try accounts.signout(accounts.session(token: Self.bearer(request), address: request.clientAddress))
            return HTTPResponse(status: 204)
        case "POST /v1/account/password":
            try accounts.changePassword(
                accounts.session(token: Self.bearer(request), address: request.clientAddress), Self.decode(PasswordChangeRequest.self, request))
            return HTTPResponse(status: 204)
        case "POST /v1/catalogue/breaches":
            _ = try accounts.session(token: Self.bearer(request), address: request.clientAddress)
            let have = try Self.decode(CatalogueRequest.self, request).have
            guard let data = breachCatalogues.lazy.compactMap({ FileManager.default.contents(atPath: $0) }).first else { throw ProtocolError(.notFound) }
            let digest = Hash.sha256Hex(Array(data))
            if let have, ConstantTime.equal(Array(have.utf8), Array(digest.utf8)) { return HTTPResponse(status: 204) }
            return .json(200, Array(data))
        case "GET /v1/2fa":
            return try Self.json(accounts.twoFactorStatus(accounts.session(token: Self.bearer(request), address: request.clientAddress)))
        case "POST /v1/2fa/enrol":
            let session = try accounts.session(token: Self.bearer(request), address: request.clientAddress)
            return try Self.json(accounts.enrolTwoFactor(session, Self.decode(FreshProof.self, request)))
        case "POST /v1/2fa/confirm":
            let session = try accounts.session(token: Self.bearer(request), address: request.clientAddress)
            return try Self.json(accounts.confirmTwoFactor(session, code: Self.decode(TwoFactorCodeRequest.self, request).code))
        case "POST /v1/2fa/disable":
            try accounts.disableTwoFactor(accounts.session(token: Self.bearer(request), address: request.clientAddress), Self.decode(FreshProof.self, request))
            return HTTPResponse(status: 204)
        case "GET /v1/recovery":
            return try Self.json(accounts.recoveryStatus(accounts.session(token: Self.bearer(request), address: request.clientAddress)))
        case "POST /v1/recovery":
            try accounts.setUpRecovery(
                accounts.session(token: Self.bearer(request), address: request.clientAddress), Self.decode(RecoverySetupRequest.self, request))
            return HTTPResponse(status: 204)
        case "POST /v1/recovery/blob":
            return try Self.json(accounts.recoveryBlob(Self.decode(RecoveryProof.self, request), address: request.clientAddress))
        case "POST /v1/recovery/complete":
            return try Self.json(accounts.completeRecovery(Self.decode(RecoveryCompleteRequest.self, request), address: request.clientAddress))
        case "POST /v1/sync/pull":
            let session = try accounts.session(token: Self.bearer(request), address: request.clientAddress)
            return try Self.json(sync.pull(session, Self.decode(SyncPullRequest.self, request)))
        case "POST /v1/sync/push":
            let session = try accounts.session(token: Self.bearer(request), address: request.clientAddress)
            return try Self.json(sync.push(session, Self.decode(SyncPushRequest.self, request)))
        case "POST /v1/sync/wait":
            let account = try accounts.session(token: Self.bearer(request), address: request.clientAddress).accountID
            let since = try Self.decode(SyncWaitRequest.self, request).since
            let sync = self.sync
            return HTTPResponse.later { respond in
                sync.hub.wait(account: account, since: since, seconds: Double(SyncWaitRequest.seconds), current: { try sync.revision(account: account) }) { revision, shared in
                    respond((try? Self.json(SyncWaitReply(revision: revision, shared: shared ? true : nil))) ?? Self.failure(ProtocolError(.internalError)))
                }
            }
        case "POST /v1/blobs/remove":
            let account = try accounts.session(token: Self.bearer(request), address: request.clientAddress).accountID
            return try Self.json(blobs.remove(account: account, Self.decode(BlobRemovalRequest.self, request)))
        case "GET /v1/activity":
            return try Self.json(accounts.activity(accounts.session(token: Self.bearer(request), address: request.clientAddress)))
        case "POST /v1/devices/signout-others":
            let session = try accounts.session(token: Self.bearer(request), address: request.clientAddress)
            let count = try accounts.signoutDevice(session, deviceID: nil, proof: Self.decode(FreshProof.self, request))
            return try Self.json(SignedOutReply(count: count))
        case _ where request.method == "DELETE" && request.path.hasPrefix("/v1/devices/"):
            let id = String(request.path.dropFirst("/v1/devices/".count))
            let session = try accounts.session(token: Self.bearer(request), address: request.clientAddress)
            _ = try accounts.signoutDevice(session, deviceID: id, proof: Self.decode(FreshProof.self, request))
            return HTTPResponse(status: 204)
        case _ where request.path.hasPrefix("/v1/blobs/"):
            return try blob(request)
        case "POST /v1/keys":
            return try Self.json(sharing.keys(accounts.session(token: Self.bearer(request), address: request.clientAddress), Self.decode(KeyLookupRequest.self, request)))
        case "GET /v1/orgs":
            return try Self.json(sharing.orgs(accounts.session(token: Self.bearer(request), address: request.clientAddress)))
        case "POST /v1/orgs/append":
            return try Self.json(sharing.append(accounts.session(token: Self.bearer(request), address: request.clientAddress), Self.decode(OrgAppendRequest.self, request)))
        case "POST /v1/orgs/fetch":
            return try Self.json(sharing.fetch(accounts.session(token: Self.bearer(request), address: request.clientAddress), Self.decode(OrgFetchRequest.self, request)))
        case "POST /v1/orgs/invite":
            return try Self.json(sharing.invite(accounts.session(token: Self.bearer(request), address: request.clientAddress), Self.decode(OrgInviteRequest.self, request)))
        case "POST /v1/orgs/vaults/put":
            try sharing.putVault(accounts.session(token: Self.bearer(request), address: request.clientAddress), Self.decode(SharedVaultPutRequest.self, request))
            return HTTPResponse(status: 204)
        case "POST /v1/orgs/recovery/allow":
            let session = try accounts.session(token: Self.bearer(request), address: request.clientAddress)
            let body = try Self.decode(OrgRecoveryAllowRequest.self, request)
            // Turning it on hands the account to the family's owners: it takes the master password, not a session alone.
            if body.allow {
                guard let proof = body.proof else { throw ProtocolError(.badRequest, ["reason": "turning organisation recovery on needs a fresh proof"]) }
                let accounts = self.accounts
                try accounts.pool.with { db in
                    try accounts.verifyFreshProof(db, session, challengeID: proof.challengeID, signature: proof.signature, label: SignInTranscript.familyRecoveryLabel)
                }
            }
            try sharing.allowRecovery(session, body)
            return HTTPResponse(status: 204)
        case "POST /v1/orgs/recovery/approve":
            try sharing.approveRecovery(accounts.session(token: Self.bearer(request), address: request.clientAddress), Self.decode(OrgRecoveryApproveRequest.self, request))
            return HTTPResponse(status: 204)
        case "POST /v1/recovery/family/start":
            return try Self.json(sharing.startRecovery(Self.decode(FamilyRecoveryStartRequest.self, request), address: request.clientAddress))
        case "POST /v1/recovery/family/keys":
            try sharing.recoveryKeys(Self.decode(FamilyRecoveryKeysRequest.self, request), address: request.clientAddress)
            return HTTPResponse(status: 204)
        case "POST /v1/orgs/leave":
            try sharing.leave(accounts.session(token: Self.bearer(request), address: request.clientAddress), Self.decode(OrgLeaveRequest.self, request))
            return HTTPResponse(status: 204)
        case "POST /v1/orgs/revoke":
            try sharing.revoke(accounts.session(token: Self.bearer(request), address: request.clientAddress), Self.decode(OrgRevokeRequest.self, request))
            return HTTPResponse(status: 204)
        case "POST /v1/invitations/preview":
            return try Self.json(
                sharing.preview(accounts.session(token: Self.bearer(request), address: request.clientAddress), Self.decode(InvitationTokenRequest.self, request)))
        case "POST /v1/invitations/accept":
            try sharing.accept(accounts.session(token: Self.bearer(request), address: request.clientAddress), Self.decode(InvitationTokenRequest.self, request))
            return HTTPResponse(status: 204)
        case "POST /v1/devices/attest":
            try accounts.attest(accounts.session(token: Self.bearer(request), address: request.clientAddress), Self.decode(DeviceAttestRequest.self, request))
            return HTTPResponse(status: 204)
        case "POST /v1/link/start":
            return try Self.json(accounts.startLink(accounts.session(token: Self.bearer(request), address: request.clientAddress), Self.decode(LinkStartRequest.self, request)))
        case "POST /v1/link/hello":
            try accounts.linkHello(Self.decode(LinkMessageRequest.self, request), address: request.clientAddress)
            return HTTPResponse(status: 204)
        case "POST /v1/link/reply", "POST /v1/link/seal":
            let session = try accounts.session(token: Self.bearer(request), address: request.clientAddress)
            try accounts.linkAnswer(session, Self.decode(LinkMessageRequest.self, request), seal: route.hasSuffix("seal"))
            return HTTPResponse(status: 204)
        case "POST /v1/link/poll", "POST /v1/link/cancel":
            // The old device with its session; the new device, which has none, by the link's id alone.
            let session = Self.bearer(request) == nil ? nil : try accounts.session(token: Self.bearer(request), address: request.clientAddress)
            if route.hasSuffix("cancel") {
                try accounts.cancelLink(session, Self.decode(LinkCancelRequest.self, request))
                return HTTPResponse(status: 204)
            }
            return try Self.json(accounts.linkPoll(session, Self.decode(LinkPollRequest.self, request)))
        case _ where request.method == "GET" && request.path.hasPrefix("/invite/"):
            // A browser that opens an invitation link: the token stays unread (the fragment never arrives).
            return HTTPResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8"), ("Referrer-Policy", "no-referrer")], body: Array(Self.invitationPage.utf8))
        default:
            throw ProtocolError(.notFound, ["route": Self.routes.contains(where: { $0.hasSuffix(" " + request.path) }) ? route : request.path])
        }
    }

    /// The blob routes: `PUT` and `GET /v1/blobs/{id}/{part}`, `POST /v1/blobs/{id}/complete`; bodies are
    /// the blob's bytes, not JSON.
    private func blob(_ request: HTTPRequest) throws -> HTTPResponse {
        let words = request.path.dropFirst("/v1/blobs/".count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard words.count == 2 else { throw ProtocolError(.notFound, ["route": request.path]) }
        let account = try accounts.session(token: Self.bearer(request), address: request.clientAddress).accountID
        if request.method == "POST", words[1] == "complete" {
            try blobs.complete(account: account, id: words[0])
            return HTTPResponse(status: 204)
        }
        guard let part = Int(words[1]), part >= 0 else { throw ProtocolError(.notFound, ["route": request.path]) }
        switch request.method {
        case "PUT":
            guard let length = request.header(BlobTransfer.lengthHeader).flatMap(Int.init) else {
                throw ProtocolError(.badRequest, ["reason": "a part needs the blob's length in \(BlobTransfer.lengthHeader)"])
            }
            try blobs.put(account: account, id: words[0], part: part, length: length, body: request.body)
            return HTTPResponse(status: 204)
        case "GET":
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/octet-stream")], body: try blobs.get(account: account, id: words[0], part: part))
        default:
            throw ProtocolError(.notFound, ["route": request.path])
        }
    }

    /// A client older than `oldest` is told so (`clientTooOld`) before its request is read: an upgraded server
    /// may no longer mean what that client would understand. The health check answers any version, and what
    /// is outside `/v1/` (the invitation page, metrics) is for browsers and scrapers, which send no version.
    static func refuseOldClient(_ request: HTTPRequest, oldest: Int) throws {
        guard request.path.hasPrefix("/v1/"), request.path != "/v1/health" else { return }
        let client = request.header(ServerAPI.header).flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? ServerAPI.unmarked
        guard client < oldest else { return }
        throw ProtocolError(.clientTooOld, ["oldest": String(oldest), "client": String(client)])
    }

    /// What a web page could make its visitors' browsers send: a body that is not JSON (a form or "simple"
    /// request needs no preflight), or any request from another site's page (`Origin` not this server's).
    /// Passbox's own clients send JSON with no `Origin`; blob parts are bytes and need a session token.
    static func refuseCrossSite(_ request: HTTPRequest, origin: String) throws {
        if let from = request.header("Origin"), SignInTranscript.normalizedOrigin(from) != origin {
            throw ProtocolError(.badRequest, ["reason": "requests from another site's page are refused (Origin \(from.prefix(100)))"])
        }
        guard !request.body.isEmpty, !request.path.hasPrefix("/v1/blobs/") || request.path == "/v1/blobs/remove" else { return }
        let type = request.header("Content-Type")?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/json" else {
            throw ProtocolError(.badRequest, ["reason": "the body must be sent as Content-Type: application/json"])
        }
    }

    /// What a browser shows for `/invite/TOKEN`: how to accept in Passbox (English and German).
    static let invitationPage = """
        <!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">
        <title>Passbox invitation</title><main style="font-family:sans-serif;max-width:40em;margin:3em auto">
        <h1>You are invited to share on Passbox</h1>
        <p>Copy this page's whole address (with the part after #) and paste it into Passbox: in a terminal,
        <code>passbox org accept</code>. Sign up on this server first if you have no account here.</p>
        <h2 lang="de">Sie wurden zum Teilen in Passbox eingeladen</h2>
        <p lang="de">Kopieren Sie die ganze Adresse dieser Seite (mit dem Teil nach #) und fügen Sie sie in Passbox ein:
        im Terminal <code>passbox org accept</code>. Haben Sie hier noch kein Konto, registrieren Sie sich zuerst auf diesem Server.</p>
        </main></html>
        """

    static func bearer(_ request: HTTPRequest) -> String? {
        guard let value = request.header("Authorization"), value.hasPrefix("Bearer ") else { return nil }
        return String(value.dropFirst(7))
    }

    static func decode<T: Decodable>(_ type: T.Type, _ request: HTTPRequest) throws -> T {
        try ProtocolCoding.wireDecode(type, from: Data(request.body))
    }

    static func json<T: Encodable>(_ value: T, status: Int = 200) throws -> HTTPResponse {
        .json(status, Array(try ProtocolCoding.wireEncode(value)))
    }

    static func failure(_ error: ProtocolError) -> HTTPResponse {
        let status: Int =
            switch error.code {
            case .badRequest, .clientTooOld: 400
            case .signInFailed, .challengeExpired, .notSignedIn, .twoFactorRequired, .twoFactorCodeWrong: 401
            case .notFound, .deviceNotFound, .contactNotFound, .linkNotFound: 404
            case .rateLimited: 429
            case .accountExists, .accountIDTaken, .syncConflict, .blobsMissing, .lastOwner: 409
            case .blobQuotaExceeded: 413
            case .signupClosed, .invitationInvalid, .notAMember, .viewOnly: 403
            default: 500
            }
        let body = (try? ProtocolCoding.wireEncode(error)).map(Array.init) ?? Array(#"{"code":"internalError","facts":{}}"#.utf8)
        return .json(status, body)
    }
}
