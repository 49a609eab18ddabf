import Foundation

extension SecurityCheck {
    /// The score: every login is worth 100/M points and loses the weights of its open findings, at most all
    /// of them; a capped login's loss is shared among its kinds in proportion to their weights. `owners` says
    /// which login each finding is on (−1: not a login).
    static func score(_ sorted: (findings: [Finding], owners: [Int32]), logins: CheckedLogins, lastBreachCheck: Date?) -> SecurityReport {
        let (findings, owners) = sorted
        let m = logins.items.count
        // The kinds that count against each login, as bits in `FindingKind.order`, so a login's distinct kinds
        // come out in list order.
        var kindsOf = [UInt32](repeating: 0, count: m)
        for (f, owner) in zip(findings, owners) where owner >= 0 && !f.isDismissed && f.kind.countsAgainstScore {
            kindsOf[Int(owner)] |= 1 << UInt32(f.kind.order)
        }
        var deductions = [FindingKind: Double]()
        var gains = [(login: Int, suggestion: SecurityReport.FixSuggestion)]()
        var lost = 0.0
        var atRisk = 0, reused = 0, weak = 0, secure = m, other = 0
        let riskBits: UInt32 = 1 << UInt32(FindingKind.breachedPassword.order) | 1 << UInt32(FindingKind.breachedWebsite.order)
        for (i, bits) in kindsOf.enumerated() where bits != 0 {
            let kinds = FindingKind.allCases.filter { bits & 1 << UInt32($0.order) != 0 }
            let total = kinds.reduce(0) { $0 + $1.weight }
            let loss = min(1, total)
            lost += loss
            for kind in kinds { deductions[kind, default: 0] += 100 / Double(m) * loss * kind.weight / total }
            gains.append((i, .init(itemID: logins.items[i].id, kinds: kinds, points: (100 / Double(m) * loss * 10).rounded() / 10)))
            secure -= 1
            if bits & riskBits != 0 { atRisk += 1 }
            if bits & 1 << UInt32(FindingKind.reused.order) != 0 { reused += 1 }
            if bits & 1 << UInt32(FindingKind.weak.order) != 0 { weak += 1 }
            if bits & (riskBits | 1 << UInt32(FindingKind.reused.order) | 1 << UInt32(FindingKind.weak.order)) == 0 { other += 1 }
        }
        let score = m == 0 ? 100 : Int((100 * (1 - lost / Double(m))).rounded())
        let rating: SecurityReport.Rating =
            switch score {
            case 90...: .excellent
            case 70..<90: .good
            case 50..<70: .roomForImprovement
            default: .atRisk
            }
        var report = SecurityReport(
            findings: findings, loginCount: m, secureLoginCount: secure, score: score, rating: rating,
            deductions: deductions.mapValues { ($0 * 10).rounded() / 10 },
            tiles: .init(atRisk: atRisk, reused: reused, weak: weak, secure: secure),
            fixFirst: fixFirst(gains, logins: logins), lastBreachCheck: lastBreachCheck)
        report.notSecure = gains.sorted {
            $0.suggestion.points == $1.suggestion.points ? logins.items[$0.login].title < logins.items[$1.login].title : $0.suggestion.points > $1.suggestion.points
        }.map(\.suggestion)
        report.otherLogins = other
        return report
    }

    /// The five largest gains, ties by title (then login order), selected without sorting every login.
    static func fixFirst(_ gains: [(login: Int, suggestion: SecurityReport.FixSuggestion)], logins: CheckedLogins) -> [SecurityReport.FixSuggestion] {
        func before(_ a: (login: Int, suggestion: SecurityReport.FixSuggestion), _ b: (login: Int, suggestion: SecurityReport.FixSuggestion)) -> Bool {
            a.suggestion.points == b.suggestion.points ? logins.items[a.login].title < logins.items[b.login].title : a.suggestion.points > b.suggestion.points
        }
        var first = [(login: Int, suggestion: SecurityReport.FixSuggestion)]()
        for gain in gains where first.count < 5 || before(gain, first[first.count - 1]) {
            first.insert(gain, at: first.firstIndex { before(gain, $0) } ?? first.count)
            if first.count > 5 { first.removeLast() }
        }
        return first.map(\.suggestion)
    }
}
