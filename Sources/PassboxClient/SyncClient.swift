import Foundation
import PassboxProtocol

/// The device's side of the sync routes: one call each, with the session token of the account record.
/// Answers are checked for shape here; what they mean is checked by the sync engine.
public struct SyncClient: Sendable {
    let account: AccountClient
    let token: String

    public init(server: String, token: String) throws {
        account = try AccountClient(server: server)
        self.token = token
    }

    public var origin: String { account.origin }

    public func pull(since: Int64) throws -> SyncPullReply {
        try account.call("POST", "/v1/sync/pull", SyncPullRequest(since: since), token: token, as: SyncPullReply.self, timeoutSeconds: 60, limit: 64 << 20)
    }

    /// Sends a push as the bytes kept for it (a retry sends the same bytes).
    public func push(_ body: [UInt8]) throws -> SyncPushReply {
        let answer = try account.exchange("POST", "/v1/sync/push", body: body, token: token, timeoutSeconds: 60)
        guard answer.status / 100 == 2 else { throw account.failure(answer) }
        guard let reply = try? ProtocolCoding.wireDecode(SyncPushReply.self, from: Data(answer.body)) else {
            throw ProtocolError(.badServerAnswer, ["server": origin, "status": String(answer.status)])
        }
        return reply
    }

    /// Waits (up to about 20 seconds) for a revision past `since`.
    public func wait(since: Int64) throws -> Int64 {
        try account.call(
            "POST", "/v1/sync/wait", SyncWaitRequest(since: since), token: token, as: SyncWaitReply.self, timeoutSeconds: SyncWaitRequest.seconds + 15
        ).revision
    }
}
