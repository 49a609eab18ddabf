import Foundation
import PassboxCrypto
import PassboxProtocol
import PassboxService
import PassboxStore

/// What the agent holds of a device link between the web UI's requests (issue 33): on the old device the open
/// link and the new device that answered; on the new device its side of the exchange, the six digits and, once
/// the old device's user confirmed, the credentials until the master password is typed (at most until the
/// link's 10 minutes are up). One link at a time: a result is kept only for the link it belongs to, so a wait
/// that finishes after another link began changes nothing.
final class LinkSessions: @unchecked Sendable {
    private let lock = NSLock()
    private var offer: LinkOperations.Offer?
    private var asking: LinkOperations.Asking?
    private var joining: LinkOperations.Joining?
    private var code: String?
    private var credentials: LinkExchange.Credentials?
    private var began = Date.distantPast

    private func withLock<T>(_ body: (LinkSessions) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(self)
    }

    var currentOffer: LinkOperations.Offer? { withLock { $0.offer } }
    var currentJoining: LinkOperations.Joining? { withLock { $0.joining } }

    /// A new link on the old device; the earlier one (to cancel) is answered.
    func open(_ new: LinkOperations.Offer) -> LinkOperations.Offer? {
        withLock { s in
            let old = s.offer
            s.offer = new
            s.asking = nil
            return old
        }
    }

    /// The old device's link ends (locked, or the agent stops): answered to cancel.
    func dropOffer() -> LinkOperations.Offer? {
        withLock { s in
            defer { s.offer = nil; s.asking = nil }
            return s.offer
        }
    }

    func answered(_ a: LinkOperations.Asking, for link: LinkOperations.Offer) {
        withLock { s in if s.offer?.secret == link.secret { s.asking = a } }
    }

    /// The open link and who answered it, taken (a second confirmation finds nothing).
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
            s.began = Date()
            return old
        }
    }

    /// What the new device's link brought so far; the credentials only within the link's 10 minutes.
    func joined() -> (code: String?, credentials: LinkExchange.Credentials?) {
        withLock { s in
            if s.credentials != nil, Date().timeIntervalSince(s.began) > 600 { s.credentials = nil }
            return (s.code, s.credentials)
        }
    }

    func set(code: String, for link: LinkOperations.Joining) { withLock { s in if s.joining === link { s.code = code } } }
    func set(credentials: LinkExchange.Credentials, for link: LinkOperations.Joining) { withLock { s in if s.joining === link { s.credentials = credentials } } }

    /// Once signed in: the link's part here is over.
    func finished() { withLock { s in s.credentials = nil; s.joining = nil; s.code = nil } }
}

extension AgentDaemon {
    /// The link requests that wait on the network: off the vault queue, on the connection's thread.
    static let linkWaits: Set<OperationName> = [.linkOpen, .linkWait, .linkConfirm, .linkBegin, .linkAnswer]
    static let linkPoll: TimeInterval = 8

    /// A step on the vault queue (inline when the agent runs without one, in tests). Never called on the queue.
    func onVault<T>(_ body: () throws -> T) rethrows -> T {
        if let queue {
            dispatchPrecondition(condition: .notOnQueue(queue))
            return try queue.sync(execute: body)
        }
        return try body()
    }

    /// The old device's side needs the account's vault open (locking ends its link: `lock`).
    func requireOpenAccount() throws {
        let (unlocked, account) = onVault { (service.isUnlocked, service.store.isAccountVault) }
        guard unlocked else { throw ProtocolError(.locked) }
        guard account else { throw ProtocolError(.noAccount) }
    }

    /// Called when the vault locks: a link the old device opened ends, and nothing more can be sent on it.
    func endOpenLink() {
        if let offer = links.dropOffer() { LinkOperations.decline(offer) }
    }

    func linkOpen() throws -> LinkOfferReply {
        try requireOpenAccount()
        let offer = try LinkOperations.open(dataDirectory: dataDirectory)
        if let earlier = links.open(offer) { LinkOperations.decline(earlier) }
        let qr = LinkOperations.qr(offer)
        return LinkOfferReply(code: offer.code, uri: offer.uri, expires: offer.expires, size: qr.size, modules: qr.rows)
    }

    func linkWait() throws -> LinkStatusReply {
        try requireOpenAccount()
        guard let offer = links.currentOffer else { throw ProtocolError(.linkNotFound) }
        guard let asking = try LinkOperations.pollDevice(offer, until: Date().addingTimeInterval(Self.linkPoll)) else { return LinkStatusReply() }
        links.answered(asking, for: offer)
        return LinkStatusReply(name: asking.name, address: asking.address, code: asking.code)
    }

    func linkConfirm(_ r: LinkConfirmRequest) throws -> Done {
        try requireOpenAccount()
        guard r.yes else {
            if let (offer, _) = links.takeOffer() { LinkOperations.decline(offer) }
            return Done()
        }
        // Yes only to a device that answered this link (another tab's newer link leaves nothing to say yes to).
        guard let (offer, asking) = links.takeOffer(), let asking else { throw ProtocolError(.linkNotFound) }
        do {
            // The new device's record is signed with the account's key the open vault keeps.
            let key = try LinkOperations.signingKey(syncState: onVault { service.session?.vault.sync })
            try LinkOperations.confirm(offer, asking, signingKey: key, dataDirectory: dataDirectory)
        } catch {
            LinkOperations.decline(offer)
            throw error
        }
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
        let (code, credentials) = links.joined()
        guard let code else {
            // The digits go to the page at once: its user compares them before the old device can confirm.
            guard let answered = try joining.pollAnswer(until: until) else { return LinkStatusReply() }
            links.set(code: answered, for: joining)
            return LinkStatusReply(code: answered)
        }
        if let credentials { return LinkStatusReply(code: code, email: credentials.email, ready: true) }
        guard let received = try joining.pollCredentials(until: until) else { return LinkStatusReply(code: code) }
        links.set(credentials: received, for: joining)
        return LinkStatusReply(code: code, email: received.email, ready: true)
    }

    /// Signs in with the credentials the link brought and the master password typed here (as `account-signin`,
    /// with the second factor when the account asks for one), under the name the device gave itself.
    func linkFinish(_ r: LinkFinishRequest) throws -> Done {
        guard let joining = links.currentJoining, let credentials = links.joined().credentials else { throw ProtocolError(.linkNotFound) }
        let request = AccountSignInRequest(
            server: credentials.server, email: credentials.email, password: r.password, secretKey: SecretText(credentials.secretKey), code: r.code,
            deviceName: joining.name)
        if let key = try service.signIn(request, deviceID: joining.deviceID, attestation: credentials.attestation) { rememberTyped(key) }
        links.finished()
        return Done()
    }
}
