// Fuzz target: .env files, inject templates and passbox:// references (PassboxCore).
import PassboxCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: data == nil ? 0 : size), as: UTF8.self)
    _ = try? DotEnv.parse(text)
    // No round-trip check: a reference rendered without its original spacing can join the text before it.
    for reference in SecretTemplate(parsing: text).references { _ = try? SecretReference.parse(reference) }
    return 0
}
