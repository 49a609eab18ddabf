import Foundation

// The browser extension's operations (docs/PROTOCOL.md, "The browser extension"): pairing by a code, a
// signed challenge at every session, then candidates without secrets and one login's values per fill.

/// A browser request made after the handshake: the host adds the session the agent gave it (the extension
/// never sees it); the agent refuses one whose session ended (its pairing was removed).
public protocol BrowserScoped: RequestBody {
    var session: String? { get set }
}

public struct BrowserPairBeginRequest: Codable, Sendable {
    /// The extension's Ed25519 public key, base64url.
    public var publicKey: String
    /// chromium, chrome, firefox.
    public var browser: String
    public var name: String
    public init(publicKey: String, browser: String, name: String) {
        self.publicKey = publicKey
        self.browser = browser
        self.name = name
    }
}

public struct BrowserPairConfirmRequest: Codable, Sendable {
    public var pairing: String
    /// The six digits the user confirmed (spaces allowed).
    public var code: String
    public init(pairing: String, code: String) {
        self.pairing = pairing
        self.code = code
    }
}

public struct BrowserRemoveRequest: Codable, Sendable {
    public var pairing: String
    public init(pairing: String) { self.pairing = pairing }
}

public struct BrowserProveRequest: Codable, Sendable {
    public var publicKey: String
    public var challenge: String
    public var signature: String
    public init(publicKey: String, challenge: String, signature: String) {
        self.publicKey = publicKey
        self.challenge = challenge
        self.signature = signature
    }
}

public struct BrowserCandidatesRequest: BrowserScoped, Codable, Sendable {
    public var session: String?
    /// The browser's word for the frame or tab (`sender.url`, `tab.url`).
    public var url: String
    public init(url: String, session: String? = nil) {
        self.url = url
        self.session = session
    }
}

public struct BrowserFillRequest: BrowserScoped, Codable, Sendable {
    public var session: String?
    public var url: String
    public var item: String
    public var confirmOtherSite: Bool
    /// Only the one-time code.
    public var code: Bool
    public init(url: String, item: String, confirmOtherSite: Bool = false, code: Bool = false, session: String? = nil) {
        self.url = url
        self.item = item
        self.confirmOtherSite = confirmOtherSite
        self.code = code
        self.session = session
    }
    enum CodingKeys: String, CodingKey { case session, url, item, confirmOtherSite, code }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        session = try c.decodeIfPresent(String.self, forKey: .session)
        url = try c.decode(String.self, forKey: .url)
        item = try c.decode(String.self, forKey: .item)
        confirmOtherSite = try c.decodeIfPresent(Bool.self, forKey: .confirmOtherSite) ?? false
        code = try c.decodeIfPresent(Bool.self, forKey: .code) ?? false
    }
}

public struct BrowserSearchRequest: BrowserScoped, Codable, Sendable {
    public var session: String?
    public var query: String
    public init(query: String, session: String? = nil) {
        self.query = query
        self.session = session
    }
}

/// A login the user submitted on a page: offered for saving (`browser-offer`) or saved (`browser-save`).
public struct BrowserLoginRequest: BrowserScoped, Codable, Sendable {
    public var session: String?
    public var url: String
    public var username: String
    public var password: SecretText
    /// `browser-save`: update this login's password (absent: a new login).
    public var item: String?
    public var title: String?
    public init(url: String, username: String, password: SecretText, item: String? = nil, title: String? = nil, session: String? = nil) {
        self.url = url
        self.username = username
        self.password = password
        self.item = item
        self.title = title
        self.session = session
    }
}

public struct BrowserGenerateRequest: BrowserScoped, Codable, Sendable {
    public var session: String?
    public init(session: String? = nil) { self.session = session }
}

/// Whether a session still stands: the host asks before it relays an operation that carries none (status,
/// unlock, quick-unlock, lock), so a removed pairing gets nothing at all.
public struct BrowserSessionRequest: BrowserScoped, Codable, Sendable {
    public var session: String?
    public init(session: String? = nil) { self.session = session }
}

extension BrowserPairBeginRequest: RequestBody {}
extension BrowserPairConfirmRequest: RequestBody {}
extension BrowserRemoveRequest: RequestBody {}
extension BrowserProveRequest: RequestBody {}
extension BrowserCandidatesRequest: RequestBody {}
extension BrowserFillRequest: RequestBody {}
extension BrowserSearchRequest: RequestBody {}
extension BrowserLoginRequest: RequestBody {
    public var carriesSecrets: Bool { true }
}
extension BrowserGenerateRequest: RequestBody {}
extension BrowserSessionRequest: RequestBody {}

// MARK: - Replies

public struct BrowserPairingReply: Codable, Sendable, Equatable {
    public var pairing: String
    /// 32 random bytes, base64url: the agent's part of the code.
    public var agentNonce: String
    public var expiresInSeconds: Int
    public init(pairing: String, agentNonce: String, expiresInSeconds: Int) {
        self.pairing = pairing
        self.agentNonce = agentNonce
        self.expiresInSeconds = expiresInSeconds
    }
}

