import Foundation
import PassboxClient
import PassboxCore
import PassboxHTTP
import PassboxProtocol
import PassboxService
import PassboxStore
import PassboxSync
import PassboxTestKit
import PassboxTestSupport
import Testing

/// The paths a hostile server heard, from its handler threads.
final class HeardPaths: @unchecked Sendable {
    // @unchecked: `paths` is touched only under `lock`.
    private let lock = NSLock()
    private var paths: [String] = []
    func append(_ path: String) {
        lock.lock()
        paths.append(path)
        lock.unlock()
    }
    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return paths
    }
}

/// A proxy in front of a real `passbox server` that passes everything through and, when armed, changes one
/// answer to a pull (security.md §6b). It also keeps the pushes the server refused (a fork needs one).
final class MutatingProxy: @unchecked Sendable {
    // @unchecked: the mutable parts are touched only under `lock`.
    private let lock = NSLock()
    private var mutation: (@Sendable (SyncPullReply) -> SyncPullReply)?
    private var pulls: [SyncPullReply] = []
    private var refusedPushes: [SyncPushRequest] = []
    private var blobMutation: (@Sendable (_ path: String, _ body: [UInt8]) -> HTTPResponse)?
    private var override: (@Sendable (_ path: String) -> HTTPResponse?)?
    private var rewrite: (@Sendable (_ path: String, _ request: [UInt8], _ body: [UInt8]) -> [UInt8]?)?
    var http: HTTPServer!
    var target = ""

    init() throws {
        // Weak: a request still in flight while the proxy goes (the server stops in its deinit) gets a 502.
        http = try HTTPServer { [weak self] request in self?.forward(request) ?? HTTPResponse(status: 502) }
    }

    var origin: String { "http://127.0.0.1:\(http.port)" }

    func arm(_ change: @escaping @Sendable (SyncPullReply) -> SyncPullReply) {
        lock.lock()
        mutation = change
        lock.unlock()
    }

    func disarm() {
        lock.lock()
        mutation = nil
        blobMutation = nil
        override = nil
        rewrite = nil
        lock.unlock()
    }

    /// Answers a request itself (without asking the server) when `answer` gives a response for its path.
    func armAnswers(_ answer: @escaping @Sendable (_ path: String) -> HTTPResponse?) {
        lock.lock()
        override = answer
        lock.unlock()
    }

    /// Changes the body of any successful JSON answer: the path, the request's body and the server's answer
    /// in; a new answer out, or nil to pass it on.
    func armRewrite(_ change: @escaping @Sendable (_ path: String, _ request: [UInt8], _ body: [UInt8]) -> [UInt8]?) {
        lock.lock()
        rewrite = change
        lock.unlock()
    }

    /// Changes the answers to blob reads (`GET /v1/blobs/ID/PART`): the path and the server's bytes in, the
    /// answer out.
    func armBlobs(_ change: @escaping @Sendable (_ path: String, _ body: [UInt8]) -> HTTPResponse) {
        lock.lock()
        blobMutation = change
        lock.unlock()
    }

    /// Every pull answer the server gave, in order (before any change).
    var seenPulls: [SyncPullReply] {
        lock.lock()
        defer { lock.unlock() }
        return pulls
    }

    var seenRefusedPushes: [SyncPushRequest] {
        lock.lock()
        defer { lock.unlock() }
        return refusedPushes
    }

    private func forward(_ request: HTTPRequest) -> HTTPResponse {
        lock.lock()
        let answer = override
        lock.unlock()
        if let made = answer?(request.path) { return made }
        var headers = ["Accept: application/json"]
        if let auth = request.header("Authorization") { headers.append("Authorization: \(auth)") }
        if !request.body.isEmpty { headers.append("Content-Type: application/json") }
        if let length = request.header(BlobTransfer.lengthHeader) { headers.append("\(BlobTransfer.lengthHeader): \(length)") }
        guard
            let answer = try? HTTPGet.exchange(
                request.method, target + request.path, headers: headers, body: request.body.isEmpty && request.method == "GET" ? nil : request.body, timeoutSeconds: 60)
        else { return HTTPResponse(status: 502) }
        if request.path == "/v1/sync/push", answer.status == 409, let push = try? ProtocolCoding.wireDecode(SyncPushRequest.self, from: Data(request.body)) {
            lock.lock()
            refusedPushes.append(push)
            lock.unlock()
        }
        if request.method == "GET", request.path.hasPrefix("/v1/blobs/"), answer.status == 200 {
            lock.lock()
            let change = blobMutation
            lock.unlock()
            if let change { return change(request.path, answer.body) }
        }
        lock.lock()
        let rewriting = rewrite
        lock.unlock()
        if let rewriting, answer.status == 200, let changed = rewriting(request.path, request.body, answer.body) { return .json(200, changed) }
        guard request.path == "/v1/sync/pull", answer.status == 200, let reply = try? ProtocolCoding.wireDecode(SyncPullReply.self, from: Data(answer.body)) else {
            return .json(answer.status, answer.body)
        }
        lock.lock()
        pulls.append(reply)
        let change = mutation
        lock.unlock()
        guard let change else { return .json(answer.status, answer.body) }
        return .json(200, Array((try? ProtocolCoding.wireEncode(change(reply))) ?? Data()))
    }
}

