/// RFC 4648 base32, read forgivingly: case, spaces, dashes and missing padding do not matter.
public enum Base32 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    public enum DecodeError: Error, Equatable {
        /// A character outside A–Z and 2–7, with its position (1-based, in the cleaned key).
        case invalidCharacter(Character, position: Int)
        case empty
    }

    /// The key with spaces, dashes, underscores and padding removed, upper-cased.
    public static func clean(_ text: String) -> String {
        String(text.uppercased().filter { !$0.isWhitespace && $0 != "-" && $0 != "_" && $0 != "=" })
    }

    public static func decode(_ text: String) throws -> [UInt8] {
        let cleaned = clean(text)
        guard !cleaned.isEmpty else { throw DecodeError.empty }
        var out = [UInt8]()
        out.reserveCapacity(cleaned.count * 5 / 8)
        var buffer = 0
        var bits = 0
        for (i, c) in cleaned.enumerated() {
            guard let ascii = c.asciiValue, let value = alphabet.firstIndex(of: ascii) else {
                throw DecodeError.invalidCharacter(c, position: i + 1)
            }
            buffer = (buffer << 5) | value
            bits += 5
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((buffer >> bits) & 0xff))
            }
            buffer &= (1 << bits) - 1
        }
        return out
    }

    public static func encode(_ bytes: [UInt8]) -> String { encode(bytes, alphabet: alphabet) }

    /// Five bits per character from `alphabet` (32 symbols), most significant first, no padding.
    static func encode(_ bytes: [UInt8], alphabet: [UInt8]) -> String {
        var out = [UInt8]()
        var buffer = 0
        var bits = 0
        for b in bytes {
            buffer = (buffer << 8) | Int(b)
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.append(alphabet[(buffer >> bits) & 31])
            }
            buffer &= (1 << bits) - 1
        }
        if bits > 0 { out.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return String(decoding: out, as: UTF8.self)
    }
}
