import Foundation
import PassboxCore
import PassboxCrypto
import PassboxDomains
import Testing
import PassboxWording

/// A vault built to contain every kind of finding, checked against fixed catalogues and a fixed clock.
@Suite struct SecurityCheckTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15
    static let day = 86_400.0

    static let breaches = BreachCatalog(breaches: [
        Breach(name: "Leaky", title: "Leaky", domain: "leaky.example", breachDate: now - 90 * day, addedDate: now - 60 * day, dataClasses: ["Passwords", "Email addresses"], pwnCount: 1000),
        Breach(name: "OldLeak", title: "OldLeak", domain: "oldleak.example", breachDate: now - 900 * day, addedDate: now - 800 * day, dataClasses: ["Passwords"], pwnCount: 5),
    ])
    static let twoFactor = TwoFactorDirectory(sites: [.init(name: "GitHub", domains: ["github.com"], documentation: "https://docs.github.com/2fa")])

    struct Built {
        var vault = Vault()
        var ids = [String: String]()
    }

    static func build() throws -> Built {
        var b = Built()
        func add(_ key: String, _ category: PassboxCore.Category = .login, title: String? = nil, user: String? = "user", password: String? = nil, sites: [String] = [], otp: String? = nil, expiry: String? = nil, created: Date = now - 10 * day) throws {
            var item = Item(category: category, title: title ?? key, websites: sites)
            if let user { item.setValue(user, for: "username") }
            if let password { item.setValue(password, for: "password") }
            if let otp { item.setValue(otp, for: "otp") }
            if let expiry { item.setValue(expiry, for: "expiry") }
            b.ids[key] = try b.vault.add(item, now: created).id
        }
        try add("secure", password: "Tn7yaCi$cUGKwbk9(4WK", sites: ["https://secure.example"])
        try add("weak", password: "password1", sites: ["https://weak.example"])
        try add("reusedA", password: "Reused-Pa55word-Long!", sites: ["https://a.example"])
        try add("reusedB", password: "Reused-Pa55word-Long!", sites: ["https://b.example"])
        try add("similarA", password: "Mountain#Ridge2023", sites: ["https://c.example"])
        try add("similarB", password: "Mountain#Ridge2024", sites: ["https://d.example"])
        try add("old", password: "q8R!vL2#wN7zK4@t", sites: ["https://old.example"], created: now - 400 * day)
        try add("http", password: "hT5%mP9^cX3&bJ6*", sites: ["http://plain.example"])
        try add("no2fa", password: "Zg7(kD4)sF1-yH8+", sites: ["https://github.com/login"])
        try add("both", user: "other", password: "Wb2[nM6]eR9{uA3}", sites: ["https://www.github.com"], otp: "otpauth://totp/GitHub?secret=JBSWY3DPEHPK3PXP")
        try add("breachedSite", password: "Lk4<pQ8>vT2?gY7~", sites: ["https://www.leaky.example"], created: now - 100 * day)
        try add("oldBreachOk", password: "Ob9=jC3;xE6:hU1/", sites: ["https://oldleak.example"], created: now - 100 * day)
        try add("lookalike", password: "Py3_rG7|mK2@dS5!", sites: ["https://paypa1.com"])
        try add("paypal", password: "Pl8^wZ1&nB4*fV9#", sites: ["https://paypal.com"])
        try add("dupA", user: "alice", password: "Da6%tH2$qL8!cW5?", sites: ["https://shop.example"])
        try add("dupB", user: "Alice", password: "Db1@yN9#vP3^kR7&", sites: ["https://www.shop.example"])
        try add("noSite", password: "Ns5*gJ8(bM2)zX4-")
        try add("noUser", user: nil, password: "Nu7+fK3=wD9;sQ1:", sites: ["https://nouser.example"])
        try add("expired", .creditCard, user: nil, expiry: "2026-11")
        try add("expiring", .idDocument, user: nil, expiry: "2027-02-01")
        try add("trashed", password: "password1", sites: ["http://trash.example"])
        try b.vault.trash(id: b.ids["trashed"]!, now: now)
        return b
    }

    static func report(_ vault: Vault, breachCheck: Bool = false) -> SecurityReport {
        SecurityCheck.run(SecurityCheckInput(vault: vault, now: now, breaches: breaches, twoFactor: twoFactor, domains: DomainRules.shared, breachCheckEnabled: breachCheck))
    }

    func items(_ report: SecurityReport, _ kind: FindingKind, _ b: Built) -> Set<String> {
        let names = Dictionary(uniqueKeysWithValues: b.ids.map { ($1, $0) })
        return Set(report.findings.filter { $0.kind == kind }.compactMap { names[$0.itemID] })
    }

    @Test func everyKindFindsExactlyItsItems() throws {
        let b = try Self.build()
        let r = Self.report(b.vault)
        #expect(items(r, .weak, b) == ["weak"])
        #expect(items(r, .reused, b) == ["reusedA", "reusedB"])
        #expect(items(r, .similar, b) == ["similarA", "similarB"])
        #expect(items(r, .old, b) == ["old"])
        #expect(items(r, .unsecuredWebsite, b) == ["http"])
        #expect(items(r, .missingTwoFactor, b) == ["no2fa"])
        #expect(items(r, .bothFactors, b) == ["both"])
        #expect(items(r, .breachedWebsite, b) == ["breachedSite"])
        // Both saved domains look like each other, so both logins are flagged.
        #expect(items(r, .lookalike, b) == ["lookalike", "paypal"])
        #expect(items(r, .duplicate, b) == ["dupA", "dupB"])
        #expect(items(r, .noWebsite, b) == ["noSite"])
        #expect(items(r, .noUsername, b) == ["noUser"])
        #expect(items(r, .expired, b) == ["expired"])
        #expect(items(r, .expiring, b) == ["expiring"])
        #expect(items(r, .breachedPassword, b).isEmpty)
        #expect(!r.findings.contains { $0.itemID == b.ids["trashed"] })
        let site = try #require(r.findings.first { $0.kind == .breachedWebsite })
        #expect(site.details["breach"] == "Leaky" && site.details["published"] == "2026-11-16")
        let reusedGroups = Set(r.findings.filter { $0.kind == .reused }.compactMap(\.group))
        #expect(reusedGroups.count == 1)
    }

    /// Scores kept between checks (as the agent keeps them) give the report that estimating every password
    /// gives; the memo then holds exactly the last check's passwords, and a changed password is estimated
    /// anew rather than answered from the memo.
    @Test func keptStrengthScoresGiveTheSameReport() throws {
        var b = try Self.build()
        func run(_ memo: StrengthMemo?) -> SecurityReport {
            SecurityCheck.run(
                SecurityCheckInput(
                    vault: b.vault, now: Self.now, breaches: Self.breaches, twoFactor: Self.twoFactor, domains: DomainRules.shared, breachCheckEnabled: false,
                    strengthMemo: memo))
        }
        let distinct = Set(b.vault.items.filter { $0.category == .login && !$0.isTrashed }.compactMap(\.password)).count
        let memo = StrengthMemo()
        let plain = run(nil)
        #expect(run(memo).findings == plain.findings)
        #expect(memo.count == distinct && memo.estimated == distinct)
        #expect(run(memo).findings == plain.findings)
        #expect(memo.estimated == distinct, "the second check estimated nothing: every score came from the memo")

        _ = try b.vault.update(id: b.ids["secure"]!, now: Self.now) { $0.setValue("qwerty12", for: "password") }
        let changed = run(memo)
        #expect(items(changed, .weak, b) == ["weak", "secure"])
        #expect(changed.findings == run(nil).findings)
        #expect(memo.estimated == distinct + 1, "the changed password, and only it, was estimated")
        #expect(memo.count == distinct, "the old password forgotten, the new one kept")
    }

    @Test func anImportedEntrysExpiryIsFoundOnAnyCategory() throws {
        // A KeePass entry that expires comes in as a login with an "expiry" date field (PassboxInterop).
        var vault = Vault()
        var login = Item(category: .login, title: "Rotating", websites: ["https://rotate.example"])
        login.setValue("user", for: "username")
        login.setValue("Zq8!rT3#mW6$kP1&", for: "password")
        login.fields.append(Field(key: "expiry", label: "Expires", kind: .date, value: "2026-12-31"))
        let id = try vault.add(login, now: Self.now - 10 * Self.day).id
        let r = Self.report(vault)
        #expect(r.findings.contains { $0.kind == .expired && $0.itemID == id && $0.details["expiry"] == "2026-12-31" })
    }

    @Test func aDocumentsExpiryIsChecked() throws {
        // LB-14: a Document (its template has an expiry date) past or near its expiry is found.
        var vault = Vault()
        var passport = Item(category: .document, title: "Passport scan")
        #expect(passport.fields.map(\.key) == ["expiry"])
        passport.setValue("2027-02-01", for: "expiry")
        var lease = Item(category: .document, title: "Lease")
        lease.setValue("2026-12-31", for: "expiry")
        let kept = Item(category: .document, title: "Birth certificate")
        let ids = try [passport, lease, kept].map { try vault.add($0, now: Self.now - 10 * Self.day).id }
        let r = Self.report(vault)
        #expect(r.findings.contains { $0.kind == .expiring && $0.itemID == ids[0] })
        #expect(r.findings.contains { $0.kind == .expired && $0.itemID == ids[1] })
        #expect(!r.findings.contains { $0.itemID == ids[2] })
    }

    @Test func similarityRule() {
        #expect(SecurityCheck.similarGroups(["Summer2023!", "Summer2024!", "unrelated-thing"]) == [["Summer2023!", "Summer2024!"]])
        #expect(SecurityCheck.similarGroups(["tiger", "tigre"]).isEmpty)  // under 6 characters and different letters
        #expect(SecurityCheck.similarGroups(["Cat4!xx", "cAt9?XX"]) == [["Cat4!xx", "cAt9?XX"]])  // same letters, case folded
        #expect(SecurityCheck.similarGroups(["abcdefgh", "abcdefhg"]) == [["abcdefgh", "abcdefhg"]])  // a swap is one edit
        #expect(SecurityCheck.similarGroups(["Tn7yaCi$cUGKwbk9(4WK", "kT9#mQ2!xL7@pR4zzzz"]).isEmpty)
    }

    @Test func scoreFormula() throws {
        // Four logins: one secure, one weak (0.6), one reused with another (0.6 each).
        var vault = Vault()
        for (title, password, site) in [("A", "Tn7yaCi$cUGKwbk9(4WK", "a"), ("B", "password1", "b"), ("C", "Same-Str0ng-Pa55word!", "c"), ("D", "Same-Str0ng-Pa55word!", "d")] {
            var item = Item(category: .login, title: title, websites: ["https://\(site).example"])
            item.setValue("u", for: "username")
            item.setValue(password, for: "password")
            try vault.add(item, now: Self.now)
        }
        let r = Self.report(vault)
        // Each login is worth 25 points; B, C and D lose 0.6 of theirs: 100 − 3 × 15 = 55.
        #expect(r.score == 55)
        #expect(r.rating == .roomForImprovement)
        #expect(r.secureLoginCount == 1 && r.loginCount == 4)
        #expect(r.deductions[.weak] == 15 && r.deductions[.reused] == 30)
        #expect(r.tiles == .init(atRisk: 0, reused: 2, weak: 1, secure: 1))
        #expect(r.fixFirst.map(\.points) == [15, 15, 15])
        // Dismissing the weak finding gives its points back; the finding stays listed as dismissed.
        let weak = vault.items.first { $0.title == "B" }!.id
        try vault.setDismissed("weak", true, itemID: weak)
        let after = Self.report(vault)
        #expect(after.score == 70 && after.rating == .good)
        #expect(after.findings.contains { $0.kind == .weak && $0.isDismissed })
    }

    @Test func aLoginLosesAtMostItsShare() throws {
        var vault = Vault()
        var item = Item(category: .login, title: "Everything wrong", websites: ["http://github.com"])
        item.setValue("password1", for: "password")
        try vault.add(item, now: Self.now - 500 * Self.day)
        let r = Self.report(vault)
        #expect(r.score == 0 && r.rating == .atRisk)
        let deducted: Double = r.deductions.values.reduce(0, +)
        #expect(abs(deducted - 100) < 0.5)
        #expect(Self.report(Vault()).score == 100)
    }

    @Test func breachedPasswordsCountOnlyWhenOnAndForThePasswordChecked() throws {
        var b = try Self.build()
        let id = b.ids["secure"]!
        let index = b.vault.items.firstIndex { $0.id == id }!
        b.vault.items[index].passwordBreach = PasswordBreachMark(checkedAt: Self.now, occurrences: 12, fingerprint: SecurityCheck.fingerprint("Tn7yaCi$cUGKwbk9(4WK"))
        #expect(items(Self.report(b.vault, breachCheck: true), .breachedPassword, b) == ["secure"])
        #expect(items(Self.report(b.vault, breachCheck: false), .breachedPassword, b).isEmpty)
        b.vault.items[index].setValue("A-new-Str0ng-Passw0rd!", for: "password")
        #expect(items(Self.report(b.vault, breachCheck: true), .breachedPassword, b).isEmpty)
    }

    @Test func shippedCataloguesParse() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let breaches = try BreachCatalog.parse(Data(contentsOf: root.appendingPathComponent("Sources/PassboxService/Data/hibp-breaches.json")))
        let sites = try TwoFactorDirectory.parse(Data(contentsOf: root.appendingPathComponent("Sources/PassboxService/Data/2fa-directory-totp.json")))
        #expect(breaches.breaches.count > 700 && breaches.breaches.count < 875)
        // Its dates as UTC instants: Adobe's breach on 4 October 2013, published 4 December 2013 at midnight.
        let adobe = try #require(breaches.breaches.first { $0.name == "Adobe" })
        #expect(adobe.breachDate == Date(timeIntervalSince1970: 1_380_844_800))
        #expect(adobe.addedDate == Date(timeIntervalSince1970: 1_386_115_200))
        let dated = try BreachCatalog.parse(Data(#"[{"Name":"T","Domain":"t.example","AddedDate":"2024-02-29T23:59:58Z","BreachDate":"2024-02-29"},{"Name":"U","Domain":"u.example","AddedDate":"29.02.2024","BreachDate":"2024-02-29"},{"Name":"V","Domain":"v.example","AddedDate":"2024-03-01T00:00:00Z","BreachDate":"soon"}]"#.utf8))
        #expect(dated.breaches.map(\.name) == ["T", "V"])
        #expect(dated.breaches.first?.addedDate == Date(timeIntervalSince1970: 1_709_251_198))
        #expect(dated.breaches.first?.breachDate == Date(timeIntervalSince1970: 1_709_164_800))
        #expect(dated.breaches.last?.breachDate == nil)
        #expect(sites.sites.count == 845)
        #expect(sites.sites.contains { $0.name == "1&1 IONOS" })
        #expect(throws: ValidationError.self) { try BreachCatalog.parse(Data("{}".utf8)) }
        #expect(throws: ValidationError.self) { try TwoFactorDirectory.parse(Data("nonsense".utf8)) }
        let passkeys = try PasskeyDirectory.parse(Data(contentsOf: root.appendingPathComponent("Sources/PassboxService/Data/passkey-directory.json")))
        #expect(passkeys.sites.count == 258 && passkeys.sites.filter(\.signIn).count == 120)
        #expect(passkeys.sites.first { $0.name == "GitHub" }?.domains == ["github.com"])
        #expect(throws: ValidationError.self) { try PasskeyDirectory.parse(Data("{}".utf8)) }
    }

    /// A login on a site the Passkeys Directory lists, without a passkey, gets the informational finding with the
    /// site's name, how the site takes passkeys and its documentation; one that holds a passkey does not; the
    /// score, tiles and secure count do not move.
    @Test func passkeysAvailableIsInformational() throws {
        var b = try Self.build()
        let sites = PasskeyDirectory(sites: [
            .init(name: "GitHub", domains: ["github.com"], documentation: "https://docs.github.com/passkeys", signIn: true),
            .init(name: "Shop", domains: ["shop.example"], documentation: nil, signIn: false),
        ])
        func run() -> SecurityReport {
            SecurityCheck.run(
                SecurityCheckInput(vault: b.vault, now: Self.now, breaches: Self.breaches, twoFactor: Self.twoFactor, domains: DomainRules.shared, breachCheckEnabled: false, passkeySites: sites))
        }
        let without = Self.report(b.vault)
        let r = run()
        #expect(items(r, .passkeyAvailable, b) == ["no2fa", "both", "dupA", "dupB"])
        let github = try #require(r.findings.first { $0.kind == .passkeyAvailable && $0.itemID == b.ids["no2fa"] })
        #expect(github.details == ["site": "GitHub", "use": "signIn", "documentation": "https://docs.github.com/passkeys"])
        #expect(r.findings.first { $0.kind == .passkeyAvailable && $0.itemID == b.ids["dupA"] }?.details == ["site": "Shop", "use": "secondFactor"])
        #expect(r.score == without.score && r.secureLoginCount == without.secureLoginCount && r.tiles == without.tiles && r.deductions == without.deductions)
        // A passkey in the login: no finding for it.
        let (key, _) = try P256.generate()
        try b.vault.update(id: b.ids["no2fa"]!, now: Self.now) {
            $0.passkeys = [Passkey(credentialID: [1], relyingParty: "github.com", userHandle: [2], userName: "user", displayName: "", privateKey: key.revealBytes(), created: Self.now)]
        }
        #expect(items(run(), .passkeyAvailable, b) == ["both", "dupA", "dupB"])
    }

    @Test func everyFindingHasTextsInBothLanguages() {
        for kind in FindingKind.allCases {
            for language in Language.allCases {
                #expect(Localization.tr("check.kind.\(kind.rawValue).title", language) != "check.kind.\(kind.rawValue).title")
                #expect(Localization.tr("check.kind.\(kind.rawValue).advice", language) != "check.kind.\(kind.rawValue).advice")
            }
        }
    }
}