/// Each attack of security.md §6b that concerns items and vaults: a proxy changes one answer, and the device
/// refuses it with `syncRefused`, keeps its items and revision as they were, and syncs normally once the
/// server answers honestly again.
@Suite struct HostileSyncTests {
    struct World {
        let dir: TemporaryDirectory
        let proxy: MutatingProxy
        let server: ServerProcess
        let a: SyncDevice, b: SyncDevice, c: SyncDevice
        let work: String, personal: String
    }

    static func world(_ name: String) throws -> World {
        let dir = try TemporaryDirectory("passbox-hostile-" + name)
        let proxy = try MutatingProxy()
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir, extra: ["--origin", proxy.origin], port: try PostgresCluster.freePort())
        proxy.target = server.address
        let (a, key) = try SyncDevice.signUp("a", server: proxy.origin, email: "h@example.org", in: dir)
        let b = try SyncDevice.signIn("b", server: proxy.origin, email: "h@example.org", secretKey: key, in: dir)
        let c = try SyncDevice.signIn("c", server: proxy.origin, email: "h@example.org", secretKey: key, in: dir)
        let work = try a.service.perform(.vaultCreate(VaultCreateRequest(name: "Work"))).vault().id
        for title in ["Mail", "Bank", "Shop", "Forum"] {
            var item = Item(category: .login, title: title)
            item.setValue("user-" + title, for: "username")
            item.vaultID = title == "Bank" ? work : nil
            try a.session.update(reindexing: { [$0.id] }) { try $0.add(item, now: Date()) }
        }
        try a.sync()
        try b.sync()
        try c.sync()
        let personal = a.vault.vaults.first { $0.id != work }!.id
        #expect(a.vault.vaults.first?.id == personal, "the first vault made is the default")
        return World(dir: dir, proxy: proxy, server: server, a: a, b: b, c: c, work: work, personal: personal)
    }

    static func id(_ d: SyncDevice, _ title: String) -> String { d.vault.items.first { $0.title == title }!.id }

    static func edit(_ d: SyncDevice, _ title: String, username: String) throws {
        let id = id(d, title)
        try d.session.update(reindexing: { _ in [id] }) { vault in try vault.update(id: id, now: Date()) { $0.setValue(username, for: "username") } }
    }

    static let attacks = [
        "itemMovedToAnotherID", "itemMovedToAnotherVault", "fieldOfAnotherItem", "olderItemReplayed", "itemDropped", "itemResurrected",
        "manifestGoesBack", "manifestForks", "unknownEnvelopeVersion", "vaultKeySwapped", "signatureBroken", "itemTwiceInAPage",
        "itemIDWithNUL", "itemIDTooLong",
    ]

    @Test(arguments: attacks) func theDeviceRefusesAndKeepsItsData(_ attack: String) throws {
        let w = try Self.world(attack)
        let (a, b) = (w.a, w.b)
        let firstPulls = w.proxy.seenPulls
        let mail = Self.id(a, "Mail"), bank = Self.id(a, "Bank"), shop = Self.id(a, "Shop")
        let oldMail = try #require(firstPulls.flatMap(\.items).last { $0.itemID == mail }?.envelope)
        let bankEnvelope = try #require(firstPulls.flatMap(\.items).last { $0.itemID == bank }?.envelope)
        switch attack {
        case "itemResurrected":
            try a.session.update(reindexing: { _ in [shop] }) { try $0.trash(id: shop, now: Date()) }
            try a.session.update { try $0.deleteForever(id: shop) }
        case "manifestForks":
            // Two devices change Mail at once: the server takes a's, refuses c's (a signed manifest of the same
            // version), and c merges and pushes again. b then sees a's version honestly.
            try Self.edit(a, "Mail", username: "from-a")
            try Self.edit(w.c, "Mail", username: "from-c")
            try a.sync()
            try b.sync()
            // c's first pull is answered as if nothing had changed, so its push is made on the old manifest.
            let once = Once()
            let cRevision = w.c.vault.sync!.revision
            let cVersions = w.c.vault.sync!.vaults.mapValues(\.manifestVersion)
            w.proxy.arm { reply in
                guard once.first() else { return reply }
                var stale = reply
                stale.revision = cRevision
                stale.latest = cRevision
                (stale.items, stale.manifests, stale.more) = ([], [], false)
                stale.vaults = stale.vaults.map { var v = $0; v.manifestVersion = cVersions[v.vaultID] ?? v.manifestVersion; return v }
                return stale
            }
            try w.c.sync()
            w.proxy.disarm()
        default:
            try Self.edit(a, "Mail", username: "changed")
        }
        try a.sync()
        if attack == "manifestGoesBack" {
            // b verifies the newest version first; then it is shown an older one.
            try b.sync()
        }
        let before = b.state
        let revisionBefore = b.vault.sync!.revision
        let fork = w.proxy.seenRefusedPushes.first
        let (work, personal) = (w.work, w.personal)
        w.proxy.arm { reply in
            var r = reply
            switch attack {
            case "itemMovedToAnotherID":
                r.items = r.items.map { var x = $0; if x.itemID == mail { x.itemID = shop }; return x }
            case "itemMovedToAnotherVault":
                r.items = r.items.map { var x = $0; if x.itemID == mail { x.vaultID = work }; return x }
            case "fieldOfAnotherItem":
                r.items = r.items.map { var x = $0; if x.itemID == mail { x.envelope = bankEnvelope }; return x }
            case "olderItemReplayed":
                r.items = r.items.map { var x = $0; if x.itemID == mail { x.envelope = oldMail }; return x }
            case "itemTwiceInAPage":
                // The current record (which makes the root right) and an older envelope beside it.
                if let current = r.items.first(where: { $0.itemID == mail }) {
                    r.items.insert(SyncItemRecord(vaultID: current.vaultID, itemID: mail, revision: current.revision, envelope: oldMail), at: 0)
                }
            case "itemDropped":
                r.items.removeAll { $0.itemID == mail }
            case "itemIDWithNUL":
                // An id no device makes: a NUL could blur where one leaf of the manifest tree ends.
                r.items = r.items.map { var x = $0; if x.itemID == mail { x.itemID = mail + "\u{0}x" }; return x }
            case "itemIDTooLong":
                r.items = r.items.map { var x = $0; if x.itemID == mail { x.itemID = String(repeating: "A", count: 65) }; return x }
            case "itemResurrected":
                r.items = r.items.map { var x = $0; if x.itemID == shop, x.envelope == nil { x.envelope = firstPulls.flatMap(\.items).last { $0.itemID == shop }?.envelope }; return x }
            case "manifestGoesBack":
                // The vault's first manifest and items, as if nothing had happened since.
                let old = firstPulls.first { !$0.manifests.isEmpty }!
                r.manifests = old.manifests.filter { $0.vaultID == personal }
                r.items = old.items.filter { $0.vaultID == personal }
            case "manifestForks":
                if let fork, let write = fork.vaults.first(where: { $0.vaultID == personal }) {
                    let base = r.manifests.first { $0.vaultID == personal }
                    r.manifests = [SyncManifestRecord(vaultID: personal, version: write.baseVersion + 1, manifest: write.manifest, meta: base?.meta ?? Data())]
                    r.items = write.items.map { SyncItemRecord(vaultID: personal, itemID: $0.itemID, revision: r.revision, envelope: $0.envelope) }
                }
            case "unknownEnvelopeVersion":
                r.items = r.items.map { var x = $0; if x.itemID == mail, var e = x.envelope { e[e.startIndex] = 2; x.envelope = e }; return x }
            case "vaultKeySwapped":
                let personalKey = r.vaults.first { $0.vaultID == personal }!.key
                r.vaults = r.vaults.map { var v = $0; if v.vaultID == work { v.key = personalKey }; return v }
            case "signatureBroken":
                r.manifests = r.manifests.map { var m = $0; var bytes = m.manifest; bytes[bytes.index(before: bytes.endIndex)] ^= 1; m.manifest = bytes; return m }
            default: break
            }
            return r
        }
        if attack == "manifestForks" {
            // b already verified the version a wrote; the server now shows it c's of the same version.
            #expect(fork != nil, "c's push was refused by the server")
        }
        #expect(throws: ProtocolError.self) { try b.sync() }
        do {
            try b.sync()
        } catch let error as ProtocolError {
            #expect(error.code == .syncRefused, "\(attack): \(error)")
            let expected: [String: Set<String>] = [
                "manifestGoesBack": ["stepBack", "malformed"], "itemTwiceInAPage": ["malformed"], "itemIDWithNUL": ["malformed"], "itemIDTooLong": ["malformed"], "manifestForks": ["fork"], "vaultKeySwapped": ["keyChanged"], "signatureBroken": ["signature"],
            ]
            #expect((expected[attack] ?? ["rootMismatch"]).contains(error.facts["reason"] ?? ""), "\(attack): \(error.facts)")
        }
        // Nothing on b changed: the same items and revision, on disk too (unlock again).
        #expect(b.vault.sync!.revision == revisionBefore)
        #expect(b.state.mapValues(\.item) == before.mapValues(\.item))
        #expect(b.service.syncStatus()?.lastFailure == "syncRefused")
        w.proxy.disarm()
        b.service.lock()
        try b.service.unlock(password: SecretText(SyncDevice.password))
        #expect(b.state.mapValues(\.item) == before.mapValues(\.item))
        if attack != "manifestForks" {
            try b.sync()
            #expect(b.state.mapValues(\.item) == a.state.mapValues(\.item), "\(attack): b syncs honestly afterwards")
        }
    }

    /// A server that changes the salt at a later sign-in is refused before anything is derived or signed: the
    /// device kept the salt beside the parameters (known-accounts.json). The hostile server answers the whole
    /// sign-in itself (challenge and sign-in accepted, with a keyset of its own), and it never hears more than
    /// the prelogin. Told to accept new parameters (after a password change elsewhere), the device goes on and
    /// still keeps nothing, since the hostile keyset does not open.
    @Test func aChangedSaltIsRefusedAtSignInBeforeDeriving() throws {
        let dir = try TemporaryDirectory("passbox-hostile-salt")
        let proxy = try MutatingProxy()
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir, extra: ["--origin", proxy.origin], port: try PostgresCluster.freePort())
        _ = server
        proxy.target = server.address
        let data = dir.path + "/device"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let email = "salt@example.org", password = SecretText(SyncDevice.password)
        let (key, _, _) = try AccountOperations.signUp(AccountSignUpRequest(server: proxy.origin, email: email, password: password), dataDirectory: data)
        #expect(try KnownAccounts.load(data).salt(server: proxy.origin, email: email)?.count == 16)
        _ = try AccountOperations.signOut(data)
        let heard = HeardPaths()
        let salty = try HTTPServer { request in
            heard.append(request.path)
            switch request.path {
            case "/v1/prelogin": return .json(200, Array(#"{"salt":"AAAAAAAAAAAAAAAAAAAAAA==","kdf":{"memoryKiB":131072,"passes":4,"lanes":1}}"#.utf8))
            case "/v1/signin/challenge": return .json(200, Array(#"{"challengeID":"c1","challenge":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}"#.utf8))
            case "/v1/signin": return .json(200, Array(#"{"token":"t","accountID":"\#(key.accountID)","keyset":"AAAA"}"#.utf8))
            default: return .json(404, Array(#"{"code":"notFound","facts":{}}"#.utf8))
            }
        }
        defer { salty.stop() }
        proxy.target = "http://127.0.0.1:\(salty.port)"
        let typedKey = SecretText(key.formatted())
        #expect(throws: ProtocolError(.serverSaltChanged, ["server": proxy.origin])) {
            try AccountOperations.signIn(AccountSignInRequest(server: proxy.origin, email: email, password: password, secretKey: typedKey), dataDirectory: data)
        }
        #expect(heard.all == ["/v1/prelogin"], "nothing was signed or sent after the prelogin: \(heard.all)")
        #expect(!FileManager.default.fileExists(atPath: data + "/account.json"))
        #expect(throws: ProtocolError.self) {
            try AccountOperations.signIn(
                AccountSignInRequest(server: proxy.origin, email: email, password: password, secretKey: typedKey, acceptNewParameters: true), dataDirectory: data)
        }
        #expect(heard.all.contains("/v1/signin"))
        #expect(!FileManager.default.fileExists(atPath: data + "/account.json"))
    }
}
