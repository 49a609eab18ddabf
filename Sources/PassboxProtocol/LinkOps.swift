import Foundation

// Device linking through the agent (docs/PROTOCOL.md "Device linking", issue 33), generation 15: what the web
// UI's "Sign in on another device" (the old device) and "Use a code from another device" (the new one) ask.

/// `link-begin` (the new device): the server and the code, or a passbox-link: address (or a text holding one).
public struct LinkBeginRequest: Codable, Sendable {
    public var server: String?
    public var text: String
    /// The name this device gives itself (the old device shows it); the host's name by default.
    public var name: String?
    public init(server: String? = nil, text: String, name: String? = nil) {
        self.server = server
        self.text = text
        self.name = name
    }
}

/// `link-confirm` (the old device): whether the user said the new device is theirs and shows the same code.
public struct LinkConfirmRequest: Codable, Sendable {
    public var yes: Bool
    public init(yes: Bool) { self.yes = yes }
}

/// `link-finish` (the new device): the master password, typed there (it never travels between the devices).
public struct LinkFinishRequest: Codable, Sendable {
    public var password: SecretText
    /// The second factor's code, when the account asks for one (`twoFactorRequired`).
    public var code: SecretText?
    public init(password: SecretText, code: SecretText? = nil) {
        self.password = password
        self.code = code
    }
}

extension LinkBeginRequest: RequestBody {}
extension LinkConfirmRequest: RequestBody {}
extension LinkFinishRequest: RequestBody {
    public var carriesSecrets: Bool { true }
}

/// `link-open`: the code to type, the address, and its QR code (`size` rows of "0"/"1"; size 0 without
/// libqrencode).
public struct LinkOfferReply: Codable, Sendable, Equatable {
    public var code: String
    public var uri: String
    public var expires: Date
    public var size: Int
    public var modules: [String]
    public init(code: String, uri: String, expires: Date, size: Int, modules: [String]) {
        self.code = code
        self.uri = uri
        self.expires = expires
        self.size = size
        self.modules = modules
    }
}

/// `link-wait` and `link-answer`: how far the link got. Old device: the new device's name, the address the
/// server says it asks from, and the six digits (nil while it has not answered). New device: the six digits
/// once the old device answered, and `ready` with the account's email once the credentials arrived.
public struct LinkStatusReply: Codable, Sendable, Equatable {
    public var name: String?
    public var address: String?
    public var code: String?
    public var email: String?
    public var ready: Bool
    public init(name: String? = nil, address: String? = nil, code: String? = nil, email: String? = nil, ready: Bool = false) {
        self.name = name
        self.address = address
        self.code = code
        self.email = email
        self.ready = ready
    }
}

extension LinkOfferReply: ReplyBody {
    public var reply: Reply { .linkOffer(self) }
    public static func from(_ reply: Reply) -> LinkOfferReply? { if case .linkOffer(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.linkOffer] }
}
extension LinkStatusReply: ReplyBody {
    public var reply: Reply { .linkStatus(self) }
    public static func from(_ reply: Reply) -> LinkStatusReply? { if case .linkStatus(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.linkStatus] }
}

extension Operations {
    // Device linking (docs/PROTOCOL.md, "Device linking"), generation 15: the old device's three, then the new
    // device's three; the waits are off the agent's queue, each at most 8 seconds (the page asks again).
    public static let linkOpen = Operation<NoBody, LinkOfferReply>(
        .linkOpen, since: 15, vault: true,
        request: #"—"#,
        reply: #"`linkOffer`: code (six groups of four), uri (passbox-link:v1?server=…&id=…&k=…), expires (10 minutes), size and modules (its QR code); an earlier open link of this agent is cancelled; `noAccount`"#)
    public static let linkWait = Operation<NoBody, LinkStatusReply>(
        .linkWait, since: 15, vault: true,
        request: #"—"#,
        reply: #"`linkStatus`: name, address (the server's word) and code once the new device's hello verified and was answered; all absent after 8 s without one; `linkRefused` (a hello that does not verify: the link ends), `linkNotFound` (expired or none open), `linkCancelled`"#)
    public static let linkConfirm = Operation<LinkConfirmRequest, Done>(
        .linkConfirm, since: 15, vault: true,
        request: #"yes (the user said it is their device and it shows the same code)"#,
        reply: #"`done`: with yes the email, server and Secret Key (and the new device's record, signed) were sealed to the device that answered this link and sent; without, the link was cancelled and nothing sent; `linkNotFound` when no device answered the open link (nothing is cancelled then), `locked`"#)
    public static let linkBegin = Operation<LinkBeginRequest, Done>(
        .linkBegin, since: 15, vault: false,
        request: #"server? (with a typed code), text (the code, or a passbox-link: address or a text holding one), name?"#,
        reply: #"`done`: the hello was sent; `linkInvalid` {problem}, `linkNotFound`, `vaultExists` / `alreadySignedIn` (this data directory has a vault or an account)"#)
    public static let linkAnswer = Operation<NoBody, LinkStatusReply>(
        .linkAnswer, since: 15, vault: false,
        request: #"—"#,
        reply: #"`linkStatus`: code once the old device answered (the same six digits as there), then ready with email once its user confirmed and the credentials opened; waits up to 8 s for the next step; `linkRefused`, `linkCancelled`, `linkNotFound`"#)
    public static let linkFinish = Operation<LinkFinishRequest, Done>(
        .linkFinish, since: 15, vault: false,
        request: #"password (secret: the master password, typed on this device), code? (secret: the second factor, after `twoFactorRequired`)"#,
        reply: #"`done`: signed in with the received email, server and Secret Key under the name given at `link-begin`, the record the old device signed uploaded; the account's vault is open (as `account-signin`); its failures; `linkNotFound` when nothing was received (or it is older than 10 minutes)"#)
}
