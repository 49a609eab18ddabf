import Foundation

extension SecurityCheck {
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
}
