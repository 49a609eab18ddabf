import Foundation
import PassboxProtocol

/// The device's side of the sync routes: one call each, with the session token of the account record.
/// Answers are checked for shape here; what they mean is checked by the sync engine.
public struct SyncClient: Sendable {
    let account: AccountClient
    let token: String
    /// Bytes sent and received by this client's calls (bodies only), for `passbox bench sync`.
    public let traffic = Traffic()
    /// Fault injection for tests: asked after a push the server answered; true makes the client act as if
    /// the answer was lost on the way (the server did apply it).
    public var losesAnswer: (@Sendable () -> Bool)?
    /// The organisation whose shared vaults this client pulls (nil: the account's own vaults).
    public var orgID: String?

    public final class Traffic: @unchecked Sendable {
        // @unchecked: the counters are touched only under `lock`.
        private let lock = NSLock()
        private var counts = (sent: 0, received: 0)
        func add(sent: Int, received: Int) {
            lock.lock()
            counts.sent += sent
            counts.received += received
            lock.unlock()
        }
        public var sent: Int { lock.lock(); defer { lock.unlock() }; return counts.sent }
        public var received: Int { lock.lock(); defer { lock.unlock() }; return counts.received }
        public func reset() {
            lock.lock()
            counts = (0, 0)
            lock.unlock()
        }
    }

    public init(server: String, token: String) throws {
        account = try AccountClient(server: server)
        self.token = token
    }

    func exchange(_ path: String, _ body: [UInt8], timeoutSeconds: Int, limit: Int = 4 << 20) throws -> [UInt8] {
        let answer = try account.exchange("POST", path, body: body, token: token, timeoutSeconds: timeoutSeconds, limit: limit)
        traffic.add(sent: body.count, received: answer.body.count)
        guard answer.status / 100 == 2 else { throw account.failure(answer) }
        return answer.body
    }

    func decode<R: Decodable>(_ type: R.Type, _ body: [UInt8]) throws -> R {
        guard let reply = try? ProtocolCoding.wireDecode(R.self, from: Data(body)) else {
            throw ProtocolError(.badServerAnswer, ["server": origin, "status": "200"])
        }
        return reply
    }

    public var origin: String { account.origin }

    public func pull(since: Int64, skip: [Int64] = []) throws -> SyncPullReply {
        try pullPage(since: since, skip: skip).reply
    }

    /// One page of a pull, and the size of its answer's body; `until` is where the pull stops (the first
    /// page's `latest`).
    public func pullPage(since: Int64, skip: [Int64] = [], until: Int64? = nil, timeoutSeconds: Int = 60) throws -> (reply: SyncPullReply, bytes: Int) {
        let body = Array(try ProtocolCoding.wireEncode(SyncPullRequest(since: since, skip: skip.isEmpty ? nil : skip, until: until, orgID: orgID)))
        let answer = try exchange("/v1/sync/pull", body, timeoutSeconds: timeoutSeconds, limit: 64 << 20)
        return (try decode(SyncPullReply.self, answer), answer.count)
    }

    /// Sends a push as the bytes kept for it (a retry sends the same bytes).
    public func push(_ body: [UInt8]) throws -> SyncPushReply {
        let reply = try decode(SyncPushReply.self, try exchange("/v1/sync/push", body, timeoutSeconds: 60))
        if let losesAnswer, losesAnswer() { throw ProtocolError(.serverUnreachable, ["server": origin, "reason": "the answer was lost (test)"]) }
        return reply
    }

    /// Waits (up to about 20 seconds) for a revision past `since`, or a change to a shared vault (`shared`).
    public func wait(since: Int64) throws -> SyncWaitReply {
        let body = Array(try ProtocolCoding.wireEncode(SyncWaitRequest(since: since)))
        return try decode(SyncWaitReply.self, try exchange("/v1/sync/wait", body, timeoutSeconds: SyncWaitRequest.seconds + 15))
    }
}

// MARK: Blobs

extension SyncClient {
    /// One blob request: raw bytes both ways, the bearer token, no JSON.
    func blobExchange(_ method: String, _ path: String, body: [UInt8]?, headers extra: [String] = [], limit: Int) throws -> [UInt8] {
        var headers = ["User-Agent: passbox", "\(ServerAPI.header): \(ServerAPI.version)", "Authorization: Bearer \(token)"] + extra
        if body != nil { headers.append("Content-Type: application/octet-stream") }
        let answer: (status: Int, body: [UInt8])
        do {
            answer = try HTTPGet.exchange(method, origin + path, headers: headers, body: body, timeoutSeconds: 120, limit: limit)
        } catch let failure as HTTPGet.Failure {
            throw ProtocolError(.serverUnreachable, ["server": origin, "reason": failure.description])
        }
        traffic.add(sent: body?.count ?? 0, received: answer.body.count)
        guard answer.status / 100 == 2 else { throw account.failure(answer) }
        return answer.body
    }

    /// Sends a blob of `length` bytes a part at a time (`read` gives the bytes of a range), then marks it
    /// complete. Sending a blob the server has whole again costs its requests and changes nothing.
    public func uploadBlob(id: String, length: Int, read: (Range<Int>) throws -> [UInt8]) throws {
        for part in 0..<BlobTransfer.parts(length) {
            let bytes = try read(BlobTransfer.partRange(part, length: length))
            _ = try blobExchange("PUT", "/v1/blobs/\(id)/\(part)", body: bytes, headers: ["\(BlobTransfer.lengthHeader): \(length)"], limit: 64 << 10)
        }
        _ = try blobExchange("POST", "/v1/blobs/\(id)/complete", body: [], limit: 64 << 10)
    }

    /// Asks the server to remove blobs no item refers to any longer, as this device saw the account at
    /// `revision` (`syncConflict` when a push came since).
    public func removeBlobs(revision: Int64, ids: [String]) throws -> BlobRemovalReply {
        let body = Array(try ProtocolCoding.wireEncode(BlobRemovalRequest(revision: revision, ids: ids)))
        return try decode(BlobRemovalReply.self, try exchange("/v1/blobs/remove", body, timeoutSeconds: 60))
    }

    /// Fetches a blob of `length` bytes a part at a time into `write`. A part of another length than the
    /// blob's layout says is a bad answer (what it holds is checked when the blob is opened).
    public func downloadBlob(id: String, length: Int, write: ([UInt8]) throws -> Void) throws {
        for part in 0..<BlobTransfer.parts(length) {
            let expected = BlobTransfer.partRange(part, length: length).count
            let bytes = try blobExchange("GET", "/v1/blobs/\(id)/\(part)", body: nil, limit: expected)
            guard bytes.count == expected else { throw ProtocolError(.badServerAnswer, ["server": origin, "status": "200"]) }
            try write(bytes)
        }
    }
}
