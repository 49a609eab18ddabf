import Foundation
import PassboxCrypto

/// The kinds of weakness Security Check finds.
public enum FindingKind: String, Sendable, CaseIterable, Comparable {
    case breachedPassword = "breached-password"
    case breachedWebsite = "breached-website"
    case reused
    case weak
    case lookalike
    case similar
    case unsecuredWebsite = "unsecured-website"
    case missingTwoFactor = "missing-2fa"
    case old
    case duplicate
    case noWebsite = "no-website"
    case noUsername = "no-username"
    case bothFactors = "both-factors"
    case expired
    case expiring

    /// Points a login loses for this finding (a login loses at most 1). Informational kinds cost nothing.
    public var weight: Double {
        switch self {
        case .breachedPassword: 1.0
        case .breachedWebsite, .reused, .weak: 0.6
        case .lookalike: 0.5
        case .similar, .unsecuredWebsite: 0.3
        case .missingTwoFactor: 0.2
        case .old: 0.15
        case .duplicate: 0.1
        case .noWebsite, .noUsername: 0.05
        case .bothFactors, .expired, .expiring: 0
        }
    }

    /// Whether the finding counts against the score and the "secure" tile.
    public var countsAgainstScore: Bool { weight > 0 }

    /// Position in `allCases`, the order lists are shown in.
    public var order: Int {
        switch self {
        case .breachedPassword: 0
        case .breachedWebsite: 1
        case .reused: 2
        case .weak: 3
        case .lookalike: 4
        case .similar: 5
        case .unsecuredWebsite: 6
        case .missingTwoFactor: 7
        case .old: 8
        case .duplicate: 9
        case .noWebsite: 10
        case .noUsername: 11
        case .bothFactors: 12
        case .expired: 13
        case .expiring: 14
        }
    }

    public static func < (a: FindingKind, b: FindingKind) -> Bool { a.order < b.order }
}

/// One finding on one item. `details` are facts for the message (never a password).
public struct Finding: Sendable, Equatable {
    public let kind: FindingKind
    public let itemID: String
    public let details: [String: String]
    public let isDismissed: Bool
    /// For reused and similar passwords: which group (items sharing a password) this belongs to.
    public let group: Int?
}

/// Everything Security Check needs, all local except the optional breach results kept in the vault.
public struct SecurityCheckInput: Sendable {
    public var vault: Vault
    public var now: Date
    public var breaches: BreachCatalog
    public var twoFactor: TwoFactorDirectory
    public var domains: any DomainAnalyzing
    /// Whether the user turned the breached-password check on (its results live in the items).
    public var breachCheckEnabled: Bool

    public init(vault: Vault, now: Date, breaches: BreachCatalog, twoFactor: TwoFactorDirectory, domains: any DomainAnalyzing, breachCheckEnabled: Bool) {
        self.vault = vault
        self.now = now
        self.breaches = breaches
        self.twoFactor = twoFactor
        self.domains = domains
        self.breachCheckEnabled = breachCheckEnabled
    }
}

/// The report: findings, the score and what to fix first (docs/SECURITY-CHECK.md has the formula).
public struct SecurityReport: Sendable {
    public let findings: [Finding]
    public let loginCount: Int
    public let secureLoginCount: Int
    /// 0–100.
    public let score: Int
    public let rating: Rating
    /// Points each kind costs (rounded to one decimal).
    public let deductions: [FindingKind: Double]
    public let tiles: Tiles
    public let fixFirst: [FixSuggestion]
    public let lastBreachCheck: Date?

    public enum Rating: String, Sendable {
        case excellent, good, roomForImprovement = "room-for-improvement", atRisk = "at-risk"
    }

    public struct Tiles: Sendable, Equatable {
        public let atRisk: Int
        public let reused: Int
        public let weak: Int
        public let secure: Int

        public init(atRisk: Int, reused: Int, weak: Int, secure: Int) {
            self.atRisk = atRisk
            self.reused = reused
            self.weak = weak
            self.secure = secure
        }
    }

    public struct FixSuggestion: Sendable, Equatable {
        public let itemID: String
        public let kinds: [FindingKind]
        public let points: Double
    }
}

/// Computes the Security Check over a vault's logins (trashed items excluded).
public enum SecurityCheck {
    public static let expiryWarningDays = 30
    public static let oldPasswordDays = 365

