import Foundation
import PassboxCore
import Testing

@Suite struct SearchTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func vault() throws -> Vault {
        var v = Vault()
        func add(_ title: String, _ category: PassboxCore.Category = .login, user: String = "", site: String? = nil, notes: String = "", tags: [String] = [], password: String = "", at offset: Double = 0) throws {
            var item = Item(category: category, title: title, websites: site.map { [$0] } ?? [], notes: notes, tags: tags)
            if !user.isEmpty { item.setValue(user, for: "username") }
            if !password.isEmpty { item.setValue(password, for: "password") }
            try v.add(item, now: now + offset)
        }
        try add("GitHub", user: "octocat", site: "github.com", password: "zebra-secret", at: 5)
        try add("My GitHub Enterprise", user: "corp", site: "git.example.com", at: 4)
        try add("Café Müller", user: "mueller@example.de", notes: "table by the window", at: 3)
        try add("Bank", user: "hubert", site: "bank.example", tags: ["finance"], at: 2)
        try add("Old GitLab", user: "legacy", at: 1)
        try add("Trash me", user: "github-fan", at: 0)
        try v.trash(id: v.items.last!.id, now: now)
        return v
    }

    func titles(_ v: Vault, _ hits: [SearchHit]) -> [String] {
        hits.map { hit in v.items.first { $0.id == hit.itemID }!.title }
    }

    @Test func rankingOrdersPrefixThenWordThenContainsThenFieldsThenNearMatches() throws {
        let v = try vault()
        let index = SearchIndex(vault: v)
        let hits = index.search("git")
        #expect(titles(v, hits) == ["GitHub", "My GitHub Enterprise", "Old GitLab"])
        #expect(hits.map(\.tier) == [.titlePrefix, .titleWordPrefix, .titleWordPrefix])
        #expect(titles(v, index.search("hub")) == ["GitHub", "My GitHub Enterprise", "Bank"])
        #expect(index.search("hub").map(\.tier) == [.titleContains, .titleContains, .otherField])
    }

    @Test func caseAndAccentsAreIgnored() throws {
        let v = try vault()
        let index = SearchIndex(vault: v)
        #expect(titles(v, index.search("CAFE MULLER")) == ["Café Müller"])
        #expect(titles(v, index.search("müller")) == ["Café Müller"])
    }

    @Test func typosAreForgivenByLength() throws {
        let v = try vault()
        let index = SearchIndex(vault: v)
        #expect(titles(v, index.search("gihtub")).first == "GitHub")
        #expect(index.search("gihtub").first?.tier == .nearMatch)
        #expect(titles(v, index.search("finanse")) == ["Bank"])
        // Three letters allow no edit; eight allow two.
        #expect(index.search("bnk").isEmpty)
        #expect(titles(v, index.search("entreprize")) == ["My GitHub Enterprise"])
    }

    @Test func everyWordOfAMultiWordQueryMustMatch() throws {
        let v = try vault()
        let index = SearchIndex(vault: v)
        let hits = index.search("gihtub entreprise")
        #expect(titles(v, hits) == ["My GitHub Enterprise"])
        #expect(hits.first?.tier == .nearMatch && hits.first?.edits == 2)
        #expect(titles(v, index.search("my gihtub")) == ["My GitHub Enterprise"])
        #expect(index.search("gihtub zzzzzz").isEmpty)
    }

    @Test func scopesLimitTheFields() throws {
        let v = try vault()
        let index = SearchIndex(vault: v)
        #expect(titles(v, index.search("octocat", scope: .username)) == ["GitHub"])
        #expect(index.search("octocat", scope: .name).isEmpty)
        #expect(titles(v, index.search("example.de", scope: .username)) == ["Café Müller"])
        #expect(titles(v, index.search("bank.example", scope: .website)) == ["Bank"])
        #expect(titles(v, index.search("window", scope: .notes)) == ["Café Müller"])
        #expect(index.search("window", scope: .website).isEmpty)
    }

    @Test func trashedItemsAndPasswordsNeverMatch() throws {
        let v = try vault()
        let index = SearchIndex(vault: v)
        #expect(index.search("github-fan").isEmpty)
        #expect(index.search("trash me").isEmpty)
        #expect(index.search("zebra-secret").isEmpty)
        #expect(index.search("zebra").isEmpty)
    }

    @Test func emptyQueryGivesRecentlyUsed() throws {
        var v = try vault()
        try v.markUsed(id: v.items.first { $0.title == "Bank" }!.id, now: now + 100)
        let index = SearchIndex(vault: v)
        #expect(titles(v, index.search("")).prefix(2) == ["Bank", "GitHub"])
        #expect(index.search("   ").count == 5)
    }

    @Test func editDistanceCountsTranspositionsAsOne() {
        #expect(EditDistance.bounded("gihtub", "github", limit: 2) == 1)
        #expect(EditDistance.bounded("kitten", "sitting", limit: 3) == 3)
        #expect(EditDistance.bounded("kitten", "sitting", limit: 2) == nil)
        #expect(EditDistance.bounded("", "abc", limit: 3) == 3)
        #expect(EditDistance.allowance(forQueryLength: 3) == 0)
        #expect(EditDistance.allowance(forQueryLength: 4) == 1)
        #expect(EditDistance.allowance(forQueryLength: 8) == 2)
    }
}
