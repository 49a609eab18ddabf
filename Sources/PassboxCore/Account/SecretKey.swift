import PassboxCrypto

/// The account's Secret Key (security.md §4): 128 random bits made on the first device, never sent to the
/// server, mixed into every key the master password makes.
///
/// Written like `P1-CC4DNE-0Y4E10-4N2VWZ-FX8TN-M810Q-13480` (the tests' fixture): the version `P1`, a
/// six-character account id, the secret as 26 Crockford base32 characters (two leading zero bits) and one
/// check character over the id and the secret. Reading is forgiving (case, spaces, dashes, O for 0, I or L for 1) and precise about what is
/// wrong, so a mistyped key is caught on the device before any network call.
public struct SecretKey: Sendable {
    /// The version this code writes and reads.
    public static let version = "P1"
    /// Characters of the account id, of the secret, and in all after the version (id, secret, check).
    static let idLength = 6, secretLength = 26, bodyLength = 33

    /// The six-character account id (Crockford base32, upper case), the salt of the Secret Key's HKDF step.
    public let accountID: String
    /// The 16 secret bytes, in locked memory.
    let secret: SecretBytes

    /// A new random key.
    public static func generate() -> SecretKey {
        let id = (0..<idLength).map { _ in UInt8(SecureRandom.uniform(32)) }
        return SecretKey(idValues: id, secret: .generate(count: 16))
    }

    /// A new random secret for an existing account id (an account recovery makes a new Secret Key and keeps
    /// the account's id). Nil when `accountID` is not six Crockford base32 characters.
    public static func generate(accountID: String) -> SecretKey? {
        let values = accountID.utf8.compactMap { CheckedCode.value(of: $0) }
        guard accountID.utf8.count == idLength, values.count == idLength else { return nil }
        return SecretKey(idValues: values, secret: .generate(count: 16))
    }

    init(idValues: [UInt8], secret: SecretBytes) {
        accountID = String(decoding: idValues.map { CheckedCode.alphabet[Int($0)] }, as: UTF8.self)
        self.secret = secret
    }

    /// Reads a key as a user types or pastes it.
    public init(parsing text: String) throws(TypedCodeError) {
        var values = try CheckedCode.parse(text, version: Self.version, bodyLength: Self.bodyLength)
        defer { ConstantTime.wipe(&values) }
        guard var secretBytes = CheckedCode.bytes(of: values[Self.idLength..<(Self.idLength + Self.secretLength)], byteCount: 16)
        else { throw .mistyped }
        defer { ConstantTime.wipe(&secretBytes) }
        self.init(idValues: Array(values[0..<Self.idLength]), secret: SecretBytes(copying: secretBytes))
    }

    /// The key as it is shown and printed on the Emergency Kit, in groups that never split the version or id.
    /// Revealed only to show the user their own key (sign-up, the kit, `account --show-secret-key`).
    public func formatted() -> String {
        var values = accountID.utf8.map { CheckedCode.value(of: $0)! }
        var secretValues = secret.withUnsafeBytes { CheckedCode.values(of: $0, count: Self.secretLength) }
        values += secretValues
        values.append(CheckedCode.checkValue(values[...]))
        defer { ConstantTime.wipe(&values); ConstantTime.wipe(&secretValues) }
        return Self.version + "-" + CheckedCode.grouped(values, sizes: [6, 6, 6, 5, 5, 5])
    }

    /// The last four characters of the written key (the user types them to confirm the kit is kept).
    public func lastFour() -> String { String(formatted().suffix(4)) }

    /// `s = HKDF(SecretKey, salt = accountID, info = "passbox/v1/secret-key")` (security.md §4).
    func derivedSecret() throws -> SecretBytes {
        try HKDF.deriveKey(from: secret, salt: Array(accountID.utf8), info: "passbox/v1/secret-key")
    }

    /// Whether two keys are the same key (constant time over the secret).
    public func isSameKey(as other: SecretKey) -> Bool {
        accountID == other.accountID && secret.isEqual(to: other.secret)
    }
}

/// What is wrong with a typed Secret Key or recovery code, as facts; each surface words it.
public enum TypedCodeError: Error, Equatable, Sendable {
    /// Nothing was typed.
    case empty
    /// It does not start with its version (`P1` for a Secret Key, `R1` for a recovery code).
    case missingVersion(expected: String)
    /// A version this Passbox does not know (a newer one may).
    case unknownVersion(String)
    /// A character that cannot be in the code, at its position after the version (1-based).
    case invalidCharacter(String, position: Int)
    /// This many characters are missing after the version.
    case charactersMissing(Int, after: String)
    /// This many characters too many.
    case charactersExtra(Int)
    /// Every character is valid but the check character does not match: something is mistyped.
    case mistyped
}