@Suite struct LookalikeTests {
    func report(_ sites: [String], known: [String]) throws -> [Finding] {
        var vault = Vault()
        for (i, site) in sites.enumerated() {
            var item = Item(category: .login, title: "L\(i)", websites: [site])
            item.setValue("u\(i)", for: "username")
            item.setValue("Zq\(i)!xV8#mK3@pL6", for: "password")
            try vault.add(item, now: SecurityCheckTests.now)
        }
        let directory = TwoFactorDirectory(sites: known.map { .init(name: $0, domains: [$0], documentation: nil) })
        return SecurityCheck.run(SecurityCheckInput(vault: vault, now: SecurityCheckTests.now, breaches: BreachCatalog(breaches: []), twoFactor: directory, domains: DomainRules.shared, breachCheckEnabled: false))
            .findings.filter { $0.kind == .lookalike }
    }

    @Test func oneLetterFromAWellKnownDomain() throws {
        let found = try report(["https://gooogle.com"], known: ["google.com"])
        #expect(found.count == 1)
        #expect(found.first?.details["other"] == "google.com" && found.first?.details["reason"] == "edit")
    }

    @Test func punycodeHomoglyphs() throws {
        // "аpple.com" with a Cyrillic а, saved in its punycode form.
        let found = try report(["https://xn--pple-43d.com"], known: ["apple.com"])
        #expect(found.count == 1)
        #expect(found.first?.details["domain"] == "\u{0430}pple.com" && found.first?.details["reason"] == "same")
    }

    @Test func differentSuffixesAndShortNamesAreNotLookalikes() throws {
        #expect(try report(["https://apple.de"], known: ["apple.com"]).isEmpty)
        #expect(try report(["https://abc.com"], known: ["abd.com"]).isEmpty)
        #expect(try report(["https://example.org"], known: ["google.com"]).isEmpty)
    }
}
