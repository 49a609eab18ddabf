// Fuzz target: the vault file's 128-byte header and the save journal (PassboxStore). See scripts/fuzz.sh.
@testable import PassboxStore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let header = try? VaultHeader.decode(bytes, path: "fuzz") {
        // A header that parses must write back to the same 128 bytes.
        precondition(header.encoded() == Array(bytes.prefix(VaultHeader.length)), "header does not round-trip")
    }
    _ = try? SaveJournal.read(bytes)
    return 0
}
