import Foundation
import PassboxTestKit
import Testing

@testable import PassboxInterop

/// The XML reader of issue 30: the UTF-8 check reads 64 KiB windows without copying the document, and agrees
/// with the standard library's check wherever a character falls; elements a caller takes as they close leave
/// the tree, in document order.
struct XMLStreamingTests {
    @Test func theWindowedUTF8CheckAgreesWithTheWholeOne() {
        var rng = SplitMix64(seed: 3030)
        let pieces: [[UInt8]] = [Array("a".utf8), Array("é".utf8), Array("東".utf8), Array("🔑".utf8), Array("<x>".utf8)]
        for round in 0..<60 {
            // About 200 KiB of characters of one to four bytes, so characters straddle every window boundary.
            var bytes = [UInt8]()
            while bytes.count < 200_000 { bytes += pieces[Int(rng.next() % UInt64(pieces.count))] }
            #expect(XMLTree.isUTF8(bytes), "round \(round)")
            // One byte changed somewhere, often near a window boundary: the two checks agree.
            var broken = bytes
            let at = rng.next() % 2 == 0 ? Int(rng.next() % UInt64(bytes.count)) : min(bytes.count - 1, (1 + Int(rng.next() % 2)) * 65_536 - 2 + Int(rng.next() % 4))
            broken[at] = UInt8(truncatingIfNeeded: rng.next())
            #expect(XMLTree.isUTF8(broken) == (String(validating: broken, as: UTF8.self) != nil), "round \(round) at \(at)")
        }
        #expect(XMLTree.isUTF8([]))
        #expect(!XMLTree.isUTF8([0x80]))
        #expect(!XMLTree.isUTF8(Array(repeating: 0x41, count: 65_535) + [0xF0, 0x9F, 0x94]))  // cut at the end
        #expect(XMLTree.isUTF8(Array(repeating: 0x41, count: 65_535) + Array("🔑".utf8)))  // across the first boundary
    }

    @Test func elementsTakenAsTheyCloseLeaveTheTreeInDocumentOrder() throws {
        let xml = Array("<r><g><e>1</e><k>keep</k><e>2</e><g><e>3</e></g></g><e>4</e></r>".utf8)
        var seen = [String]()
        let root = try XMLTree.parse(xml) { node, path in
            seen.append(node.name + (node.name == "e" ? node.text : "") + "<" + (path.last?.name ?? "-"))
            return node.name == "e" && path.last?.name == "g"
        }
        #expect(seen == ["e1<g", "k<g", "e2<g", "e3<g", "g<g", "g<r", "e4<r", "r<-"])
        let g = try #require(root.child("g"))
        #expect(g.children.map(\.name) == ["k", "g"] && g.child("g")?.children.isEmpty == true)
        #expect(root.children.map(\.name) == ["g", "e"], "an element its caller keeps stays")
        struct Stop: Error {}
        #expect(throws: Stop.self) { try XMLTree.parse(xml) { node, _ in if node.text == "2" { throw Stop() } else { return false } } }
    }

    /// Entries are read where KeePass keeps them (KeePassFile/Root/Group/…), never from inside an entry or
    /// anywhere else; a KDBX 3.1 file whose Meta comes after Root still finds its attachments, and a reference
    /// past them is refused.
    @Test func entriesAreReadOnlyWhereKeePassKeepsThem() throws {
        func xml(ref: Int) -> [UInt8] {
            Array(
                """
                <KeePassFile><Root><Group><Name>Top</Name>\
                <Entry><String><Key>Title</Key><Value>A</Value></String>\
                <Group><Name>Inside an entry</Name><Entry><String><Key>Title</Key><Value>Hidden</Value></String></Entry></Group></Entry>\
                <Group><Name>Sub</Name><Entry><String><Key>Title</Key><Value>B</Value></String>\
                <Binary><Key>f.txt</Key><Value Ref="\(ref)"/></Binary></Entry></Group></Group>\
                <Entry><String><Key>Title</Key><Value>Outside every group</Value></String></Entry></Root>\
                <Meta><Binaries><Binary ID="0">aGk=</Binary></Binaries></Meta></KeePassFile>
                """.utf8)
        }
        let stream = try KDBXFile.innerCipher(.salsa20, key: [UInt8](repeating: 1, count: 32))
        let database = try KeePassXML.read(xml(ref: 0), stream: stream, binaries: nil)
        #expect(database.root.entries.map { $0["Title"] } == ["A"])
        #expect(database.root.groups.map(\.name) == ["Sub"])
        #expect(database.root.groups.first?.entries.map { $0["Title"] } == ["B"])
        #expect(database.root.groups.first?.entries.first?.attachments.first?.reference == 0)
        #expect(database.binaries == [Array("hi".utf8)])
        #expect(throws: InteropError.damaged(reason: "an attachment refers to nothing")) {
            _ = try KeePassXML.read(xml(ref: 1), stream: try KDBXFile.innerCipher(.salsa20, key: [UInt8](repeating: 1, count: 32)), binaries: nil)
        }
    }
}
