// Fuzz target: setup keys, otpauth links and base32 (PassboxCore).
import Foundation
import PassboxCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: data == nil ? 0 : size), as: UTF8.self)
    // What was read is not checked against its canonical link read back: a label with broken percent-escapes
    // (kept as written) reads back differently, which changes nothing that is stored.
    if let parameters = try? OTPInput.parse(text) {
        _ = parameters.uri
        // What the agent does with a parsed code: compute it, and advance an HOTP counter as `code` does. A
        // counter past what Passbox counts to must be refused by parse, never trap here (issue 28).
        _ = try? parameters.currentCode(at: Date(timeIntervalSince1970: 1_800_000_000))
        if parameters.kind == .hotp {
            precondition(parameters.counter <= OTPParameters.maximumCounter, "a counter past the largest was accepted")
            _ = Int(parameters.counter + 1)
        }
    }
    _ = try? OTPInput.parseURI(text)
    // One character is only 5 bits and decodes to no byte at all, which encodes back to nothing.
    if let secret = try? Base32.decode(text), !secret.isEmpty {
        precondition((try? Base32.decode(Base32.encode(secret))) == secret, "base32 does not round-trip")
    }
    return 0
}
