import Foundation
import PassboxProtocol
import PassboxTestKit
import Testing

/// A listing's page as text rows (issue 30): what goes in comes out, whatever a title holds; a damaged
/// answer is nil, never a wrong row; an agent that answers `items` only is read the same.
struct ItemRowsTests {
    static let awkward = [
        ItemRow(id: "01hq3k5v7x9z1b3d5f7h9k1m3n", favorite: true, title: "Tab\there, line\nthere, back\\slash \\t not a tab", categoryName: "Login", summary: ""),
        ItemRow(id: "01hq3k5v7x9z1b3d5f7h9k1m3p", favorite: false, title: "", categoryName: "Kreditkarte", summary: "ends in a backslash \\"),
        ItemRow(id: "x", favorite: false, title: "Ünïcödé 🔑 \u{202E}override", categoryName: "Note", summary: "\\\\\n\n\t"),
    ]

    @Test func rowsComeBackAsTheyWent() throws {
        let text = ItemRows.encode(Self.awkward)
        #expect(text.split(separator: "\n", omittingEmptySubsequences: false).count == Self.awkward.count + 1, "one line an item: \(text.debugDescription)")
        #expect(ItemRows.decode(text) == Self.awkward)
        #expect(ItemRows.decode("") == [])
        // Through the reply's JSON, as the agent sends it.
        let reply = ItemListReply(items: [], total: 3, vaultIsEmpty: false, rows: text)
        let decoded = try ProtocolCoding.wireDecode(ItemListReply.self, from: try ProtocolCoding.encode(reply))
        #expect(decoded.itemRows() == Self.awkward)
    }

    @Test func manyRandomRowsRoundTrip() throws {
        var rng = SplitMix64(seed: 30)
        let alphabet = Array("ab \t\n\\tn1é🔑")
        func text() -> String { String((0..<Int(rng.next() % 12)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }) }
        let rows = (0..<2_000).map { _ in ItemRow(id: text(), favorite: rng.next() % 2 == 0, title: text(), categoryName: text(), summary: text()) }
        #expect(ItemRows.decode(ItemRows.encode(rows)) == rows)
    }

    @Test func damagedRowsAreRefused() {
        for damaged in ["a\tb\tc\n", "a\t1\tt\tc\ts\textra\n", "a\t\tt\tc\ts", "a\t\tt\tc\ts\n\n"] {
            #expect(ItemRows.decode(damaged) == nil, "\(damaged.debugDescription)")
        }
    }

    /// An agent that does not know `rows` answers `items`: the reader takes those.
    @Test func anAgentAnsweringItemsIsReadTheSame() {
        let summaries = Self.awkward.map {
            ItemSummary(id: $0.id, title: $0.title, category: "login", categoryName: $0.categoryName, summary: $0.summary, websites: [], tags: [], favorite: $0.favorite, created: nil, lastChanged: nil, lastUsed: nil)
        }
        #expect(ItemListReply(items: summaries, total: 3, vaultIsEmpty: false).itemRows() == Self.awkward)
    }
}
