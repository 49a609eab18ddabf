// Fuzz target: a KeePass 4 file's decrypted payload (inner header, protected values, XML) and the mapping of
// its entries to items (PassboxInterop). Everything before the payload is authenticated, so this is where a
// hostile file that knows its own password meets the parsers. See scripts/fuzz.sh.
import Foundation
@testable import PassboxInterop

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let database = try? KDBXFile.readPayload(bytes) {
        let plan = KeePassImport.plan(database, groupsAsVaults: size % 2 == 0, now: Date(timeIntervalSince1970: 1_800_000_000))
        // Every entry becomes an item or is counted: never more items than entries.
        func count(_ g: KeePassGroup) -> Int { g.entries.count + g.groups.reduce(0) { $0 + count($1) } }
        precondition(plan.entries.count <= count(database.root), "more items than entries")
    }
    return 0
}
