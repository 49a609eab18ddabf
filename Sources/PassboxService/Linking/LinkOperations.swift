import Foundation
import PassboxClient
import PassboxCrypto
import PassboxCore
import PassboxKit
import PassboxManifest
import PassboxProtocol
import PassboxStore

/// Device linking's steps on each device (issue 33; `passbox link show` and `passbox link accept`). The old
/// device is signed in; it opens a link and shows its code, waits for the new device, answers it, and sends
/// the sealed credentials only once its user confirms the six-digit code both screens show. The new device
/// sends its hello, waits for the answer, shows the code, then waits for the credentials. Each wait polls
/// the relay (every 200 ms) until the link's 10 minutes are up.
public enum LinkOperations {
    static let pollInterval: UInt32 = 200_000

    /// A link the old device opened.
    public struct Offer: Sendable {
        public let secret: LinkSecret
        public let server: String
        public let email: String
        public let expires: Date
        let token: String
        public var code: String { secret.code }
        public var uri: String { secret.uri(server: server) }
    }

    /// A new device that answered: its name, where the server says it asks from, and the code its screen shows.
    public struct Asking: Sendable {
        public let name: String
        public let deviceID: String
        public let address: String?
        public let code: String
        let key: SecretBytes
        let hello: [UInt8]
        let reply: [UInt8]
    }

    /// Opens a link for this signed-in account.
    public static func open(dataDirectory: String) throws -> Offer {
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        guard let token = record.token else { throw ProtocolError(.notSignedIn) }
        let secret = LinkSecret.generate()
        let started = try client.startLink(id: secret.id, token: token)
        return Offer(secret: secret, server: record.server, email: record.email, expires: started.expires, token: token)
    }

    /// The address as a QR code's modules (`size` rows of "0"/"1"; none without libqrencode).
    public static func qr(_ offer: Offer) -> (size: Int, rows: [String]) { QRModules.encode(offer.uri) ?? (0, []) }

    /// Waits for the new device's hello; a hello that does not verify ends the link (`linkRefused`). Then
    /// answers it and says what the user is to confirm.
    public static func awaitDevice(_ offer: Offer, until: Date? = nil) throws -> Asking {
        guard let asking = try pollDevice(offer, until: min(until ?? offer.expires, offer.expires)) else {
            throw ProtocolError(Date() < offer.expires ? .requestTimeout : .linkNotFound)
        }
        return asking
    }

    /// As `awaitDevice`, but nil when `until` comes first (the web UI asks again): `linkNotFound` only once
    /// the link itself expired.
    public static func pollDevice(_ offer: Offer, until: Date) throws -> Asking? {
        let client = try AccountClient(server: offer.server)
        while true {
            let poll = try client.pollLink(id: offer.secret.id, side: "old", token: offer.token)
            if poll.state == "cancelled" { throw ProtocolError(.linkCancelled) }
            if let hello = poll.hello.map(Array.init) {
                let seen: (publicKey: [UInt8], name: String, deviceID: String)
                do { seen = try LinkExchange.readHello(hello, secret: offer.secret) } catch {
                    try? client.cancelLink(id: offer.secret.id, token: offer.token)
                    throw error
                }
                let key = try BoxKeyPair.generate()
                let reply = try LinkExchange.reply(secret: offer.secret, key: key, hello: hello)
                try client.sendLink("reply", id: offer.secret.id, message: reply, token: offer.token)
                let session = try LinkExchange.session(secret: offer.secret, own: key, peer: seen.publicKey, hello: hello, reply: reply)
                return Asking(name: seen.name, deviceID: seen.deviceID, address: poll.address, code: session.code, key: session.key, hello: hello, reply: reply)
            }
            guard Date() < offer.expires else { throw ProtocolError(.linkNotFound) }
            guard Date() < until else { return nil }
            usleep(pollInterval)
        }
    }

    /// The user said the new device shows this code: the credentials go, sealed to the session, with the new
    /// device's record signed here (`signingKey`: the account's, from the open vault or the master password).
    public static func confirm(_ offer: Offer, _ asking: Asking, signingKey: SigningKey, dataDirectory: String) throws {
        guard let record = try AccountRecord.load(dataDirectory) else { throw ProtocolError(.noAccount) }
        let attestation = DeviceAttestation.make(
            accountID: record.accountID, deviceID: asking.deviceID, name: asking.name, via: "link", approverID: record.deviceID, approverName: record.deviceName, key: signingKey)
        let sealed = try LinkExchange.seal(
            LinkExchange.Credentials(server: record.server, email: record.email, secretKey: record.secretKey, attestation: try attestation.encoded()), key: asking.key,
            hello: asking.hello, reply: asking.reply)
        try AccountClient(server: offer.server).sendLink("seal", id: offer.secret.id, message: sealed, token: offer.token)
    }

