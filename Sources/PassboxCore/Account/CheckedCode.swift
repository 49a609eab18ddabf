import PassboxCrypto

/// Crockford base32 with one check character: the written form of the Secret Key and the recovery code.
///
/// Input is forgiving the Crockford way: any case, and O reads as 0, I and L as 1; spaces and dashes are
/// dropped before a code reaches here. The check character is `Σ vᵢ·αⁱ⁺¹` over GF(32) (α a root of
/// x⁵ + x² + 1), which catches every single mistyped character and every swap of two neighbours — a
/// checksum for typos, not a cryptographic check (the key derivation and sign-in are what authenticate).
enum CheckedCode {
    /// The 32 characters, in value order.
    static let alphabet: [UInt8] = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    /// The value of one typed character, or nil when it is not one of the alphabet's (after O → 0, I/L → 1).
    static func value(of character: UInt8) -> UInt8? {
        var c = character
        if c >= UInt8(ascii: "a"), c <= UInt8(ascii: "z") { c -= 32 }
        switch c {
        case UInt8(ascii: "O"): return 0
        case UInt8(ascii: "I"), UInt8(ascii: "L"): return 1
        default: return alphabet.firstIndex(of: c).map(UInt8.init)
        }
    }

    /// `bytes` as `count` characters' values, big-endian, with the leading pad bits zero.
    static func values(of bytes: UnsafeRawBufferPointer, count: Int) -> [UInt8] {
        precondition(count * 5 >= bytes.count * 8, "too few characters for the bytes")
        var out = [UInt8](repeating: 0, count: count)
        var accumulator = 0
        var bits = count * 5 - bytes.count * 8  // the pad bits at the front, all zero
        var index = 0
        for byte in bytes {
            accumulator = (accumulator << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                out[index] = UInt8((accumulator >> bits) & 31)
                index += 1
            }
            accumulator &= (1 << bits) - 1
        }
        precondition(index == count, "character count does not match")
        return out
    }

    /// The bytes that `values` hold, or nil when a pad bit at the front is set (so the code was mistyped).
    static func bytes(of values: ArraySlice<UInt8>, byteCount: Int) -> [UInt8]? {
        let padBits = values.count * 5 - byteCount * 8
        precondition(padBits >= 0 && padBits < 5, "character count does not match")
        guard let first = values.first, first >> (5 - padBits) == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(byteCount)
        var accumulator = 0
        var bits = -padBits
        for value in values {
            accumulator = ((accumulator << 5) | Int(value)) & 0xFFF
            bits += 5
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((accumulator >> bits) & 0xFF))
            }
        }
        return out
    }

    /// The check character's value over `values`.
    static func checkValue(_ values: ArraySlice<UInt8>) -> UInt8 {
        var sum: UInt8 = 0
        var power: UInt8 = 2  // α
        for value in values {
            sum ^= multiply(value, power)
            power = multiply(power, 2)
        }
        return sum
    }

    /// Multiplication in GF(32) modulo x⁵ + x² + 1.
    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        var a = a, b = b, product: UInt8 = 0
        while b != 0 {
            if b & 1 != 0 { product ^= a }
            b >>= 1
            a <<= 1
            if a & 0x20 != 0 { a ^= 0x25 }
        }
        return product
    }

    /// The values of the characters after `version` in `text` (its letter and digits), the check character
    /// verified and kept last. Errors say precisely what is wrong, so the user can fix the one character.
    static func parse(_ text: String, version: String, bodyLength: Int) throws(TypedCodeError) -> [UInt8] {
        var compact = compacted(text)
        defer { ConstantTime.wipe(&compact) }
        guard !compact.isEmpty else { throw .empty }
        // The version (a letter and a digit) is read first, so a newer code says so rather than "mistyped".
        // Its digit is read as forgivingly as the rest (an l or I for the 1).
        let letter = Array(version.utf8)[0]
        guard compact.count >= 2, compact[0] & 0xDF == letter, let digit = value(of: compact[1]), digit < 10 else {
            throw .missingVersion(expected: version)
        }
        let found = String(decoding: [letter, UInt8(ascii: "0") + digit], as: UTF8.self)
        guard found == version else { throw .unknownVersion(found) }
        let digitsEnd = 2
        var values: [UInt8] = []
        values.reserveCapacity(compact.count - digitsEnd)
        for (offset, character) in compact[digitsEnd...].enumerated() {
            guard let value = value(of: character) else {
                ConstantTime.wipe(&values)
                // Only a character outside the alphabet is named, and it is not part of any secret.
                throw .invalidCharacter(String(decoding: [character], as: UTF8.self), position: offset + 1)
            }
            values.append(value)
        }
        let count = values.count
        guard count == bodyLength, checkValue(values[0..<(bodyLength - 1)]) == values[bodyLength - 1] else {
            ConstantTime.wipe(&values)
            if count < bodyLength { throw .charactersMissing(bodyLength - count, after: version) }
            if count > bodyLength { throw .charactersExtra(count - bodyLength) }
            throw .mistyped
        }
        return values
    }

    /// `text` with spaces and dashes removed; the other characters stay as typed.
    static func compacted(_ text: String) -> [UInt8] {
        text.utf8.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: "\t") }
    }

    /// `values` as characters in groups of the given sizes joined by dashes.
    static func grouped(_ values: [UInt8], sizes: [Int]) -> String {
        precondition(sizes.reduce(0, +) == values.count, "group sizes must cover the code")
        var text = ""
        var start = 0
        for size in sizes {
            if start > 0 { text += "-" }
            text += String(decoding: values[start..<start + size].map { alphabet[Int($0)] }, as: UTF8.self)
            start += size
        }
        return text
    }
}