    public static func run(_ input: SecurityCheckInput) -> SecurityReport {
        let items = input.vault.items.filter { !$0.isTrashed }
        let logins = items.filter { $0.category == .login }
        var found = [(FindingKind, Item, [String: String], Int?)]()
        func add(_ kind: FindingKind, _ item: Item, _ details: [String: String] = [:], group: Int? = nil) {
            found.append((kind, item, details, group))
        }

        // Hosts and registrable domains of each login, computed once.
        // Public Suffix List lookups are read-only, so they run on both cores.
        nonisolated(unsafe) let perLogin = UnsafeMutableBufferPointer<[(host: String, domain: String?, url: String)]>.allocate(capacity: max(logins.count, 1))
        perLogin.initialize(repeating: [])
        defer { perLogin.deinitialize(); perLogin.deallocate() }
        let domains = input.domains
        DispatchQueue.concurrentPerform(iterations: logins.count) { i in
            perLogin[i] = logins[i].websites.compactMap { url in
                guard let host = Validation.hostQuickly(url) else { return nil }
                let ascii = domains.asciiHost(host) ?? host
                return (ascii, domains.registrableDomain(ascii), url)
            }
        }
        var sites = [String: [(host: String, domain: String?, url: String)]](minimumCapacity: logins.count)
        for (i, login) in logins.enumerated() { sites[login.id] = perLogin[i] }

        // Strength, once per distinct password, on both cores, while the other checks run here.
        let passwords = Array(Set(logins.compactMap(\.password)))
        nonisolated(unsafe) var scores = [String: Int]()
        let strength = DispatchGroup()
        DispatchQueue.global(qos: .userInitiated).async(group: strength) { scores = strengthScores(passwords) }

        // Reused: grouped by password.
        var byPassword = [String: [Item]]()
        for login in logins { if let p = login.password { byPassword[p, default: []].append(login) } }
        var groupNumber = 0
        for (_, group) in byPassword.sorted(by: { $0.value[0].title < $1.value[0].title }) where group.count > 1 {
            groupNumber += 1
            for item in group { add(.reused, item, ["count": String(group.count)], group: groupNumber) }
        }

        // Similar (distinct passwords only): same letters once digits and symbols are removed and case folded
        // (at least 4 letters), or one edit apart for passwords of 6+ characters.
        for group in similarGroups(Array(byPassword.keys)) {
            groupNumber += 1
            let members = group.flatMap { byPassword[$0] ?? [] }
            for item in members { add(.similar, item, ["count": String(members.count)], group: groupNumber) }
        }

        for login in logins {
            let loginSites = sites[login.id] ?? []
            if let p = login.password {
                if let changed = login.passwordChangedAt, input.now.timeIntervalSince(changed) > Double(oldPasswordDays) * 86_400 {
                    add(.old, login, ["changed": dayString(changed)])
                }
                if input.breachCheckEnabled, let mark = login.passwordBreach, mark.occurrences > 0, mark.fingerprint == fingerprint(p) {
                    add(.breachedPassword, login, ["occurrences": String(mark.occurrences)])
                }
            }
            if loginSites.isEmpty { add(.noWebsite, login) }
            if login.username == nil { add(.noUsername, login) }
            if loginSites.contains(where: { $0.url.lowercased().hasPrefix("http://") }) {
                add(.unsecuredWebsite, login, ["website": loginSites.first { $0.url.lowercased().hasPrefix("http://") }!.url])
            }
            let hasCode = login.fields.contains { $0.kind == .otp && !$0.value.isEmpty }
            if hasCode && login.password != nil { add(.bothFactors, login) }
        }

        // Missing two-factor codes, via registrable domains of the directory.
        var twoFactorSites = [String: TwoFactorDirectory.Site]()
        for site in input.twoFactor.sites {
            for d in site.domains { if let r = input.domains.registrableDomain(d) { twoFactorSites[r] = twoFactorSites[r] ?? site } }
        }
        for login in logins where !login.fields.contains(where: { $0.kind == .otp && !$0.value.isEmpty }) {
            if let site = (sites[login.id] ?? []).compactMap({ $0.domain.flatMap { twoFactorSites[$0] } }).first {
                var details = ["site": site.name]
                if let doc = site.documentation { details["documentation"] = doc }
                add(.missingTwoFactor, login, details)
            }
        }

        // Breached websites: a breach published after the password was set.
        var breachesByDomain = [String: [Breach]]()
        for breach in input.breaches.breaches {
            if let r = input.domains.registrableDomain(breach.domain) { breachesByDomain[r, default: []].append(breach) }
        }
        for login in logins where login.password != nil {
            let domains = Set((sites[login.id] ?? []).compactMap(\.domain))
            let changed = login.passwordChangedAt
            let relevant = domains.flatMap { breachesByDomain[$0] ?? [] }.filter { changed == nil || $0.addedDate > changed! }
            if let breach = relevant.max(by: { $0.addedDate < $1.addedDate }) {
                add(.breachedWebsite, login, [
                    "breach": breach.title, "published": dayString(breach.addedDate), "breachDate": breach.breachDate.map(dayString) ?? "",
                    "dataClasses": breach.dataClasses.joined(separator: ", "), "accounts": String(breach.pwnCount),
                    "passwordDate": changed.map(dayString) ?? "unknown",
                ])
            }
        }

        // Duplicates: the same registrable domain and username.
        var byAccount = [String: [Item]]()
        for login in logins {
            guard let user = login.username else { continue }
            for domain in Set((sites[login.id] ?? []).compactMap(\.domain)) {
                byAccount[domain + "\u{0}" + TextFolding.fold(user), default: []].append(login)
            }
        }
        var duplicateSeen = Set<String>()
        for (key, group) in byAccount where group.count > 1 {
            for item in group where duplicateSeen.insert(item.id).inserted {
                add(.duplicate, item, ["site": String(key.split(separator: "\u{0}")[0]), "count": String(group.count)])
            }
        }

        // Look-alike addresses among saved domains and against well-known ones.
        for (itemID, details) in lookalikes(logins: logins, sites: sites, input: input) {
            if let item = logins.first(where: { $0.id == itemID }) { add(.lookalike, item, details) }
        }

        strength.wait()
        for login in logins {
            if let p = login.password, let score = scores[p], score < 3 { add(.weak, login, ["score": String(score)]) }
        }

        // Expired and expiring cards and documents.
        for item in items where [.creditCard, .idDocument, .driverLicence, .apiCredential, .softwareLicence, .bankAccount].contains(item.category) {
            guard let expiry = expiryDate(item) else { continue }
            if expiry < input.now {
                add(.expired, item, ["expiry": dayString(expiry)])
            } else if expiry.timeIntervalSince(input.now) <= Double(expiryWarningDays) * 86_400 {
                add(.expiring, item, ["expiry": dayString(expiry)])
            }
        }

        var findings: [Finding] = found.map { kind, item, details, group in
            Finding(kind: kind, itemID: item.id, details: details, isDismissed: item.dismissals.contains(kind.rawValue), group: group)
        }
        findings.sort { a, b in a.kind.order == b.kind.order ? a.itemID < b.itemID : a.kind.order < b.kind.order }
        return score(findings, logins: logins, lastBreachCheck: input.vault.lastBreachCheck)
    }

