import Foundation
import PassboxClient
import PassboxCore
import PassboxDomains
import PassboxProtocol
import PassboxStore

extension VaultSession {
    func check(_ r: CheckRequest) throws -> CheckReply {
        // Weak passwords and look-alike addresses need their libraries: a report without them would be wrong.
        try PasswordStrength.checkAvailability()
        try DomainRules.checkAvailability()
        let settings = Settings.load(dataDirectory)
        let (breaches, twoFactor) = try Catalogues.load(directory: dataDirectory)
        var found: Int?
        if r.runBreachCheck {
            guard settings.breachCheck else { throw ProtocolError(.breachCheckOff) }
            guard let ranges = r.ranges else { throw ProtocolError(.badRequest, ["reason": "a breach check needs the range answers"]) }
            found = try recordBreachCheck(ranges)
        }
        let report = SecurityCheck.run(
            SecurityCheckInput(vault: vault, now: now(), breaches: breaches, twoFactor: twoFactor, domains: DomainRules.shared, breachCheckEnabled: settings.breachCheck,
                strengthMemo: strengthMemo, passkeySites: try Catalogues.passkeySites(directory: dataDirectory)))
        var titles = [String: String]()
        for item in vault.items { titles[item.id] = item.title }
        var reply = CheckReply(
            score: report.score, rating: report.rating.rawValue, logins: report.loginCount, secureLogins: report.secureLoginCount,
            tiles: ["atRisk": report.tiles.atRisk, "reused": report.tiles.reused, "weak": report.tiles.weak, "other": report.otherLogins, "secure": report.tiles.secure],
            deductions: Dictionary(uniqueKeysWithValues: report.deductions.map { ($0.key.rawValue, $0.value) }),
            fixFirst: report.fixFirst.map { FixFirstView(itemID: $0.itemID, title: titles[$0.itemID] ?? "", kinds: $0.kinds.map(\.rawValue), points: $0.points) },
            findings: report.findings.map {
                FindingView(kind: $0.kind.rawValue, itemID: $0.itemID, title: titles[$0.itemID] ?? "", details: $0.details, dismissed: $0.isDismissed, group: $0.group)
            },
            breachCheckEnabled: settings.breachCheck, lastBreachCheck: vault.lastBreachCheck, breachedPasswordsFound: found, catalogueDate: breaches.snapshotDate)
        reply.notSecure = report.notSecure.map { FixFirstView(itemID: $0.itemID, title: titles[$0.itemID] ?? "", kinds: $0.kinds.map(\.rawValue), points: $0.points) }
        // The Security Check reminds of backups (G79): none saved yet, or the last older than 30 days.
        reply.lastBackup = vault.backup?.lastBackup
        if vault.backup?.problem != nil {
            reply.backupReminder = "failing"
        } else if vault.backup == nil {
            reply.backupReminder = "noPassword"
        } else if let last = reply.lastBackup {
            if now().timeIntervalSince(last) > Double(Self.backupReminderDays) * 86_400 { reply.backupReminder = "old" }
        } else {
            reply.backupReminder = "never"
        }
        return reply
    }

    /// A backup older than this many days is reminded of.
    static let backupReminderDays = 30

    /// The prefixes the client fetches for the breached-password check: only five hex characters of each
    /// distinct login password's SHA-1 leave the agent.
    func breachPrefixes() throws -> PrefixesReply {
        guard Settings.load(dataDirectory).breachCheck else { throw ProtocolError(.breachCheckOff) }
        return PrefixesReply(prefixes: BreachRanges.prefixes(of: SecurityCheck.passwordsToCheck(in: vault)))
    }

    /// The range service's answers for a client that cannot reach it (the web page): exactly the prefixes it
    /// names, padding and all, from the range address in the settings. The agent calls this off its vault
    /// queue (AgentDaemon.answerOffQueue); it reads nothing of the vault.
    /// The SHA-1 (40 upper-case hex characters) of each distinct password the breach check checks.
    public func breachHashes() -> Set<String> { Set(SecurityCheck.passwordsToCheck(in: vault).map(BreachRanges.sha1Hex)) }

    /// `keeping`: the answers are cut to the lines of these hashes (the vault's, which the agent knows), so
    /// that a vault of many passwords does not send megabytes of answers back through the page to `check`
    /// (a whole answer is about 35 KB; the request frame's limit is 4 MiB). Which prefixes are the real ones
    /// still never leaves the device: the service is asked every prefix given, as before.
    public static func breachRanges(_ r: BreachRangesRequest, dataDirectory: String, keeping hashes: Set<String>? = nil) throws -> RangesReply {
        let settings = Settings.load(dataDirectory)
        guard settings.breachCheck else { throw ProtocolError(.breachCheckOff) }
        guard r.prefixes.count <= BreachRangesRequest.maximumPrefixes else {
            throw ProtocolError(.badRequest, ["reason": "at most \(BreachRangesRequest.maximumPrefixes) prefixes a request"])
        }
        if let bad = r.prefixes.first(where: { !PwnedPasswordsClient.isPrefix($0) }) {
            throw ProtocolError(.badRequest, ["reason": "\"\(VisibleText.visibleLine(String(bad.prefix(16))))\" is not five hex characters"])
        }
        do {
            var ranges = try PwnedPasswordsClient(rangeURL: settings.rangeURL ?? PwnedPasswordsClient.defaultRangeURL).fetch(r.prefixes)
            if let hashes {
                for (prefix, body) in ranges {
                    let upper = prefix.uppercased()
                    ranges[prefix] = body.split(whereSeparator: \.isNewline).filter { line in
                        guard let colon = line.firstIndex(of: ":") else { return false }
                        return hashes.contains(upper + line[..<colon].uppercased())
                    }.joined(separator: "\n")
                }
            }
            return RangesReply(ranges: ranges)
        } catch let e as PwnedPasswordsClient.CheckError {
            throw ProtocolError(.breachCheckFailed, e.facts.merging(["problem": e.reason]) { _, problem in problem })
        }
    }

