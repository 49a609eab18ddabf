import Foundation

extension SecurityCheck {
    /// Logins for the same account: the same registrable domain and username (case and accents ignored). A
    /// login in several such groups is reported once, with the first group its websites lead to.
    static func findDuplicateAccounts(_ logins: CheckedLogins, into findings: inout FindingList) {
        struct Account: Hashable {
            let domain: String
            let user: String
        }
        var groupOf = [Account: Int]()
        var groups = [(domain: String, members: [Int])]()
        for (i, fact) in logins.facts.enumerated() {
            guard let folded = fact.foldedUsername else { continue }
            for domain in fact.domains {
                let account = Account(domain: domain, user: folded)
                if let g = groupOf[account] {
                    groups[g].members.append(i)
                } else {
                    groupOf[account] = groups.count
                    groups.append((domain, [i]))
                }
            }
        }
        var reported = Set<Int>()
        for group in groups where group.members.count > 1 {
            for i in group.members where reported.insert(i).inserted {
                findings.add(.duplicate, login: i, of: logins, ["site": group.domain, "count": String(group.members.count)])
            }
        }
    }
}
