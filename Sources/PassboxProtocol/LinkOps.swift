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
