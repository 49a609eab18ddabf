import Foundation

/// Hex helpers for known-answer tests.
public enum Hex {
    /// Bytes from a hex string (whitespace ignored); traps on malformed input since vectors are fixed data.
    public static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.filter { !$0.isWhitespace }.utf8)
        precondition(digits.count % 2 == 0, "odd-length hex")
        var out = [UInt8]()
        out.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            out.append(UInt8(value(digits[index]) << 4 | value(digits[index + 1])))
            index += 2
        }
        return out
    }

    /// Lower-case hex of `bytes`. A table and one buffer: `String(format: "%02x")` a byte cost seconds over the
    /// megabytes of random notes some tests make, in a debug build. The kit has its own (libsodium's is in
    /// PassboxCrypto) so that it depends on no module of the app.
    public static func string(_ bytes: [UInt8]) -> String {
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            digits.withUTF8Buffer { table in
                bytes.withUnsafeBufferPointer { input in
                    for index in 0..<input.count {
                        out[2 * index] = table[Int(input[index] >> 4)]
                        out[2 * index + 1] = table[Int(input[index] & 0x0f)]
                    }
                }
            }
            return bytes.count * 2
        }
    }

    private static func value(_ c: UInt8) -> Int {
        switch c {
        case 48...57: Int(c - 48)
        case 97...102: Int(c - 87)
        case 65...70: Int(c - 55)
        default: preconditionFailure("not a hex digit")
        }
    }
}
