import PassboxCrypto

/// Client-generated identifiers.
public enum Identifier {
    private static let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz".utf8)

    /// A 128-bit random item id: 26 characters of lower-case Crockford base32 (`IdentifierRandom`: ids are not
    /// secrets, and an import makes thousands).
    public static func generateItemID() -> String { String(Base32.encode(IdentifierRandom.bytes(count: 16), alphabet: alphabet).prefix(26)) }

    /// A 64-bit random id for fields and versions.
    public static func generateShort() -> String { String(Base32.encode(IdentifierRandom.bytes(count: 8), alphabet: alphabet).prefix(13)) }
}
