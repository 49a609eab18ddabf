import Foundation
import PassboxCore
import PassboxCrypto
import PassboxDomains
import PassboxProtocol

/// The browser extension's vault operations (the agent checked the session first). Candidates carry no
/// secret; one login's values leave for one fill; what a page submitted is offered, never saved unasked.
extension VaultSession {
    /// At most this many candidates go to the page's menu (exact host first): a registrable domain with
    /// thousands of logins must not make an answer over the browser's 1 MiB.
    static let candidateLimit = 50

    func browserCandidates(_ r: BrowserCandidatesRequest) throws -> FillReply {
        guard case .fill(var reply) = try fill(FillRequest(address: try Self.webAddress(r.url))) else {
            throw ProtocolError(.internalError, ["type": "fill"])
        }
        reply.candidates = Array(reply.candidates.prefix(Self.candidateLimit))
        return reply
    }

    func browserFill(_ r: BrowserFillRequest) throws -> BrowserFillReply {
        let address = try Self.webAddress(r.url)
        try DomainRules.checkAvailability()
        let domains = DomainRules.shared
        guard let host = CredentialMatcher.requestedHost(address, domains: domains) else { throw ProtocolError(.notAnAddress, ["address": address]) }
        let item = try browserItem(r.item)
        guard item.category == .login else { throw ProtocolError(.notALogin, ["title": item.title, "id": item.id]) }
        try Self.refuseHandingOut(item, field: r.code ? "code" : "password")
        if !CredentialMatcher.fits(item, address, domains: domains), !r.confirmOtherSite { throw Self.otherSite(item, requested: host, domains: domains) }
        let hasCode = (try? oneTimePassword(of: item)) != nil
        if r.code {
            let code = try code(item.id)
            return BrowserFillReply(itemID: item.id, title: item.title, username: nil, password: nil, code: code.code, hasCode: true)
        }
        // AF-9 ("last filled"), saved once the values are on their way: at 10,000 items a save is most of a click.
        let at = now()
        deferred.append { [weak self] in
            guard let self else { return }
            _ = try? self.withoutAutoBackup { try self.update(reindexing: { [item.id] }) { try $0.markFilled(id: item.id, now: at) } }
        }
        return BrowserFillReply(itemID: item.id, title: item.title, username: item.username, password: item.password, code: nil, hasCode: hasCode)
    }

    func browserSearch(_ r: BrowserSearchRequest) throws -> ItemListReply {
        try search(SearchRequest(query: String(r.query.prefix(200)), limit: 50))
    }

    /// The site's login with this username, if any (exact host first).
    private func savedLogin(_ address: String, username: String) throws -> Item? {
        try DomainRules.checkAvailability()
        let candidates = CredentialMatcher.candidates(for: address, in: vault, domains: DomainRules.shared)
        for c in candidates {
            if let item = try? vault.item(id: c.itemID), (item.username ?? "") == username { return item }
        }
        return nil
    }

    func browserOffer(_ r: BrowserLoginRequest) throws -> BrowserOfferReply {
        let address = try Self.webAddress(r.url)
        guard let item = try savedLogin(address, username: r.username) else { return BrowserOfferReply(action: "save") }
        let same = r.password.withUnsafeBytes { typed in
            let saved = Array((item.password ?? "").utf8)
            return typed.count == saved.count && ConstantTime.equal(Array(typed), saved)
        }
        return BrowserOfferReply(action: same ? "none" : "update", item: item.id, title: item.title)
    }

    func browserSave(_ r: BrowserLoginRequest) throws -> SavedReply {
        let address = try Self.webAddress(r.url)
        let password = r.password.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        guard !password.isEmpty else { throw ProtocolError(.noPassword, ["title": r.title ?? "", "id": ""]) }
        try DomainRules.checkAvailability()
        let domains = DomainRules.shared
        guard let host = CredentialMatcher.requestedHost(address, domains: domains) else { throw ProtocolError(.notAnAddress, ["address": address]) }
        if let reference = r.item {
            let item = try browserItem(reference)
            guard item.category == .login else { throw ProtocolError(.notALogin, ["title": item.title, "id": item.id]) }
            guard CredentialMatcher.fits(item, address, domains: domains) else { throw Self.otherSite(item, requested: host, domains: domains) }
            return try edit(EditRequest(item: item.id, changes: ItemChanges(secretFields: [FieldAssignment(label: "password", value: password)])))
        }
        let title = (r.title?.trimmingCharacters(in: .whitespacesAndNewlines)).flatMap { $0.isEmpty ? nil : String($0.prefix(200)) } ?? domains.unicodeHost(host)
        var website = address
        if let url = URLComponents(string: address), let scheme = url.scheme, let h = url.host { website = "\(scheme)://\(h)" + (url.port.map { ":\($0)" } ?? "") }
        let changes = ItemChanges(
            title: title, username: r.username.isEmpty ? nil : String(r.username.prefix(500)), websites: [website],
            secretFields: [FieldAssignment(label: "password", value: password)])
        return try add(AddRequest(category: "login", changes: changes))
    }

    /// An item the extension names: by its exact id only (never a title or an id's prefix, which a frame could
    /// walk through), live, and never a hidden one (those answer only to their passphrase's search).
    func browserItem(_ id: String) throws -> Item {
        guard let item = try? vault.item(id: id), item.id == id, !item.isTrashed else {
            throw ProtocolError(.itemNotFound, ["reference": String(id.prefix(40))])
        }
        return item
    }

    /// AF-4: the login is saved for another site than the one asking (the user may confirm).
    static func otherSite(_ item: Item, requested host: String, domains: DomainRules) -> ProtocolError {
        // A host in another script is named with its ASCII form too: pаypal.example (Cyrillic а) must not read
        // as the paypal.example it imitates.
        func named(_ host: String) -> String {
            let shown = domains.unicodeHost(host)
            return shown == host ? host : "\(shown) (\(host))"
        }
        let saved = item.websites.first.flatMap { CredentialMatcher.requestedHost($0, domains: domains) }.map(named) ?? ""
        return ProtocolError(.otherSite, ["saved": saved, "requested": named(host), "title": item.title])
    }

    /// Only a page's address: http or https (the browser's word; an extension page or a file is refused).
    static func webAddress(_ url: String) throws -> String {
        let lower = url.lowercased()
        guard url.utf8.count <= 4096, lower.hasPrefix("https://") || lower.hasPrefix("http://") else {
            throw ProtocolError(.notAnAddress, ["address": String(url.prefix(80))])
        }
        return url
    }
}
