import Foundation
import PassboxCore
import PassboxCrypto
import PassboxDomains
import PassboxProtocol

/// Passkeys through the browser extension (issue 35). The agent checks the relying party against the tab's
/// origin before it answers anything, keeps the private keys inside the vault and signs only for the relying
/// party a passkey was made for. The extension decides nothing about who may claim what.
extension VaultSession {
    /// Passbox's authenticator model, in the attested credential data of every passkey it makes.
    static let aaguid: [UInt8] = [0x67, 0x51, 0x0d, 0x9b, 0x9c, 0xea, 0x42, 0x15, 0xaf, 0x0c, 0x63, 0x2f, 0x9e, 0x11, 0x7b, 0x64]
    /// The authenticator data's flags: user present, user verified (the vault was opened with the master
    /// password), backup eligible and backed up (a synced passkey); with attested credential data on create.
    static let assertionFlags: UInt8 = 0x01 | 0x04 | 0x08 | 0x10
    static let attestedFlag: UInt8 = 0x40
    /// ES256 in COSE.
    static let es256 = -7

    /// The relying party a page at `url` may use: the origin (scheme, host, port) and the checked id.
    struct RelyingParty: Equatable {
        var origin: String
        var id: String
    }

    /// WebAuthn's rules (§5.1.3, §13.4.9): https (http only on localhost); the relying party id is the page's
    /// host or a registrable suffix of it, never a public suffix; no IP address. The host and the id compare
    /// in their ASCII forms, so a look-alike in another script is another site.
    static func relyingParty(_ url: String, claimed: String?, domains: DomainRules) throws -> RelyingParty {
        guard url.utf8.count <= 4096, let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(), let rawHost = parts.host, !rawHost.isEmpty else {
            throw ProtocolError(.notAnAddress, ["address": String(url.prefix(80))])
        }
        func refuse(_ reason: String, _ rp: String) -> ProtocolError {
            ProtocolError(.passkeyRelyingParty, ["rp": String(rp.prefix(253)), "origin": String(url.prefix(200)), "reason": reason])
        }
        let host = domains.asciiHost(rawHost)?.lowercased() ?? rawHost.lowercased()
        let rp = claimed.map { domains.asciiHost($0)?.lowercased() ?? $0.lowercased() } ?? host
        let isLocal = host == "localhost" || host.hasSuffix(".localhost")
        guard scheme == "https" || (scheme == "http" && isLocal) else { throw refuse("notHTTPS", rp) }
        let origin = "\(scheme)://\(host)" + (parts.port.map { ":\($0)" } ?? "")
        if host.hasPrefix("[") || host.contains(":") || host.split(separator: ".").allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }) {
            throw refuse("ipAddress", rp)
        }
        guard !rp.isEmpty, rp.utf8.count <= 253, rp == host || host.hasSuffix("." + rp) else { throw refuse("notSuffix", rp) }
        if !isLocal {
            // A public suffix ("com", "co.uk", "github.io") has no registrable domain of its own.
            guard let registrable = domains.registrableDomain(rp), rp == registrable || rp.hasSuffix("." + registrable) else {
                throw refuse("publicSuffix", rp)
            }
        }
        return RelyingParty(origin: origin, id: rp)
    }

    /// The live logins that may hand out a passkey: neither trashed, sealed nor hidden.
    private func passkeyItems() -> [Item] {
        vault.items.filter { !$0.isTrashed && $0.sealed == nil && !$0.passkeys.isEmpty }
    }

    func browserPasskeys(_ r: BrowserPasskeysRequest) throws -> PasskeysReply {
        try DomainRules.checkAvailability()
        let party = try Self.relyingParty(r.url, claimed: r.rp, domains: DomainRules.shared)
        let allowed = Set((r.allow ?? []).prefix(256).compactMap { Base64URL.decode($0) })
        var found = [PasskeyCandidate]()
        for item in passkeyItems() {
            for key in item.passkeys where key.relyingParty == party.id && (allowed.isEmpty || allowed.contains(key.credentialID)) {
                found.append(PasskeyCandidate(item: item.id, title: item.title, credential: Base64URL.encode(key.credentialID), userName: key.userName, displayName: key.displayName))
            }
        }
        return PasskeysReply(rp: party.id, origin: party.origin, passkeys: Array(found.prefix(50)))
    }

    func browserPasskeySign(_ r: BrowserPasskeySignRequest) throws -> PasskeySignedReply {
        try DomainRules.checkAvailability()
        let party = try Self.relyingParty(r.url, claimed: r.rp, domains: DomainRules.shared)
        guard let credential = Base64URL.decode(r.credential), let clientData = Base64URL.decode(r.clientData), clientData.count <= 8192 else {
            throw ProtocolError(.badRequest, ["reason": "credential or clientData is not base64url"])
        }
        try Self.checkClientData(clientData, type: "webauthn.get", origin: party.origin)
        let item = try browserItem(r.item)
        try Self.refuseHandingOut(item, field: "passkey")
        guard let key = item.passkeys.first(where: { $0.credentialID == credential && $0.relyingParty == party.id }) else {
            throw ProtocolError(.passkeyNotFound, ["rp": party.id])
        }
        // A counter that counts must never go back: it is saved before the signature leaves.
        let advance = key.signCount > 0
        let count = advance ? key.signCount &+ 1 : 0
        let at = now()
        if advance {
            try withoutAutoBackup { try update { try $0.markPasskeyUsed(id: item.id, credential: credential, now: at, advance: true) } }
        }
        let authenticatorData = Hash.sha256(Array(party.id.utf8)) + [Self.assertionFlags] + Self.bigEndian(count)
        let privateKey = SecretBytes(copying: key.privateKey)
        let signature = try P256.signature(for: authenticatorData + Hash.sha256(clientData), privateKey: privateKey)
        if !advance {
            deferred.append { [weak self] in
                guard let self else { return }
                _ = try? self.withoutAutoBackup { try self.update { try $0.markPasskeyUsed(id: item.id, credential: credential, now: at) } }
            }
        }
        return PasskeySignedReply(
            item: item.id, credential: r.credential, authenticatorData: Base64URL.encode(authenticatorData), signature: Base64URL.encode(signature),
            userHandle: Base64URL.encode(key.userHandle))
    }

    func browserPasskeyCreate(_ r: BrowserPasskeyCreateRequest) throws -> PasskeyCreatedReply {
        try DomainRules.checkAvailability()
        let domains = DomainRules.shared
        let party = try Self.relyingParty(r.url, claimed: r.rp, domains: domains)
        guard r.algorithms.contains(Self.es256) else {
            throw ProtocolError(.passkeyAlgorithm, ["algorithms": r.algorithms.prefix(12).map(String.init).joined(separator: ", ")])
        }
        guard let handle = Base64URL.decode(r.userHandle), (1...64).contains(handle.count) else {
            throw ProtocolError(.badRequest, ["reason": "userHandle must be 1 to 64 bytes, base64url"])
        }
        let userName = String(r.userName.prefix(256))
        let displayName = String(r.displayName.prefix(256))
        let excluded = Set((r.exclude ?? []).prefix(256).compactMap { Base64URL.decode($0) })
        for item in passkeyItems() {
            if item.passkeys.contains(where: { $0.relyingParty == party.id && excluded.contains($0.credentialID) }) {
                throw ProtocolError(.passkeyExists, ["rp": party.id, "title": item.title])
            }
        }
        let (privateKey, point) = try P256.generate()
        let credential = SecureRandom.bytes(count: 16)
        let passkey = Passkey(
            credentialID: credential, relyingParty: party.id, userHandle: handle, userName: userName, displayName: displayName,
            privateKey: privateKey.revealBytes(), created: now().storedPrecision)
        // The site's login with this user name gets it (exact host first); else a new login.
        let existing = CredentialMatcher.candidates(for: party.origin, in: vault, domains: domains).lazy
            .compactMap { try? self.vault.item(id: $0.itemID) }
            .first { $0.sealed == nil && ($0.username ?? "") == userName }
        let saved: Item = try update(reindexing: { [$0.id] }) { vault in
            if let existing {
                return try vault.update(id: existing.id, now: now()) { item in
                    item.passkeys.removeAll { $0.relyingParty == party.id && $0.userHandle == handle }
                    item.passkeys.append(passkey)
                }
            }
            var item = Item(category: .login, title: domains.unicodeHost(party.id), websites: [party.origin])
            if !userName.isEmpty { item.setValue(userName, for: "username") }
            item.passkeys = [passkey]
            item.vaultID = vault.vaults.first?.id
            return try vault.add(item, now: now())
        }
        let authenticatorData = Hash.sha256(Array(party.id.utf8)) + [Self.assertionFlags | Self.attestedFlag] + Self.bigEndian(0)
            + Self.aaguid + [UInt8(credential.count >> 8), UInt8(credential.count & 0xff)] + credential + Self.coseKey(point)
        return PasskeyCreatedReply(
            item: saved.id, title: saved.title, newItem: existing == nil, credential: Base64URL.encode(credential),
            authenticatorData: Base64URL.encode(authenticatorData), attestationObject: Base64URL.encode(Self.noneAttestation(authenticatorData)),
            publicKey: Base64URL.encode(P256.subjectPublicKeyInfo(point)), algorithm: Self.es256)
    }

    /// The client data must be what the extension was asked to sign for: this type, this origin.
    static func checkClientData(_ bytes: [UInt8], type: String, origin: String) throws {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any], object["type"] as? String == type,
            object["origin"] as? String == origin, let challenge = object["challenge"] as? String, !challenge.isEmpty
        else {
            throw ProtocolError(.badRequest, ["reason": "clientData is not a \(type) for \(origin)"])
        }
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8((value >> 16) & 0xff), UInt8((value >> 8) & 0xff), UInt8(value & 0xff)] }

    /// The EC2 P-256 public key in COSE (RFC 9053): {1: 2, 3: -7, -1: 1, -2: x, -3: y}, as CBOR. A fixed shape
    /// of 77 bytes, written out here rather than through a CBOR library (docs/ARCHITECTURE.md).
    static func coseKey(_ point: [UInt8]) -> [UInt8] {
        [0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20] + point[1..<33] + [0x22, 0x58, 0x20] + point[33..<65]
    }

    /// The attestation object of format "none": {"fmt": "none", "attStmt": {}, "authData": bytes} as CBOR.
    static func noneAttestation(_ authenticatorData: [UInt8]) -> [UInt8] {
        let n = authenticatorData.count
        let length: [UInt8] = n < 24 ? [0x40 | UInt8(n)] : n < 256 ? [0x58, UInt8(n)] : [0x59, UInt8(n >> 8), UInt8(n & 0xff)]
        return [0xa3, 0x63] + Array("fmt".utf8) + [0x64] + Array("none".utf8) + [0x67] + Array("attStmt".utf8) + [0xa0, 0x68] + Array("authData".utf8)
            + length + authenticatorData
    }
}