    /// The score: every login is worth 100/M points and loses the weights of its open findings, at most all
    /// of them; a capped login's loss is shared among its kinds in proportion to their weights.
    static func score(_ findings: [Finding], logins: [Item], lastBreachCheck: Date?) -> SecurityReport {
        let m = logins.count
        var perLogin = [String: [FindingKind]]()
        for f in findings where !f.isDismissed && f.kind.countsAgainstScore { perLogin[f.itemID, default: []].append(f.kind) }
        let loginIDs = Set(logins.map(\.id))
        var deductions = [FindingKind: Double]()
        var suggestions = [SecurityReport.FixSuggestion]()
        var lost = 0.0
        for (id, kinds) in perLogin where loginIDs.contains(id) {
            var unique = [FindingKind]()
            for k in kinds where !unique.contains(k) { unique.append(k) }
            unique.sort()
            let total = unique.reduce(0) { $0 + $1.weight }
            let loss = min(1, total)
            lost += loss
            for kind in unique { deductions[kind, default: 0] += 100 / Double(m) * loss * kind.weight / total }
            suggestions.append(.init(itemID: id, kinds: unique, points: (100 / Double(m) * loss * 10).rounded() / 10))
        }
        let score = m == 0 ? 100 : Int((100 * (1 - lost / Double(m))).rounded())
        let rating: SecurityReport.Rating =
            switch score {
            case 90...: .excellent
            case 70..<90: .good
            case 50..<70: .roomForImprovement
            default: .atRisk
            }
        var tileSets = [FindingKind: Set<String>]()
        for f in findings where !f.isDismissed && [.breachedPassword, .breachedWebsite, .reused, .weak].contains(f.kind) && loginIDs.contains(f.itemID) {
            tileSets[f.kind, default: []].insert(f.itemID)
        }
        func count(_ kinds: Set<FindingKind>) -> Int {
            kinds.reduce(into: Set<String>()) { $0.formUnion(tileSets[$1] ?? []) }.count
        }
        let secure = m - perLogin.keys.filter(loginIDs.contains).count
        // The five largest gains (ties by title), selected without sorting every login.
        let titles = Dictionary(uniqueKeysWithValues: logins.map { ($0.id, $0.title) })
        func before(_ a: SecurityReport.FixSuggestion, _ b: SecurityReport.FixSuggestion) -> Bool {
            a.points == b.points ? (titles[a.itemID] ?? "") < (titles[b.itemID] ?? "") : a.points > b.points
        }
        var first = [SecurityReport.FixSuggestion]()
        for s in suggestions where first.count < 5 || before(s, first[first.count - 1]) {
            first.insert(s, at: first.firstIndex { before(s, $0) } ?? first.count)
            if first.count > 5 { first.removeLast() }
        }
        return SecurityReport(
            findings: findings, loginCount: m, secureLoginCount: secure, score: score, rating: rating,
            deductions: deductions.mapValues { ($0 * 10).rounded() / 10 },
            tiles: .init(atRisk: count([.breachedPassword, .breachedWebsite]), reused: count([.reused]), weak: count([.weak]), secure: secure),
            fixFirst: Array(first), lastBreachCheck: lastBreachCheck)
    }