public struct BrowserChallengeReply: Codable, Sendable, Equatable {
    public var challenge: String
    public init(challenge: String) { self.challenge = challenge }
}

public struct BrowserSessionReply: Codable, Sendable, Equatable {
    public var pairing: String
    public var name: String
    /// For the host only (it removes it before the extension sees the answer).
    public var session: String?
    public init(pairing: String, name: String, session: String?) {
        self.pairing = pairing
        self.name = name
        self.session = session
    }
}

public struct BrowserFillReply: Codable, Sendable, Equatable {
    public var itemID: String
    public var title: String
    public var username: String?
    public var password: String?
    public var code: String?
    /// The login has a one-time code (`code` true fetches it).
    public var hasCode: Bool
    public init(itemID: String, title: String, username: String?, password: String?, code: String?, hasCode: Bool) {
        self.itemID = itemID
        self.title = title
        self.username = username
        self.password = password
        self.code = code
        self.hasCode = hasCode
    }
}

public struct BrowserOfferReply: Codable, Sendable, Equatable {
    /// save, update, none.
    public var action: String
    public var item: String?
    public var title: String?
    public init(action: String, item: String? = nil, title: String? = nil) {
        self.action = action
        self.item = item
        self.title = title
    }
}

public struct BrowserPendingView: Codable, Sendable, Equatable {
    public var pairing: String
    public var browser: String
    public var name: String
    /// Six digits, `123 456`.
    public var code: String
    public var expiresInSeconds: Int
    public init(pairing: String, browser: String, name: String, code: String, expiresInSeconds: Int) {
        self.pairing = pairing
        self.browser = browser
        self.name = name
        self.code = code
        self.expiresInSeconds = expiresInSeconds
    }
}

public struct BrowserPairedView: Codable, Sendable, Equatable {
    public var pairing: String
    public var browser: String
    public var name: String
    public var pairedAt: Date
    public var lastUsed: Date?
    public init(pairing: String, browser: String, name: String, pairedAt: Date, lastUsed: Date?) {
        self.pairing = pairing
        self.browser = browser
        self.name = name
        self.pairedAt = pairedAt
        self.lastUsed = lastUsed
    }
}

public struct BrowserPairingsReply: Codable, Sendable, Equatable {
    public var pending: [BrowserPendingView]
    public var paired: [BrowserPairedView]
    public init(pending: [BrowserPendingView], paired: [BrowserPairedView]) {
        self.pending = pending
        self.paired = paired
    }
}

extension BrowserPairingReply: ReplyBody {
    public var reply: Reply { .browserPairing(self) }
    public static func from(_ reply: Reply) -> BrowserPairingReply? { if case .browserPairing(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.browserPairing] }
}
extension BrowserChallengeReply: ReplyBody {
    public var reply: Reply { .browserChallenge(self) }
    public static func from(_ reply: Reply) -> BrowserChallengeReply? { if case .browserChallenge(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.browserChallenge] }
}
extension BrowserSessionReply: ReplyBody {
    public var reply: Reply { .browserSession(self) }
    public static func from(_ reply: Reply) -> BrowserSessionReply? { if case .browserSession(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.browserSession] }
}
extension BrowserFillReply: ReplyBody {
    public var reply: Reply { .browserFill(self) }
    public static func from(_ reply: Reply) -> BrowserFillReply? { if case .browserFill(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.browserFill] }
}
extension BrowserOfferReply: ReplyBody {
    public var reply: Reply { .browserOffer(self) }
    public static func from(_ reply: Reply) -> BrowserOfferReply? { if case .browserOffer(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.browserOffer] }
}
extension BrowserPairingsReply: ReplyBody {
    public var reply: Reply { .browserPairings(self) }
    public static func from(_ reply: Reply) -> BrowserPairingsReply? { if case .browserPairings(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.browserPairings] }
}

// MARK: - The pairing's arithmetic, shared by the agent and the tests (the extension does the same in JS)

public enum BrowserPairingCode {
    public static let pairingLabel = Array("passbox browser pairing v1".utf8) + [0]
    public static let sessionLabel = Array("passbox browser session v1".utf8) + [0]

    /// Six digits from the first four bytes of `digest` (SHA-256 of the label, the key and the nonce), `123 456`.
    public static func code(fromDigest digest: [UInt8]) -> String {
        let value = digest.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } % 1_000_000
        let digits = String(value).count < 6 ? String(repeating: "0", count: 6 - String(value).count) + String(value) : String(value)
        return String(digits.prefix(3)) + " " + String(digits.suffix(3))
    }

    /// What the pairing digest is computed over.
    public static func pairingMessage(publicKey: [UInt8], agentNonce: [UInt8]) -> [UInt8] { pairingLabel + publicKey + agentNonce }

    /// What the extension signs at each session.
    public static func sessionMessage(challenge: [UInt8]) -> [UInt8] { sessionLabel + challenge }
}

/// base64url without padding, as WebCrypto's keys and signatures travel.
public enum Base64URL {
    public static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public static func decode(_ text: String) -> [UInt8]? {
        guard text.utf8.count <= 1024, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s).map(Array.init)
    }
}