    /// The account's signing key, opened with the master password (a counted attempt, as an unlock is).
    public static func signingKey(password: SecretText, dataDirectory: String) throws -> SigningKey {
        guard let record = try AccountRecord.load(dataDirectory) else { throw ProtocolError(.noAccount) }
        return try SharingOperations.keyset(password, record: record, dataDirectory: dataDirectory).signingKey
    }

    /// The account's signing key as the open vault's sync state keeps it.
    public static func signingKey(syncState: SyncState?) throws -> SigningKey {
        guard let seed = syncState?.signSeed else { throw ProtocolError(.noAccount) }
        return try SigningKey(seed: SecretBytes(copying: seed))
    }

    /// The user said no (or gave up): the link ends, and nothing was sent.
    public static func decline(_ offer: Offer) {
        try? AccountClient(server: offer.server).cancelLink(id: offer.secret.id, token: offer.token)
    }

    /// The new device's side, from its hello to the credentials.
    public final class Joining: @unchecked Sendable {
        public let server: String
        /// The id this device signs in with (the old device signs its record for it), and the name it gave.
        public let deviceID: String
        public let name: String
        /// One poll at a time (two of the web UI's requests may ask at once).
        private let polling = NSLock()
        let secret: LinkSecret
        let key: BoxKeyPair
        let hello: [UInt8]
        let client: AccountClient
        var reply: [UInt8] = []
        var sessionKey: SecretBytes?
        /// The seal, when it came with the answer (the old device's user confirmed at once): the server hands
        /// it out once, so it is kept here.
        var early: LinkPollReply?

        /// Sends the hello with this device's name.
        public init(server: String, secret: LinkSecret, name: String) throws {
            self.server = server
            self.secret = secret
            self.name = name
            client = try AccountClient(server: server)
            key = try BoxKeyPair.generate()
            deviceID = AccountOperations.newDevice(name: name).id
            hello = try LinkExchange.hello(secret: secret, key: key, name: name, deviceID: deviceID)
            do {
                try client.sendLink("hello", id: secret.id, message: hello)
            } catch let error as ProtocolError where error.code == .linkNotFound {
                // Another device answered this code first (or it is used or expired): the link ends, so the old
                // device does not go on with whoever that was.
                try? client.cancelLink(id: secret.id)
                throw error
            }
        }

        /// Waits for the old device's answer; answers the code this screen shows.
        public func awaitAnswer(until: Date) throws -> String {
            guard let code = try pollAnswer(until: until) else { throw ProtocolError(.requestTimeout) }
            return code
        }

        /// As `awaitAnswer`, but nil when `until` comes first.
        public func pollAnswer(until: Date) throws -> String? {
            polling.lock()
            defer { polling.unlock() }
            if sessionKey != nil, !reply.isEmpty { return try LinkExchange.session(secret: secret, own: key, peer: Array(reply[1..<33]), hello: hello, reply: reply).code }
            while true {
                let poll = try client.pollLink(id: secret.id, side: "new")
                if poll.state == "cancelled" { throw ProtocolError(.linkCancelled) }
                if let message = poll.reply.map(Array.init) {
                    let peer = try LinkExchange.readReply(message, secret: secret, hello: hello)
                    reply = message
                    let session = try LinkExchange.session(secret: secret, own: key, peer: peer, hello: hello, reply: message)
                    sessionKey = session.key
                    if poll.sealed != nil { early = poll }
                    return session.code
                }
                guard Date() < until else { return nil }
                usleep(LinkOperations.pollInterval)
            }
        }

        /// Waits for the sealed credentials (the old device's user confirms the code first).
        public func awaitCredentials(until: Date) throws -> LinkExchange.Credentials {
            guard let credentials = try pollCredentials(until: until) else { throw ProtocolError(.requestTimeout) }
            return credentials
        }

        /// As `awaitCredentials`, but nil when `until` comes first.
        public func pollCredentials(until: Date) throws -> LinkExchange.Credentials? {
            polling.lock()
            defer { polling.unlock() }
            guard let sessionKey else { throw ProtocolError(.badRequest, ["reason": "no answer yet"]) }
            while true {
                let poll = try early ?? client.pollLink(id: secret.id, side: "new")
                early = nil
                if poll.state == "cancelled" { throw ProtocolError(.linkCancelled) }
                if let sealed = poll.sealed.map(Array.init) {
                    // The reply the seal came with must be the one this device verified.
                    guard poll.reply.map(Array.init) == reply else { throw ProtocolError(.linkRefused, ["side": "old"]) }
                    let credentials = try LinkExchange.open(sealed, key: sessionKey, hello: hello, reply: reply)
                    guard SignInTranscript.normalizedOrigin(credentials.server) == SignInTranscript.normalizedOrigin(server) else {
                        throw ProtocolError(.linkInvalid, ["problem": "server"])
                    }
                    return credentials
                }
                guard Date() < until else { return nil }
                usleep(LinkOperations.pollInterval)
            }
        }

        /// This side gives up: the link ends.
        public func cancel() { try? client.cancelLink(id: secret.id) }
    }
}
