// Fuzz target: Google Authenticator export links and the protobuf inside them (PassboxCore).
import Foundation
import PassboxCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    _ = try? MigrationPayload.decode(link: String(decoding: bytes, as: UTF8.self))
    // Every account an export yields can have its code computed and its counter advanced (issue 28: a counter
    // of 2^64 - 2 once trapped where codes are computed).
    for p in (try? MigrationPayload.decode(protobuf: bytes).accounts) ?? [] {
        _ = try? p.currentCode(at: Date(timeIntervalSince1970: 1_800_000_000))
        if p.kind == .hotp { _ = Int(p.counter + 1) }
    }
    return 0
}
