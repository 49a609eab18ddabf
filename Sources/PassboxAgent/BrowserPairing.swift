import Foundation
import PassboxCrypto
import PassboxProtocol
import PassboxStore

/// What the agent keeps of the browser extension: the pairings waiting for the user (in memory, 10
/// minutes), the challenges it handed out (single use, 60 s), the sessions of extensions that proved their
/// key (kept as SHA-256 digests), and the pinned keys (`PairedBrowsers`, on disk). Used on the agent's queue.
final class BrowserPairing {
    struct Pending {
        let id: String
        let publicKey: String
        let browser: String
        let name: String
        let code: String
        let expires: Date
    }

    static let pairingSeconds = 600
    static let challengeSeconds = 60.0
    static let browsers: Set<String> = ["chromium", "chrome", "firefox"]

    let directory: String
    let now: () -> Date
    private(set) var pending = [Pending]()
    private var challenges = [(challenge: [UInt8], expires: Date)]()
    /// Session digest (hex) → pairing id.
    private var sessions = [String: String]()
    private var sessionOrder = [String]()

    init(directory: String, now: @escaping () -> Date = Date.init) {
        self.directory = directory
        self.now = now
    }

    /// The file's identity when it was last read (device, inode, size, modification time) and what it held:
    /// every request of a session checks its pairing, and the file is read again only when it was replaced.
    private var kept: (stamp: [Int], file: PairedBrowsers)?

