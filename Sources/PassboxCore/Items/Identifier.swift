import PassboxCrypto

/// Client-generated identifiers.
public enum Identifier {
    private static let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz")

    /// A 128-bit random item id: 26 characters of lower-case Crockford base32.
    public static func generateItemID() -> String { encode(SecureRandom.bytes(count: 16), length: 26) }

    /// A 64-bit random id for fields and versions.
    public static func generateShort() -> String { encode(SecureRandom.bytes(count: 8), length: 13) }

    private static func encode(_ bytes: [UInt8], length: Int) -> String {
        var out = [Character]()
        var buffer = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.append(alphabet[(buffer >> bits) & 31])
            }
            buffer &= (1 << bits) - 1
        }
        if bits > 0 { out.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return String(out.prefix(length))
    }
}
