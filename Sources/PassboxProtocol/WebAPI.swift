import Foundation

// Requests and replies the web UI adds: a vault made from the browser, and the one-time address that opens it.

/// Creates the local vault with `password` (the onboarding screen; the command line has `passbox init`).
public struct CreateVaultRequest: Codable, Sendable {
    public var password: SecretText
    public init(password: SecretText) { self.password = password }
}

/// The address that opens the web UI once: `url` holds a one-time token that the agent turns into a session
/// cookie. `opener` is a 0600 file in the agent's own directory that forwards to `url`, for `xdg-open`: the
/// token never goes into a program's arguments.
public struct WebOpenReply: Codable, Sendable, Equatable {
    public var url: String
    public var opener: String
    /// The address without the token (what `make run` and `passbox status` may print).
    public var origin: String
    public init(url: String, opener: String, origin: String) {
        self.url = url
        self.opener = opener
        self.origin = origin
    }
}

/// A PNG or JPEG image (base64) whose QR codes the agent reads (a one-time-password setup from a screenshot).
public struct ReadQRRequest: Codable, Sendable {
    public var image: String
    public init(image: String) { self.image = image }
}
