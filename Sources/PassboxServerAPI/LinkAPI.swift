import Foundation

// Device linking's relay (docs/PROTOCOL.md "Device linking", issue 33): the signed-in old device opens a
// link by its id, the new device (not signed in) and the old one leave one message each, and the old one the
// sealed credentials. The server relays bytes it cannot read or forge (the messages are authenticated under a
// key from the one-time secret only the two screens hold) and forgets a link once used, cancelled or 10
// minutes old.

/// `POST /v1/link/start` (signed in): opens a link. `id` is derived from the one-time secret (16 bytes,
/// base64url); the server never sees the secret.
public struct LinkStartRequest: Codable, Sendable {
    public var id: String
    public init(id: String) { self.id = id }
}

public struct LinkStartReply: Codable, Sendable, Equatable {
    public var expires: Date
    public init(expires: Date) { self.expires = expires }
}

/// `POST /v1/link/hello` (no session): the new device's first message, once per link.
/// `POST /v1/link/reply` (the old device's session): the old device's answer, once per link.
/// `POST /v1/link/seal` (the old device's session): the sealed credentials, once per link.
public struct LinkMessageRequest: Codable, Sendable {
    public var id: String
    public var message: Data
    public init(id: String, message: Data) {
        self.id = id
        self.message = message
    }
}

/// `POST /v1/link/poll`: what the other side left so far. The new device polls without a session (the id
/// is its only credential); the old device with its session. A poll that finds the sealed credentials takes
/// them and ends the link (it is used once).
public struct LinkPollRequest: Codable, Sendable {
    public var id: String
    /// "old" or "new".
    public var side: String
    public init(id: String, side: String) {
        self.id = id
        self.side = side
    }
}

public struct LinkPollReply: Codable, Sendable, Equatable {
    /// For the old device: the new device's hello, and the address the server saw it from (the server's word).
    public var hello: Data?
    public var address: String?
    /// For the new device: the old device's reply, then the sealed credentials.
    public var reply: Data?
    public var sealed: Data?
    /// "open", "cancelled", or "done" (the new device's poll took the sealed credentials; the link is gone).
    public var state: String
    public init(hello: Data? = nil, address: String? = nil, reply: Data? = nil, sealed: Data? = nil, state: String) {
        self.hello = hello
        self.address = address
        self.reply = reply
        self.sealed = sealed
        self.state = state
    }
}

/// `POST /v1/link/cancel`: either side ends the link (the old one with its session, the new one by id).
public struct LinkCancelRequest: Codable, Sendable {
    public var id: String
    public init(id: String) { self.id = id }
}
