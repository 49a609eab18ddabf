import Foundation
import PassboxCore
import PassboxTestKit
import Testing

/// A search index kept up to date with `upsert` and `remove` answers exactly as one built afresh.
@Suite struct SearchIndexUpdateTests {
    static let words = ["GitHub", "Bank", "Café", "Müller", "mail", "shop", "work", "account", "service", "Enterprise", "octocat", "gihtub", "exampel", "tiger"]
    static let queries = ["", "git", "gihtub", "bank", "cafe", "muller", "mail", "shop", "work", "acount", "sevrice", "enterprise", "example", "octo", "user1", "tag", "notes", "ti", "gihtub acount", "my shop"]

    static func randomItem(_ rng: inout SplitMix64, id: String? = nil) -> Item {
        func pick() -> String { words[Int.random(in: 0..<words.count, using: &rng)] }
        var item = Item(id: id ?? Identifier.generateItemID(), category: Bool.random(using: &rng) ? .login : .secureNote, title: "\(pick()) \(pick())")
        if item.category == .login {
            item.setValue("user\(Int.random(in: 0..<20, using: &rng))@\(pick().lowercased()).example", for: "username")
            item.setValue("secret-\(pick())", for: "password")
            item.websites = ["https://\(pick().lowercased()).example/login"]
        }
        if Bool.random(using: &rng) { item.tags = [pick().lowercased()] }
        if Bool.random(using: &rng) { item.notes = "notes about \(pick())" }
        return item
    }

    func expectSameAnswers(_ kept: SearchIndex, _ vault: Vault, _ step: Int) {
        let fresh = SearchIndex(vault: vault)
        #expect(kept.count == fresh.count, "step \(step)")
        for query in Self.queries {
            for scope in SearchScope.allCases {
                for limit in [3, 50] {
                    #expect(kept.search(query, scope: scope, limit: limit) == fresh.search(query, scope: scope, limit: limit), "step \(step): \(query) in \(scope)")
                }
            }
        }
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func randomEditsGiveTheAnswersOfAFreshIndex(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        var vault = Vault()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for _ in 0..<40 { try vault.add(Self.randomItem(&rng), now: start) }
        var kept = SearchIndex(vault: vault)
        for step in 1...300 {
            let now = start.addingTimeInterval(Double(step % 7) * 60)
            let active = vault.activeItems
            switch Int.random(in: 0..<10, using: &rng) {
            case 0...2:
                kept.upsert(try vault.add(Self.randomItem(&rng), now: now))
            case 3...5 where !active.isEmpty:
                let target = active[Int.random(in: 0..<active.count, using: &rng)]
                let replacement = Self.randomItem(&rng, id: target.id)
                kept.upsert(try vault.update(id: target.id, now: now) { $0 = replacement })
            case 6 where !active.isEmpty:
                let target = active[Int.random(in: 0..<active.count, using: &rng)]
                try vault.trash(id: target.id, now: now)
                kept.upsert(try vault.item(id: target.id))
            case 7 where !vault.trashedItems.isEmpty:
                let target = vault.trashedItems[0]
                try vault.restoreFromTrash(id: target.id)
                kept.upsert(try vault.item(id: target.id))
            case 8 where !active.isEmpty:
                let target = active[Int.random(in: 0..<active.count, using: &rng)]
                try vault.markUsed(id: target.id, now: now.addingTimeInterval(30))
                kept.upsert(try vault.item(id: target.id))
            case 9 where !vault.trashedItems.isEmpty:
                let target = vault.trashedItems[0]
                try vault.deleteForever(id: target.id)
                kept.remove(id: target.id)
            default:
                break
            }
            if step % 25 == 0 { expectSameAnswers(kept, vault, step) }
        }
        expectSameAnswers(kept, vault, 300)
    }

    @Test func compactionKeepsEveryAnswer() throws {
        // More than 1,024 updates empty more slots than there are items, which compacts the index.
        var rng = SplitMix64(seed: 9)
        var vault = Vault()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for _ in 0..<30 { try vault.add(Self.randomItem(&rng), now: now) }
        var kept = SearchIndex(vault: vault)
        for round in 0..<1_200 {
            let target = vault.items[round % vault.items.count]
            let replacement = Self.randomItem(&rng, id: target.id)
            kept.upsert(try vault.update(id: target.id, now: now) { $0 = replacement })
        }
        expectSameAnswers(kept, vault, 1_200)
    }

    @Test func removingAnUnknownIDChangesNothing() throws {
        var vault = Vault()
        try vault.add(Item(category: .login, title: "GitHub"), now: Date())
        var kept = SearchIndex(vault: vault)
        kept.remove(id: "no-such-id")
        #expect(kept.count == 1)
        #expect(kept.search("git").count == 1)
        var empty = SearchIndex()
        empty.upsert(vault.items[0])
        #expect(empty.search("github").map(\.itemID) == [vault.items[0].id])
    }
}
