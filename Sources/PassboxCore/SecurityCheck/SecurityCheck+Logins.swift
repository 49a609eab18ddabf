import Foundation

extension SecurityCheck {
    /// One saved website of a login, resolved once for every step.
    struct Site {
        /// The host in ASCII (punycode), lower-cased.
        let host: String
        /// Its registrable domain; nil for an IP address or a bare public suffix.
        let domain: String?
        /// The website as saved.
        let url: String
    }

    /// What the steps ask of one login, worked out once.
    struct LoginFacts {
        /// Its websites that have a host.
        var sites: [Site] = []
        /// The distinct registrable domains of `sites`, in order.
        var domains: [String] = []
        var password: String?
        var username: String?
        /// The username case- and accent-folded, for comparisons.
        var foldedUsername: String?
        var passwordChangedAt: Date?
        var hasOneTimeCode = false
        var hasPasskey = false
    }

    /// The logins under check (trashed items excluded) with their facts, in index-aligned arrays, and their
    /// distinct passwords.
    struct CheckedLogins {
        let items: [Item]
        let facts: [LoginFacts]
        /// Each distinct password once, in order of first use.
        let passwords: [String]
        /// For each password in `passwords`, the logins that use it, in order.
        let loginsByPassword: [[Int]]

        init(_ vault: Vault, domains analyzer: any DomainAnalyzing) {
            let logins = vault.items.filter { $0.category == .login && !$0.isTrashed }
            items = logins
            // Public Suffix List lookups are read-only, so they run on both cores; each iteration initialises
            // only its own slot, so the unsynchronised buffer is safe.
            facts = [LoginFacts](unsafeUninitializedCapacity: logins.count) { buffer, count in
                nonisolated(unsafe) let slots = buffer
                DispatchQueue.concurrentPerform(iterations: logins.count) { i in
                    (slots.baseAddress! + i).initialize(to: LoginFacts(logins[i], domains: analyzer))
                }
                count = logins.count
            }
            var indexOf = [String: Int](minimumCapacity: logins.count)
            var passwords = [String]()
            var loginsByPassword = [[Int]]()
            for (i, fact) in facts.enumerated() {
                guard let p = fact.password else { continue }
                if let k = indexOf[p] {
                    loginsByPassword[k].append(i)
                } else {
                    indexOf[p] = passwords.count
                    passwords.append(p)
                    loginsByPassword.append([i])
                }
            }
            self.passwords = passwords
            self.loginsByPassword = loginsByPassword
        }
    }
}

extension SecurityCheck.LoginFacts {
    init(_ login: Item, domains analyzer: any DomainAnalyzing) {
        for url in login.websites {
            guard let host = Validation.hostQuickly(url) else { continue }
            let ascii = analyzer.asciiHost(host) ?? host
            let domain = analyzer.registrableDomain(ascii)
            sites.append(SecurityCheck.Site(host: ascii, domain: domain, url: url))
            if let domain, !domains.contains(domain) { domains.append(domain) }
        }
        password = login.password
        username = login.username
        foldedUsername = username.map(TextFolding.fold)
        passwordChangedAt = password == nil ? nil : login.passwordChangedAt
        hasOneTimeCode = login.fields.contains { $0.kind == .otp && !$0.value.isEmpty }
        hasPasskey = !login.passkeys.isEmpty
    }
}
