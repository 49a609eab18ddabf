import Foundation

// Passkeys through the browser extension (issue 35; docs/PROTOCOL.md "Passkeys"), generation 18. The
// extension asks first whether the vault holds a passkey for the page's relying party; only then does it
// offer Passbox, and every signature follows a gesture in the extension's own UI. The agent checks the
// relying party against the tab's origin (the browser's word) before it answers anything.

/// A passkey as lists and details show it: never its private key.
public struct PasskeyView: Codable, Sendable, Equatable {
    /// The credential id, base64url.
    public var credential: String
    public var rp: String
    public var userName: String
    public var displayName: String
    public var created: Date
    public var lastUsed: Date?
    public var signCount: Int
    public init(credential: String, rp: String, userName: String, displayName: String, created: Date, lastUsed: Date?, signCount: Int) {
        self.credential = credential
        self.rp = rp
        self.userName = userName
        self.displayName = displayName
        self.created = created
        self.lastUsed = lastUsed
        self.signCount = signCount
    }
}

public struct BrowserPasskeysRequest: BrowserScoped, Codable, Sendable {
    public var session: String?
    /// The browser's word for the frame's or tab's address (never the page's).
    public var url: String
    /// The relying party id the page asked for (absent: the origin's host).
    public var rp: String?
    /// The credential ids (base64url) the page allows; absent or empty: any of this relying party.
    public var allow: [String]?
    public init(url: String, rp: String? = nil, allow: [String]? = nil, session: String? = nil) {
        self.url = url
        self.rp = rp
        self.allow = allow
        self.session = session
    }
}

public struct PasskeyCandidate: Codable, Sendable, Equatable {
    public var item: String
    public var title: String
    public var credential: String
    public var userName: String
    public var displayName: String
    public init(item: String, title: String, credential: String, userName: String, displayName: String) {
        self.item = item
        self.title = title
        self.credential = credential
        self.userName = userName
        self.displayName = displayName
    }
}

/// `passkeys`: the relying party as checked, the origin, and the vault's passkeys for it (none: the call goes
/// to the browser untouched).
public struct PasskeysReply: Codable, Sendable, Equatable, ReplyBody {
    public var rp: String
    public var origin: String
    public var passkeys: [PasskeyCandidate]
    public init(rp: String, origin: String, passkeys: [PasskeyCandidate]) {
        self.rp = rp
        self.origin = origin
        self.passkeys = passkeys
    }
    public var reply: Reply { .passkeys(self) }
    public static func from(_ reply: Reply) -> PasskeysReply? { if case .passkeys(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.passkeys] }
}

public struct BrowserPasskeySignRequest: BrowserScoped, Codable, Sendable {
    public var session: String?
    public var url: String
    public var rp: String?
    public var item: String
    public var credential: String
    /// The client data JSON the extension made (base64url): type `webauthn.get`, the page's challenge, and the
    /// origin, which must be the tab's.
    public var clientData: String
    public init(url: String, rp: String?, item: String, credential: String, clientData: String, session: String? = nil) {
        self.url = url
        self.rp = rp
        self.item = item
        self.credential = credential
        self.clientData = clientData
        self.session = session
    }
}

/// `passkeySigned`: the assertion's parts, base64url.
public struct PasskeySignedReply: Codable, Sendable, Equatable, ReplyBody {
    public var item: String
    public var credential: String
    public var authenticatorData: String
    public var signature: String
    public var userHandle: String
    public init(item: String, credential: String, authenticatorData: String, signature: String, userHandle: String) {
        self.item = item
        self.credential = credential
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }
    public var reply: Reply { .passkeySigned(self) }
    public static func from(_ reply: Reply) -> PasskeySignedReply? { if case .passkeySigned(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.passkeySigned] }
}

public struct BrowserPasskeyCreateRequest: BrowserScoped, Codable, Sendable {
    public var session: String?
    public var url: String
    public var rp: String?
    /// The user handle (base64url, 1 to 64 bytes) and names the page gave.
    public var userHandle: String
    public var userName: String
    public var displayName: String
    /// The COSE algorithms the page accepts, in its order (Passbox makes ES256, -7).
    public var algorithms: [Int]
    /// Credential ids the page already knows for this user (base64url): none of them may be here.
    public var exclude: [String]?
    public init(url: String, rp: String?, userHandle: String, userName: String, displayName: String, algorithms: [Int], exclude: [String]? = nil, session: String? = nil) {
        self.url = url
        self.rp = rp
        self.userHandle = userHandle
        self.userName = userName
        self.displayName = displayName
        self.algorithms = algorithms
        self.exclude = exclude
        self.session = session
    }
}

/// `passkeyCreated`: the item that holds the new passkey (a login of the site with that user name, or a new
/// one) and the registration's parts, base64url: the authenticator data, the attestation object ("none") and
/// the public key (SubjectPublicKeyInfo DER), with its COSE algorithm.
public struct PasskeyCreatedReply: Codable, Sendable, Equatable, ReplyBody {
    public var item: String
    public var title: String
    public var newItem: Bool
    public var credential: String
    public var authenticatorData: String
    public var attestationObject: String
    public var publicKey: String
    public var algorithm: Int
    public init(item: String, title: String, newItem: Bool, credential: String, authenticatorData: String, attestationObject: String, publicKey: String, algorithm: Int) {
        self.item = item
        self.title = title
        self.newItem = newItem
        self.credential = credential
        self.authenticatorData = authenticatorData
        self.attestationObject = attestationObject
        self.publicKey = publicKey
        self.algorithm = algorithm
    }
    public var reply: Reply { .passkeyCreated(self) }
    public static func from(_ reply: Reply) -> PasskeyCreatedReply? { if case .passkeyCreated(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.passkeyCreated] }
}
