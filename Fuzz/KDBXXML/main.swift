// Fuzz target: the XML of a KeePass file as the KDBX 3.1 reader meets it (libxml2's reader, the tree, protected
// values, Meta's compressed attachments on one inflate budget). Seeds include document type declarations,
// entities in attribute values and text, and attachment bombs (issue 28). See scripts/fuzz.sh.
import Foundation
import PassboxCrypto
@testable import PassboxInterop

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    // A document type declaration never reaches the tree.
    if let tree = try? XMLTree.parse(bytes) {
        precondition(!bytes.isEmpty, "an empty document parsed")
        _ = tree.name
    }
    guard let stream = try? StreamCipher(.salsa20, key: Hash.sha256([1, 2, 3]), nonce: [0xE8, 0x30, 0x09, 0x4B, 0x97, 0x20, 0x5D, 0x2A]) else { return 0 }
    // A small budget, so a bomb in the corpus is met quickly: what was inflated never exceeds it.
    if let database = try? KeePassXML.read(bytes, stream: stream, binaries: nil, inflateBudget: 4 << 20) {
        precondition(database.binaries.reduce(0) { $0 + $1.count } <= 4 << 20 + bytes.count, "attachments past the budget")
    }
    return 0
}
