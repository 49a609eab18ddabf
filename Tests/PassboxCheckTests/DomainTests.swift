import Foundation
import PassboxCore
import PassboxDomains
import Testing

@Suite struct DomainTests {
    let rules = DomainRules.shared

    @Test func registrableDomainsUseTheFullPublicSuffixList() {
        #expect(rules.registrableDomain("www.example.co.uk") == "example.co.uk")
        #expect(rules.registrableDomain("other.co.uk") == "other.co.uk")
        #expect(rules.registrableDomain("a.b.github.io") == "b.github.io")
        #expect(rules.registrableDomain("login.Example.COM.") == "example.com")
        #expect(rules.registrableDomain("co.uk") == nil)
        #expect(rules.registrableDomain("192.168.1.10") == nil)
    }

    @Test func internationalNamesAreNormalised() {
        #expect(rules.asciiHost("Bücher.de") == "xn--bcher-kva.de")
        #expect(rules.unicodeHost("xn--bcher-kva.de") == "bücher.de")
        #expect(rules.registrableDomain("shop.bücher.de") == "xn--bcher-kva.de")
    }

    @Test func confusablesShareASkeleton() {
        let cyrillic = "\u{0440}\u{0430}\u{0443}\u{0440}\u{0430}l.com"  // "раураl.com"
        #expect(rules.skeleton(cyrillic) == rules.skeleton("paypal.com"))
        #expect(rules.skeleton("paypa1.com") == rules.skeleton("paypal.com"))
        #expect(rules.skeleton("example.com") != rules.skeleton("exarnple.org"))
    }

    @Test func fillCandidatesNeverCrossRegistrableDomains() throws {
        var vault = Vault()
        let now = Date()
        func login(_ title: String, _ site: String) throws -> String {
            try vault.add(Item(category: .login, title: title, websites: [site]), now: now).id
        }
        let exact = try login("Exact", "https://login.example.co.uk")
        let same = try login("Same", "https://www.example.co.uk")
        _ = try login("Other", "https://other.co.uk")
        let gone = try login("Gone", "https://login.example.co.uk/x")
        try vault.trash(id: gone, now: now)
        let candidates = CredentialMatcher.candidates(for: "https://login.example.co.uk/signin", in: vault, domains: rules)
        #expect(candidates.map(\.itemID) == [exact, same])
        #expect(candidates.map(\.match) == [.exactHost, .sameDomain])
        #expect(CredentialMatcher.candidates(for: "https://evil.example", in: vault, domains: rules).isEmpty)
        #expect(!CredentialMatcher.fits(try vault.item(id: same), "https://other.co.uk", domains: rules))
    }
}
