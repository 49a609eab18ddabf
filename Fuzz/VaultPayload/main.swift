// Fuzz target: the vault payload and the MessagePack reader (PassboxCore).
import PassboxCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let raw = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
    if let vault = try? Vault(unpacking: raw) {
        // What was read must pack and read back to the same vault.
        let again = vault.packed().withUnsafeBytes { try? Vault(unpacking: $0) }
        precondition(again?.packed() == vault.packed(), "vault does not round-trip")
    }
    var reader = MessagePackReader(raw)
    while !reader.isAtEnd, (try? reader.readValue()) != nil {}
    return 0
}
