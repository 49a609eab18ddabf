import Foundation

extension SecurityCheck {
    /// Logins for the same account: the same registrable domain and username (case and accents ignored). A
    /// login in several such groups is reported once, with the first group its websites lead to.
    static func findDuplicateAccounts(_ logins: CheckedLogins, into findings: inout FindingList) {
        var groupOf = [String: Int]()
        var groups = [(domain: String, members: [Int])]()
        for (i, login) in logins.items.enumerated() {
            guard let user = login.username else { continue }
            let folded = TextFolding.fold(user)
            for domain in logins.domains[i] {
                let key = domain + "\u{0}" + folded
                if let g = groupOf[key] {
                    groups[g].members.append(i)
                } else {
                    groupOf[key] = groups.count
                    groups.append((domain, [i]))
                }
            }
        }
        var reported = Set<Int>()
        for group in groups where group.members.count > 1 {
            for i in group.members where reported.insert(i).inserted {
                findings.add(.duplicate, logins.items[i], ["site": group.domain, "count": String(group.members.count)])
            }
        }
    }
}
