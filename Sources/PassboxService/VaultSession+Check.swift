import Foundation
import PassboxClient
import PassboxCore
import PassboxDomains
import PassboxProtocol
import PassboxStore

extension VaultSession {
    func check(_ r: CheckRequest) throws -> CheckReply {
        let settings = Settings.load(dataDirectory)
        let (breaches, twoFactor) = try Catalogues.load(directory: dataDirectory)
        var found: Int?
        if r.runBreachCheck {
            guard settings.breachCheck else { throw ProtocolError(.breachCheckOff) }
            found = try runBreachCheck(rangeURL: settings.rangeURL ?? PwnedPasswordsClient.defaultRangeURL)
        }
        let report = SecurityCheck.run(
            SecurityCheckInput(vault: vault, now: now(), breaches: breaches, twoFactor: twoFactor, domains: DomainRules.shared, breachCheckEnabled: settings.breachCheck))
        var titles = [String: String]()
        for item in vault.items { titles[item.id] = item.title }
        return CheckReply(
            score: report.score, rating: report.rating.rawValue, logins: report.loginCount, secureLogins: report.secureLoginCount,
            tiles: ["atRisk": report.tiles.atRisk, "reused": report.tiles.reused, "weak": report.tiles.weak, "secure": report.tiles.secure],
            deductions: Dictionary(uniqueKeysWithValues: report.deductions.map { ($0.key.rawValue, $0.value) }),
            fixFirst: report.fixFirst.map { FixFirstView(itemID: $0.itemID, title: titles[$0.itemID] ?? "", kinds: $0.kinds.map(\.rawValue), points: $0.points) },
            findings: report.findings.map {
                FindingView(kind: $0.kind.rawValue, itemID: $0.itemID, title: titles[$0.itemID] ?? "", details: $0.details, dismissed: $0.isDismissed, group: $0.group)
            },
            breachCheckEnabled: settings.breachCheck, lastBreachCheck: vault.lastBreachCheck, breachedPasswordsFound: found, catalogueDate: breaches.snapshotDate)
    }

    /// Queries the range service for every distinct login password and keeps the results in the items.
    /// Returns how many distinct passwords were found in breaches.
    func runBreachCheck(rangeURL: String) throws -> Int {
        let logins = vault.activeItems.filter { $0.category == .login && $0.password != nil }
        let client = PwnedPasswordsClient(rangeURL: rangeURL)
        let counts: [String: Int]
        do {
            counts = try client.occurrences(of: Array(Set(logins.compactMap(\.password))))
        } catch let e as PwnedPasswordsClient.CheckError {
            throw ProtocolError(.breachCheckFailed, ["reason": e.message])
        }
        let at = now()
        try update { vault in
            BreachMarks.apply(counts, to: &vault, at: at)
        }
        return Set(logins.compactMap(\.password).filter { (counts[$0] ?? 0) > 0 }).count
    }

    func dismiss(_ r: DismissRequest) throws -> SavedReply {
        guard let kind = FindingKind(rawValue: r.kind) else { throw ProtocolError(.unknownFindingKind, ["name": r.kind]) }
        let item = try resolve(r.item)
        try update { try $0.setDismissed(kind.rawValue, r.dismissed, itemID: item.id) }
        return SavedReply(id: item.id, title: item.title, categoryName: item.category.displayName)
    }

    func fixHTTPS(_ r: FixHTTPSRequest) throws -> CountReply {
        let targets = try r.item.map { [try resolve($0)] } ?? vault.activeItems
        let insecure = targets.filter { $0.websites.contains(where: HTTPSFix.isInsecure) }
        guard !insecure.isEmpty else { return CountReply(count: 0) }
        let at = now()
        let switched = try update { vault in
            try insecure.map { item in try vault.update(id: item.id, now: at) { $0.websites = $0.websites.map(HTTPSFix.upgraded) } }
        }
        return CountReply(count: switched.count, items: switched.map { ItemViews.summary($0) })
    }

    func fill(_ r: FillRequest) throws -> Reply {
        let domains = DomainRules.shared
        guard let host = CredentialMatcher.requestedHost(r.address, domains: domains) else { throw ProtocolError(.notAnAddress, ["address": r.address]) }
        guard let pick = r.pick else {
            let candidates = CredentialMatcher.candidates(for: r.address, in: vault, domains: domains).compactMap { c -> FillCandidate? in
                guard let item = try? vault.item(id: c.itemID) else { return nil }
                return FillCandidate(id: c.itemID, title: item.title, username: item.username, website: c.website, match: c.match.rawValue)
            }
            return .fill(FillReply(host: domains.unicodeHost(host), candidates: candidates))
        }
        let item = try resolve(pick)
        guard item.category == .login || item.password != nil else { throw ProtocolError(.notALogin, ["title": item.title, "id": item.id]) }
        if !CredentialMatcher.fits(item, r.address, domains: domains), !r.confirmOtherSite {
            let saved = item.websites.first.flatMap { CredentialMatcher.requestedHost($0, domains: domains) }.map(domains.unicodeHost) ?? ""
            throw ProtocolError(.otherSite, ["saved": saved, "requested": domains.unicodeHost(host), "title": item.title])
        }
        let name = r.field ?? "password"
        guard let value = item.value(of: name) else { throw ProtocolError(.noField, ["title": item.title, "field": name, "id": item.id]) }
        try update { try $0.markFilled(id: item.id, now: now()) }
        return .value(ValueReply(itemID: item.id, title: item.title, value: value))
    }

    /// The values `passbox://VAULT/ITEM/FIELD` references name; a one-time code goes through `code`, so an
    /// HOTP counter advances here as it does for `totp`.
    func resolve(_ r: ResolveRequest) throws -> ResolveReply {
        var values = [String]()
        var used = Set<String>()
        for text in r.references {
            let reference: SecretReference
            do {
                reference = try SecretReference.parse(text)
            } catch let e as ValidationError {
                throw ProtocolError(.invalidReference, ["reference": String(text.prefix(80)), "reason": e.message])
            }
            if ["code", "totp", "otp-code"].contains(reference.field.lowercased()) {
                let code = try code(reference.item)
                values.append(code.code ?? "")
                used.insert(code.itemID)
                continue
            }
            let (item, value) = try reference.resolve(in: vault, now: now())
            values.append(value)
            used.insert(item.id)
        }
        if r.markUsed {
            let at = now()
            try update { vault in for id in used { try vault.markUsed(id: id, now: at) } }
        }
        return ResolveReply(values: values)
    }
}

/// Breach marks: the result of a range query kept on each login (count, time, a fingerprint of the password
/// checked, so a changed password is not reported with an old result).
public enum BreachMarks {
    public static func apply(_ counts: [String: Int], to vault: inout Vault, at: Date) {
        for index in vault.items.indices where !vault.items[index].isTrashed && vault.items[index].category == .login {
            guard let password = vault.items[index].password else { continue }
            vault.items[index].passwordBreach = PasswordBreachMark(
                checkedAt: at.storedPrecision, occurrences: counts[password] ?? 0, fingerprint: SecurityCheck.fingerprint(password))
        }
        vault.lastBreachCheck = at.storedPrecision
    }
}

/// The https fix: http:// addresses become https:// ones.
public enum HTTPSFix {
    public static func isInsecure(_ website: String) -> Bool { website.lowercased().hasPrefix("http://") }
    public static func upgraded(_ website: String) -> String { isInsecure(website) ? "https://" + website.dropFirst(7) : website }
}
