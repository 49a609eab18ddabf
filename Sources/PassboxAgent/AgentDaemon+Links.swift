import Foundation
import PassboxCrypto
import PassboxProtocol
import PassboxService
import PassboxStore

/// What the agent holds of a device link between the web UI's requests (issue 33): on the old device the open
/// link and the new device that answered; on the new device its side of the exchange, the six digits and, once
/// the old device's user confirmed, the credentials until the master password is typed. One link at a time.
final class LinkSessions: @unchecked Sendable {
    private let lock = NSLock()
    private var offer: LinkOperations.Offer?
    private var asking: LinkOperations.Asking?
    private var joining: LinkOperations.Joining?
    private var code: String?
    private var credentials: LinkExchange.Credentials?

    func withLock<T>(_ body: (LinkSessions) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(self)
    }

    var currentOffer: LinkOperations.Offer? { withLock { $0.offer } }
    var currentJoining: LinkOperations.Joining? { withLock { $0.joining } }

    func open(_ new: LinkOperations.Offer) -> LinkOperations.Offer? {
        withLock { s in
            let old = s.offer
            s.offer = new
            s.asking = nil
            return old
        }
    }

    func answered(_ a: LinkOperations.Asking) { withLock { $0.asking = a } }

    func takeOffer() -> (LinkOperations.Offer, LinkOperations.Asking?)? {
        withLock { s in
            defer { s.offer = nil; s.asking = nil }
            return s.offer.map { ($0, s.asking) }
        }
    }

    func begin(_ j: LinkOperations.Joining) -> LinkOperations.Joining? {
        withLock { s in
            let old = s.joining
            s.joining = j
            s.code = nil
            s.credentials = nil
            return old
        }
    }

    func joined() -> (code: String?, credentials: LinkExchange.Credentials?) { withLock { ($0.code, $0.credentials) } }
    func set(code: String) { withLock { $0.code = code } }
    func set(credentials: LinkExchange.Credentials) { withLock { $0.credentials = credentials } }

    /// Once signed in: the link's part here is over.
    func finished() { withLock { s in s.credentials = nil; s.joining = nil; s.code = nil } }
}

extension AgentDaemon {
    /// The link requests that wait on the network: off the vault queue, on the connection's thread.
    static let linkWaits: Set<OperationName> = [.linkOpen, .linkWait, .linkConfirm, .linkBegin, .linkAnswer]
    static let linkPoll: TimeInterval = 8

    /// A step on the vault queue (inline when the agent runs without one, in tests).
    func onVault<T>(_ body: () throws -> T) rethrows -> T {
        if let queue { return try queue.sync(execute: body) }
        return try body()
    }

    func linkOpen() throws -> LinkOfferReply {
        let (unlocked, account) = onVault { (service.isUnlocked, service.store.isAccountVault) }
        guard unlocked else { throw ProtocolError(.locked) }
        guard account else { throw ProtocolError(.noAccount) }
        let offer = try LinkOperations.open(dataDirectory: dataDirectory)
        if let earlier = links.open(offer) { LinkOperations.decline(earlier) }
        let qr = LinkOperations.qr(offer)
        return LinkOfferReply(code: offer.code, uri: offer.uri, expires: offer.expires, size: qr.size, modules: qr.rows)
    }

    func linkWait() throws -> LinkStatusReply {
        guard let offer = links.currentOffer else { throw ProtocolError(.linkNotFound) }
        guard let asking = try LinkOperations.pollDevice(offer, until: Date().addingTimeInterval(Self.linkPoll)) else { return LinkStatusReply() }
        links.answered(asking)
        return LinkStatusReply(name: asking.name, address: asking.address, code: asking.code)
    }

    func linkConfirm(_ r: LinkConfirmRequest) throws -> Done {
        guard let (offer, asking) = links.takeOffer() else { throw ProtocolError(.linkNotFound) }
        guard r.yes, let asking else {
            LinkOperations.decline(offer)
            return Done()
        }
        // The new device's record is signed with the account's key the open vault keeps.
        let key: SigningKey
        do { key = try LinkOperations.signingKey(syncState: onVault { service.session?.vault.sync }) } catch {
            LinkOperations.decline(offer)
            throw error
        }
        try LinkOperations.confirm(offer, asking, signingKey: key, dataDirectory: dataDirectory)
        return Done()
    }

    func linkBegin(_ r: LinkBeginRequest) throws -> Done {
        if let record = try AccountRecord.load(dataDirectory) { throw ProtocolError(.alreadySignedIn, ["email": record.email, "server": record.server]) }
        guard !onVault({ service.store.exists }) else { throw ProtocolError(.vaultExists) }
        let server: String
        let secret: LinkSecret
        if r.text.contains("passbox-link:") {
            (server, secret) = try LinkSecret.parse(uri: r.text)
        } else {
            guard let given = r.server, !given.isEmpty else { throw ProtocolError(.linkInvalid, ["problem": "server"]) }
            (server, secret) = (given, try LinkSecret(code: r.text))
        }
        let name = r.name.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 } ?? ProcessInfo.processInfo.hostName
        let joining = try LinkOperations.Joining(server: server, secret: secret, name: name)
        links.begin(joining)?.cancel()
        return Done()
    }

    func linkAnswer() throws -> LinkStatusReply {
        guard let joining = links.currentJoining else { throw ProtocolError(.linkNotFound) }
        let until = Date().addingTimeInterval(Self.linkPoll)
        var (code, credentials) = links.joined()
        if code == nil {
            // The digits go to the page at once: its user compares them before the old device can confirm.
            guard let answered = try joining.pollAnswer(until: until) else { return LinkStatusReply() }
            links.set(code: answered)
            return LinkStatusReply(code: answered)
        }
        if credentials == nil, let received = try joining.pollCredentials(until: until) {
            credentials = received
            links.set(credentials: received)
        }
        return LinkStatusReply(code: code, email: credentials?.email, ready: credentials != nil)
    }

    /// Signs in with the credentials the link brought and the master password typed here (as `account-signin`).
    func linkFinish(_ r: LinkFinishRequest) throws -> Done {
        // Kept until the sign-in worked: a mistyped master password can be typed again.
        guard let credentials = links.joined().credentials, let deviceID = links.currentJoining?.deviceID else { throw ProtocolError(.linkNotFound) }
        let name = ProcessInfo.processInfo.hostName
        let request = AccountSignInRequest(server: credentials.server, email: credentials.email, password: r.password, secretKey: SecretText(credentials.secretKey), deviceName: name)
        if let key = try service.signIn(request, deviceID: deviceID, attestation: credentials.attestation) { rememberTyped(key) }
        links.finished()
        return Done()
    }
}
