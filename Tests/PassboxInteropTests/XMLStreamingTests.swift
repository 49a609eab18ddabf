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
        let root = try XMLTree.parse(xml) { node, parent in
            seen.append(node.name + (node.name == "e" ? node.text : "") + "<" + (parent?.name ?? "-"))
            return node.name == "e" && parent?.name == "g"
        }
        #expect(seen == ["e1<g", "k<g", "e2<g", "e3<g", "g<g", "g<r", "e4<r", "r<-"])
        let g = try #require(root.child("g"))
        #expect(g.children.map(\.name) == ["k", "g"] && g.child("g")?.children.isEmpty == true)
        #expect(root.children.map(\.name) == ["g", "e"], "an element its caller keeps stays")
        struct Stop: Error {}
        #expect(throws: Stop.self) { try XMLTree.parse(xml) { node, _ in if node.text == "2" { throw Stop() } else { return false } } }
    }
}
