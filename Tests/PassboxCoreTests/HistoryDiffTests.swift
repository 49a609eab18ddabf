import Foundation
import PassboxCore
import Testing

@Suite struct HistoryDiffTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func reportsEachChangedPartInOrder() throws {
        var old = Item(category: .login, title: "GitHub", websites: ["https://github.com"], tags: ["dev"])
        old.setValue("octocat", for: "username")
        old.setValue("old-secret", for: "password")
        var new = old
        new.title = "GitHub (work)"
        new.setValue("new-secret", for: "password")
        new.setValue("octo@example.com", for: "Recovery email")
        new.websites = ["https://github.com", "https://gist.github.com"]
        new.notes = "2FA on"
        new.isFavorite = true
        let changes = HistoryDiff.changes(from: old, to: new)
        #expect(changes == [
            .title(from: "GitHub", to: "GitHub (work)"),
            .field(label: "Password", from: "old-secret", to: "new-secret", isConcealed: true),
            .field(label: "Recovery email", from: nil, to: "octo@example.com", isConcealed: false),
            .websites(from: ["https://github.com"], to: ["https://github.com", "https://gist.github.com"]),
            .notes(from: "", to: "2FA on"),
            .favorite(isFavorite: true),
        ])
    }

    @Test func datesAndDismissalsAreNotChanges() {
        let old = Item(category: .secureNote, title: "Note")
        var new = old
        new.lastUsed = now
        new.dismissals = ["weak"]
        #expect(HistoryDiff.changes(from: old, to: new).isEmpty)
    }

    @Test func versionsAreComparedWithTheOneThatReplacedThem() throws {
        var vault = Vault()
        let id = try vault.add(Item(category: .secureNote, title: "A"), now: now).id
        try vault.update(id: id, now: now + 1) { $0.title = "B" }
        try vault.update(id: id, now: now + 2) { $0.tags = ["x"] }
        let versions = HistoryDiff.versionChanges(of: try vault.item(id: id))
        #expect(versions.map(\.changes) == [[.tags(from: [], to: ["x"])], [.title(from: "A", to: "B")]])
    }
}