    /// Strength scores of distinct passwords, computed in parallel (libzxcvbn is the slowest part).
    static func strengthScores(_ passwords: [String]) -> [String: Int] {
        // Each iteration writes only its own slot, so the unsynchronised buffer is safe.
        nonisolated(unsafe) let results = UnsafeMutableBufferPointer<Int>.allocate(capacity: max(passwords.count, 1))
        defer { results.deallocate() }
        DispatchQueue.concurrentPerform(iterations: passwords.count) { i in
            results[i] = PasswordStrength.estimate(passwords[i]).score
        }
        var out = [String: Int]()
        for (i, p) in passwords.enumerated() { out[p] = results[i] }
        return out
    }

    /// The password's fingerprint as stored in a breach mark: first 8 bytes of SHA-256, hex.
    public static func fingerprint(_ password: String) -> String {
        Hash.sha256(Array(password.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// Groups of distinct passwords that are similar (see `run`), each with 2+ members.
    public static func similarGroups(_ passwords: [String]) -> [[String]] {
        var parent = Array(0..<passwords.count)
        func find(_ x: Int) -> Int {
            var x = x
            while parent[x] != x { parent[x] = parent[parent[x]]; x = parent[x] }
            return x
        }
        func union(_ a: Int, _ b: Int) { parent[find(a)] = find(b) }
        var byLetters = [String: Int]()
        // One edit (insert, delete, substitute, swap) apart ⇔ the two share a string with one character
        // deleted, or one is the other with one deleted. Deletion variants are keyed by a polynomial hash
        // computed from prefix hashes (no string per variant); candidates are then checked exactly.
        var byDeletion = [UInt64: [Int32]]()
        let base: UInt64 = 1_000_003
        let scalars = passwords.map { Array($0.unicodeScalars).map { UInt64($0.value) } }
        for (i, p) in passwords.enumerated() {
            let letters: String
            if p.utf8.allSatisfy({ $0 < 0x80 }) {
                letters = String(decoding: p.utf8.compactMap { b -> UInt8? in
                    b >= 65 && b <= 90 ? b + 32 : (b >= 97 && b <= 122 ? b : nil)
                }, as: UTF8.self)
            } else {
                letters = String(p.lowercased().filter(\.isLetter))
            }
            if letters.count >= 4 {
                if let j = byLetters[letters] { union(i, j) } else { byLetters[letters] = i }
            }
            let c = scalars[i]
            let n = c.count
            guard n >= 6 else { continue }
            var prefix = [UInt64](repeating: 0, count: n + 1)
            var power = [UInt64](repeating: 1, count: n + 1)
            for k in 0..<n {
                prefix[k + 1] = prefix[k] &* base &+ c[k] &+ 1
                power[k + 1] = power[k] &* base
            }
            func hash(_ from: Int, _ to: Int) -> UInt64 { prefix[to] &- prefix[from] &* power[to - from] }
            // The whole string, tagged by its length, and each deletion (tagged by length − 1).
            byDeletion[hash(0, n) ^ UInt64(n) << 56, default: []].append(Int32(i))
            for k in 0..<n {
                let variant = hash(0, k) &* power[n - k - 1] &+ hash(k + 1, n)
                byDeletion[variant ^ UInt64(n - 1) << 56, default: []].append(Int32(i))
            }
        }
        for (_, members) in byDeletion where members.count > 1 {
            let distinct = Array(Set(members))
            for a in distinct.indices {
                for b in distinct.indices where b > a && find(Int(distinct[a])) != find(Int(distinct[b])) {
                    if EditDistance.bounded(passwords[Int(distinct[a])], passwords[Int(distinct[b])], limit: 1) != nil { union(Int(distinct[a]), Int(distinct[b])) }
                }
            }
        }
        var groups = [Int: [String]]()
        for i in passwords.indices { groups[find(i), default: []].append(passwords[i]) }
        return groups.values.filter { $0.count > 1 }.map { $0.sorted() }.sorted { $0[0] < $1[0] }
    }

    /// Saved domains that look like another saved or well-known domain: equal confusable skeletons
    /// (homoglyphs, punycode), or one edit apart in a name of 5+ letters with the same public suffix.
    static func lookalikes(logins: [Item], sites: [String: [(host: String, domain: String?, url: String)]], input: SecurityCheckInput) -> [(String, [String: String])] {
        var saved = [String: [String]]()  // registrable domain → item ids
        for login in logins { for d in Set((sites[login.id] ?? []).compactMap(\.domain)) { saved[d, default: []].append(login.id) } }
        var known = Set(saved.keys)
        for site in input.twoFactor.sites { for d in site.domains { if let r = input.domains.registrableDomain(d) { known.insert(r) } } }
        for b in input.breaches.breaches { if let r = input.domains.registrableDomain(b.domain) { known.insert(r) } }
        func split(_ d: String) -> (name: String, suffix: String) {
            guard let dot = d.firstIndex(of: ".") else { return (d, "") }
            return (String(d[..<dot]), String(d[dot...]))
        }
        var bySkeleton = [String: [String]]()
        var byDeletion = [String: [String]]()
        var skeletons = [String: String](minimumCapacity: known.count)
        for d in known {
            let skeleton = input.domains.skeleton(input.domains.unicodeHost(d))
            skeletons[d] = skeleton
            bySkeleton[skeleton, default: []].append(d)
            let (name, suffix) = split(d)
            guard name.count >= 5, !name.contains("xn--") else { continue }
            let chars = Array(name)
            byDeletion[name + suffix, default: []].append(d)
            for k in chars.indices {
                var c = chars
                c.remove(at: k)
                byDeletion[String(c) + suffix, default: []].append(d)
            }
        }
        var out = [(String, [String: String])]()
        var reported = Set<String>()
        for (domain, ids) in saved.sorted(by: { $0.key < $1.key }) {
            let unicode = input.domains.unicodeHost(domain)
            var twin = bySkeleton[skeletons[domain] ?? input.domains.skeleton(unicode), default: []].first { $0 != domain }
            var reason = "same"
            if twin == nil {
                let (name, suffix) = split(domain)
                if name.count >= 5 {
                    let chars = Array(name)
                    var keys = [name + suffix]
                    for k in chars.indices { var c = chars; c.remove(at: k); keys.append(String(c) + suffix) }
                    twin = keys.flatMap { byDeletion[$0] ?? [] }.first { other in
                        other != domain && EditDistance.bounded(split(other).name, name, limit: 1) != nil
                    }
                    reason = "edit"
                }
            }
            guard let twin else { continue }
            for id in ids where reported.insert(id + domain).inserted {
                out.append((id, ["domain": unicode, "other": input.domains.unicodeHost(twin), "reason": reason]))
            }
        }
        return out
    }

    /// The last day an item is valid: a card's expiry month (its last day) or a document's expiry date.
    static func expiryDate(_ item: Item) -> Date? {
        guard let field = item.fields.first(where: { $0.key == "expiry" && !$0.value.isEmpty }) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = field.value.split(separator: "-").compactMap { Int($0) }
        if field.kind == .monthYear, parts.count == 2 {
            guard let start = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: 1)),
                let next = calendar.date(byAdding: .month, value: 1, to: start)
            else { return nil }
            return next.addingTimeInterval(-1)
        }
        guard parts.count == 3, let day = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])) else { return nil }
        return day.addingTimeInterval(86_399)
    }

    /// "YYYY-MM-DD" in UTC (gmtime_r: a DateFormatter per call cost more than the whole check).
    static func dayString(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
    }
}