    /// Keeps the results of a check in the items, from the range answers the client fetched. An answer
    /// missing for a prefix the vault needs means the check is incomplete: nothing is recorded.
    func recordBreachCheck(_ ranges: [String: String]) throws -> Int {
        let passwords = SecurityCheck.passwordsToCheck(in: vault)
        let needed = Set(BreachRanges.prefixes(of: passwords))
        guard needed.isSubset(of: Set(ranges.keys)) else {
            throw ProtocolError(.badRequest, ["reason": "range answers are missing for \(needed.subtracting(ranges.keys).count) prefixes"])
        }
        let counts = BreachRanges.occurrences(of: passwords, bodies: ranges.filter { needed.contains($0.key) })
        let at = now()
        // Breach marks change every login (nil: every item group is saved again, the index rebuilt at next use).
        let summary = try update { vault in SecurityCheck.applyBreachMarks(counts, to: &vault, now: at) }
        return summary.breachedPasswords
    }

    func dismiss(_ r: DismissRequest) throws -> SavedReply {
        guard let kind = FindingKind(rawValue: r.kind) else { throw ProtocolError(.unknownFindingKind, ["name": r.kind]) }
        let item = try resolve(r.item)
        try update(reindexing: { [item.id] }) { try $0.setDismissed(kind.rawValue, r.dismissed, itemID: item.id) }
        return SavedReply(id: item.id, title: item.title, categoryName: item.category.displayName)
    }

    func fixHTTPS(_ r: FixHTTPSRequest) throws -> CountReply {
        let ids = try r.item.map { [try resolve($0).id] }
        let at = now()
        var probe = vault
        guard !(try SecurityCheck.fixHTTPS(itemIDs: ids, in: &probe, now: at)).isEmpty else { return CountReply(count: 0) }
        let switched = try update(reindexing: { $0 }) { vault in try SecurityCheck.fixHTTPS(itemIDs: ids, in: &vault, now: at) }
        return CountReply(count: switched.count, items: switched.compactMap { try? ItemViews.summary(vault.item(id: $0)) })
    }

    func fill(_ r: FillRequest) throws -> Reply {
        try DomainRules.checkAvailability()
        let domains = DomainRules.shared
        guard let host = CredentialMatcher.requestedHost(r.address, domains: domains) else { throw ProtocolError(.notAnAddress, ["address": r.address]) }
        guard let pick = r.pick else {
            if lookups.siteIndex == nil { lookups.siteIndex = SiteIndex(items: vault.items, domains: domains) }
            let items = vault.items
            if lookups.idPositions == nil {
                var positions = [String: Int](minimumCapacity: items.count)
                for i in items.indices { positions[items[i].id] = i }
                lookups.idPositions = positions
            }
            let positions = lookups.idPositions ?? [:]
            func item(_ id: String) -> Item? {
                guard let i = positions[id], i < items.count, items[i].id == id else { return nil }
                return items[i]
            }
            let candidates = lookups.siteIndex!.candidates(for: r.address, domains: domains, item: item).compactMap { c -> FillCandidate? in
                guard let item = item(c.itemID) else { return nil }
                var candidate = FillCandidate(id: c.itemID, title: item.title, username: item.username, website: c.website, match: c.match.rawValue)
                candidate.shared = ItemViews.sharing(item, in: vault).0
                return candidate
            }
            return .fill(FillReply(host: domains.unicodeHost(host), candidates: candidates))
        }
        let item = try resolve(pick)
        guard item.category == .login || item.password != nil else { throw ProtocolError(.notALogin, ["title": item.title, "id": item.id]) }
        if !CredentialMatcher.fits(item, r.address, domains: domains), !r.confirmOtherSite { throw Self.otherSite(item, requested: host, domains: domains) }
        let name = r.field ?? "password"
        guard let value = item.value(of: name) else { throw ProtocolError(.noField, ["title": item.title, "field": name, "id": item.id]) }
        try withoutAutoBackup { try update(reindexing: { [item.id] }) { try $0.markFilled(id: item.id, now: now()) } }
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
                throw ProtocolError(.invalidReference, e.facts.merging(["reference": String(text.prefix(80)), "reason": e.reason]) { _, ours in ours })
            }
            if ["code", "totp", "otp-code"].contains(reference.field.lowercased()) {
                let code = try code(reference.item)
                values.append(code.code ?? "")
                used.insert(code.itemID)
                continue
            }
            let item = try resolve(reference.item)
            try Self.refuseHandingOut(item, field: reference.field)
            values.append(try reference.value(in: item, now: now()))
            used.insert(item.id)
        }
        if r.markUsed {
            let at = now()
            try withoutAutoBackup { try update(reindexing: { Array(used) }) { vault in for id in used { try vault.markUsed(id: id, now: at) } } }
        }
        return ResolveReply(values: values)
    }
}
