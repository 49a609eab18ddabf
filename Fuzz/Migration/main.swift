// Fuzz target: Google Authenticator export links and the protobuf inside them (PassboxCore).
import PassboxCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    _ = try? MigrationPayload.decode(link: String(decoding: bytes, as: UTF8.self))
    _ = try? MigrationPayload.decode(protobuf: bytes)
    return 0
}
