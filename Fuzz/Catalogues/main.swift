// Fuzz target: the breach catalogue and the 2FA Directory list (PassboxCore).
import Foundation
import PassboxCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    _ = try? BreachCatalog.parse(bytes)
    _ = try? TwoFactorDirectory.parse(bytes)
    return 0
}