    private func stamp() -> [Int] {
        var info = stat()
        guard stat(directory + "/" + PairedBrowsers.fileName, &info) == 0 else { return [] }
        return [Int(info.st_dev), Int(info.st_ino), Int(info.st_size), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec)]
    }

    private func pinned() throws -> PairedBrowsers {
        let now = stamp()
        if let kept, kept.stamp == now, !now.isEmpty { return kept.file }
        do {
            let file = try PairedBrowsers.load(directory)
            kept = (now, file)
            return file
        } catch let e as PairedBrowsers.Damaged {
            kept = nil
            throw ProtocolError(.browsersFileDamaged, ["path": e.path])
        }
    }

    private func prune() {
        let at = now()
        pending.removeAll { $0.expires <= at }
        challenges.removeAll { $0.expires <= at }
    }

    static func publicKey(_ text: String) throws -> [UInt8] {
        guard let key = Base64URL.decode(text), key.count == 32 else { throw ProtocolError(.badRequest, ["reason": "publicKey is not 32 bytes of base64url"]) }
        return key
    }

    func begin(_ r: BrowserPairBeginRequest) throws -> BrowserPairingReply {
        prune()
        let key = try Self.publicKey(r.publicKey)
        guard Self.browsers.contains(r.browser) else { throw ProtocolError(.badRequest, ["reason": "browser is one of chromium, chrome, firefox"]) }
        // A name is shown to the user at the vault: printable characters only, at most 100.
        let name = String(String.UnicodeScalarView(r.name.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }).prefix(100))
        let nonce = SecureRandom.bytes(count: 32)
        let code = BrowserPairingCode.code(fromDigest: Hash.sha256(BrowserPairingCode.pairingMessage(publicKey: key, agentNonce: nonce)))
        // A burst of requests must not push out the one the user is confirming: the ninth waits its turn.
        guard pending.count < 8 else { throw ProtocolError(.pairingsWaiting, ["count": String(pending.count)]) }
        let id = Base16.encode(SecureRandom.bytes(count: 8))
        pending.append(Pending(id: id, publicKey: Base64URL.encode(key), browser: r.browser, name: name.isEmpty ? r.browser : name, code: code, expires: now().addingTimeInterval(Double(Self.pairingSeconds))))
        return BrowserPairingReply(pairing: id, agentNonce: Base64URL.encode(nonce), expiresInSeconds: Self.pairingSeconds)
    }

    /// Pins the pairing's key when `code` is its code. A wrong code ends the pairing: one try, so a program
    /// racing the user cannot guess.
    func confirm(_ r: BrowserPairConfirmRequest) throws {
        prune()
        guard let index = pending.firstIndex(where: { $0.id == r.pairing }) else { throw ProtocolError(.pairingNotFound, ["pairing": String(r.pairing.prefix(40))]) }
        let wanted = Array(pending[index].code.filter(\.isNumber).utf8)
        let typed = Array(r.code.filter(\.isNumber).utf8)
        let request = pending.remove(at: index)
        guard typed.count == wanted.count, ConstantTime.equal(typed, wanted) else { throw ProtocolError(.pairingCodeWrong) }
        var file = try pinned()
        file.browsers.removeAll { $0.publicKey == request.publicKey }
        file.browsers.append(PairedBrowsers.Browser(id: request.id, browser: request.browser, name: request.name, publicKey: request.publicKey, pairedAt: now()))
        try save(file)
    }

    private func save(_ file: PairedBrowsers) throws {
        kept = nil
        try file.save(directory)
    }

    func list() throws -> BrowserPairingsReply {
        prune()
        let at = now()
        return BrowserPairingsReply(
            pending: pending.map { BrowserPendingView(pairing: $0.id, browser: $0.browser, name: $0.name, code: $0.code, expiresInSeconds: max(0, Int($0.expires.timeIntervalSince(at)))) },
            paired: try pinned().browsers.map { BrowserPairedView(pairing: $0.id, browser: $0.browser, name: $0.name, pairedAt: $0.pairedAt, lastUsed: $0.lastUsed) })
    }

    func remove(_ r: BrowserRemoveRequest) throws -> CountReply {
        prune()
        var removed = 0
        if let index = pending.firstIndex(where: { $0.id == r.pairing }) {
            pending.remove(at: index)
            removed = 1
        }
        var file = try pinned()
        if file.browsers.contains(where: { $0.id == r.pairing }) {
            file.browsers.removeAll { $0.id == r.pairing }
            try save(file)
            removed = 1
        }
        for (digest, pairing) in sessions where pairing == r.pairing { sessions[digest] = nil }
        sessionOrder.removeAll { sessions[$0] == nil }
        return CountReply(count: removed)
    }

    func challenge() -> BrowserChallengeReply {
        prune()
        if challenges.count >= 32 { challenges.removeFirst() }
        let challenge = SecureRandom.bytes(count: 32)
        challenges.append((challenge, now().addingTimeInterval(Self.challengeSeconds)))
        return BrowserChallengeReply(challenge: Base64URL.encode(challenge))
    }

    /// The handshake: a challenge of ours, unspent, signed by a pinned key. Answers a new session.
    func prove(_ r: BrowserProveRequest) throws -> BrowserSessionReply {
        prune()
        let key = try Self.publicKey(r.publicKey)
        guard let challenge = Base64URL.decode(r.challenge), challenge.count == 32,
            let index = challenges.firstIndex(where: { $0.challenge.count == 32 && ConstantTime.equal($0.challenge, challenge) })
        else { throw ProtocolError(.handshakeFailed, ["reason": "challenge"]) }
        challenges.remove(at: index)
        guard let signature = Base64URL.decode(r.signature),
            SigningKey.isValidSignature(signature, for: BrowserPairingCode.sessionMessage(challenge: challenge), publicKey: key)
        else { throw ProtocolError(.handshakeFailed, ["reason": "signature"]) }
        var file = try pinned()
        let encoded = Base64URL.encode(key)
        guard let index = file.browsers.firstIndex(where: { $0.publicKey == encoded }) else {
            throw ProtocolError(.notPaired, ["pending": pending.contains { $0.publicKey == encoded } ? "true" : "false"])
        }
        file.browsers[index].lastUsed = now()
        try save(file)
        let session = SecureRandom.bytes(count: 32)
        let digest = Base16.encode(Hash.sha256(session))
        if sessionOrder.count >= 64 { sessions[sessionOrder.removeFirst()] = nil }
        sessions[digest] = file.browsers[index].id
        sessionOrder.append(digest)
        return BrowserSessionReply(pairing: file.browsers[index].id, name: file.browsers[index].name, session: Base64URL.encode(session))
    }

    /// The pairing a request's session belongs to; `notPaired` when it has none or its pairing was removed.
    func check(_ session: String?) throws {
        guard let session, let bytes = Base64URL.decode(session), bytes.count == 32,
            let pairing = sessions[Base16.encode(Hash.sha256(bytes))],
            try pinned().browsers.contains(where: { $0.id == pairing })
        else { throw ProtocolError(.notPaired, ["pending": "false"]) }
    }
}
