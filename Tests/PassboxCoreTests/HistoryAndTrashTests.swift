import Foundation
import PassboxCore
import Testing

@Suite struct HistoryTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func vaultWithLogin(password: String = "first-password") throws -> (Vault, String) {
        var vault = Vault()
        var item = Item(category: .login, title: "Mail")
        item.setValue(password, for: "password")
        let id = try vault.add(item, now: start).id
        return (vault, id)
    }

    @Test func everySaveKeepsThePreviousVersion() throws {
        var (vault, id) = try vaultWithLogin()
        try vault.update(id: id, now: start + 10) { $0.setValue("second-password", for: "password") }
        let item = try vault.item(id: id)
        #expect(item.history.count == 1)
        #expect(item.history[0].item.password == "first-password")
        #expect(item.history[0].replacedAt == start + 10)
        #expect(item.lastChanged == start + 10)
        #expect(item.previousPasswords.map(\.value) == ["first-password"])
    }

    @Test func aSaveThatChangesNothingWritesNoVersion() throws {
        var (vault, id) = try vaultWithLogin()
        try vault.update(id: id, now: start + 10) { _ in }
        #expect(try vault.item(id: id).history.isEmpty)
    }

    @Test func restoringAVersionKeepsTheReplacedOne() throws {
        var (vault, id) = try vaultWithLogin()
        try vault.update(id: id, now: start + 10) { $0.setValue("second-password", for: "password") }
        let versionID = try vault.item(id: id).history[0].id
        try vault.restoreVersion(itemID: id, versionID: versionID, now: start + 20)
        let item = try vault.item(id: id)
        #expect(item.password == "first-password")
        #expect(item.history.count == 2)
        #expect(item.history.last?.item.password == "second-password")
        #expect(item.previousPasswords.map(\.value) == ["second-password"])
        #expect(throws: VaultError.versionNotFound("nope")) { try vault.restoreVersion(itemID: id, versionID: "nope", now: start) }
    }

    @Test func historyKeepsAtLeastFiftyAndEverythingFromTheLastYear() throws {
        var (vault, id) = try vaultWithLogin()
        // 80 saves two years ago, one a minute apart, then 10 saves in the last year.
        let old = start
        for i in 0..<80 { try vault.update(id: id, now: old + Double(i) * 60) { $0.notes = "old \(i)" } }
        let recent = old + 2 * 365 * 86_400
        for i in 0..<10 { try vault.update(id: id, now: recent + Double(i) * 86_400) { $0.notes = "new \(i)" } }
        let history = try vault.item(id: id).history
        #expect(history.count == 50)
        #expect(history.last?.item.notes == "new 8")
        // Within the last year nothing is dropped, even beyond fifty.
        var (v2, id2) = try vaultWithLogin()
        for i in 0..<70 { try v2.update(id: id2, now: start + Double(i) * 3600) { $0.notes = "n\(i)" } }
        #expect(try v2.item(id: id2).history.count == 70)
    }

    @Test func previousPasswordsAreListedOnceNewestFirst() throws {
        var (vault, id) = try vaultWithLogin(password: "a-password")
        for (i, p) in ["b-password", "a-password", "c-password"].enumerated() {
            try vault.update(id: id, now: start + Double(i + 1)) { $0.setValue(p, for: "password") }
        }
        #expect(try vault.item(id: id).previousPasswords.map(\.value) == ["a-password", "b-password"])
    }
}

@Suite struct TrashTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func trashedItemsAppearNowhereElse() throws {
        var vault = Vault()
        let id = try vault.add(Item(category: .login, title: "Gone"), now: now).id
        try vault.add(Item(category: .login, title: "Kept"), now: now)
        try vault.trash(id: id, now: now)
        #expect(vault.list().map(\.title) == ["Kept"])
        #expect(throws: VaultError.itemNotFound("Gone")) { try vault.resolve("Gone") }
        #expect(try vault.resolve("Gone", inTrash: true).id == id)
        #expect(vault.trashedItems.map(\.id) == [id])
        #expect(throws: VaultError.itemInTrash("Gone")) { try vault.update(id: id, now: now) { $0.title = "x" } }
    }

    @Test func restoreDeleteAndEmpty() throws {
        var vault = Vault()
        let a = try vault.add(Item(category: .login, title: "A"), now: now).id
        let b = try vault.add(Item(category: .login, title: "B"), now: now).id
        let c = try vault.add(Item(category: .login, title: "C"), now: now).id
        try vault.trash(id: a, now: now)
        try vault.trash(id: b, now: now)
        try vault.trash(id: c, now: now)
        try vault.restoreFromTrash(id: a)
        #expect(vault.list().map(\.title) == ["A"])
        try vault.deleteForever(id: b)
        #expect(throws: VaultError.itemNotInTrash("A")) { try vault.deleteForever(id: a) }
        #expect(vault.emptyTrash() == 1)
        #expect(vault.items.map(\.id) == [a])
        _ = c
    }

    @Test func purgeRemovesOnlyItemsTrashedMoreThanThirtyDaysAgo() throws {
        var vault = Vault()
        let old = try vault.add(Item(category: .login, title: "Old"), now: now).id
        let edge = try vault.add(Item(category: .login, title: "Edge"), now: now).id
        try vault.trash(id: old, now: now)
        try vault.trash(id: edge, now: now + 1)
        let purgeTime = now + 30 * 86_400 + 0.5
        #expect(vault.purgeTrash(now: purgeTime) == 1)
        #expect(vault.items.map(\.id) == [edge])
    }
}

@Suite struct LookupTests {
    @Test func itemsResolveByIdPrefixAndTitle() throws {
        var vault = Vault()
        let a = try vault.add(Item(category: .login, title: "Café"), now: Date())
        try vault.add(Item(category: .login, title: "Twin"), now: Date())
        try vault.add(Item(category: .secureNote, title: "twin"), now: Date())
        #expect(try vault.resolve(a.id).id == a.id)
        #expect(try vault.resolve(String(a.id.prefix(6))).id == a.id)
        #expect(try vault.resolve(String(a.id.prefix(6)).uppercased()).id == a.id)
        #expect(try vault.resolve("CAFE").id == a.id)
        #expect(try vault.resolve("Twin").category == .login)
        do {
            _ = try vault.resolve("TWIN")
        } catch VaultError.ambiguous(_, let candidates) {
            #expect(candidates.count == 2)
        }
    }

    @Test func listFiltersAndSorts() throws {
        var vault = Vault()
        let t0 = Date(timeIntervalSince1970: 1_000)
        try vault.add(Item(category: .login, title: "beta", tags: ["Work"]), now: t0)
        try vault.add(Item(category: .login, title: "Alpha", isFavorite: true), now: t0 + 1)
        try vault.add(Item(category: .secureNote, title: "gamma"), now: t0 + 2)
        #expect(vault.list().map(\.title) == ["Alpha", "beta", "gamma"])
        #expect(vault.list(sort: .za).map(\.title) == ["gamma", "beta", "Alpha"])
        #expect(vault.list(sort: .newest).map(\.title) == ["gamma", "Alpha", "beta"])
        #expect(vault.list(sort: .oldest).map(\.title) == ["beta", "Alpha", "gamma"])
        #expect(vault.list(category: .secureNote).map(\.title) == ["gamma"])
        #expect(vault.list(tag: "work").map(\.title) == ["beta"])
        #expect(vault.list(favoritesOnly: true).map(\.title) == ["Alpha"])
    }
}
