import PassboxCrypto

/// An account recovery code (security.md §4a): 128 random bits made on the device, shown once as
/// `R1-` and 27 characters in groups of 6, 6, 5, 5 and 5 (26 Crockford base32 characters and a check
/// character), read back as
/// forgivingly as a Secret Key. From it come a recovery key (which opens the recovery blob on the server) and
/// a recovery sign-in key; the server sees only the latter's public half.
public struct RecoveryCode: Sendable {
    /// The version this code writes and reads.
    public static let version = "R1"
    static let secretLength = 26, bodyLength = 27
    let secret: SecretBytes

    /// A new random code.
    public static func generate() -> RecoveryCode { RecoveryCode(secret: .generate(count: 16)) }

    init(secret: SecretBytes) { self.secret = secret }

    /// Reads a code as a user types it.
    public init(parsing text: String) throws(TypedCodeError) {
        var values = try CheckedCode.parse(text, version: Self.version, bodyLength: Self.bodyLength)
        defer { ConstantTime.wipe(&values) }
        guard var bytes = CheckedCode.bytes(of: values[0..<Self.secretLength], byteCount: 16) else { throw .mistyped }
        defer { ConstantTime.wipe(&bytes) }
        secret = SecretBytes(copying: bytes)
    }

    /// The code as it is shown once (and on the Emergency Kit if the user wants).
    public func formatted() -> String {
        var values = secret.withUnsafeBytes { CheckedCode.values(of: $0, count: Self.secretLength) }
        values.append(CheckedCode.checkValue(values[...]))
        defer { ConstantTime.wipe(&values) }
        return Self.version + "-" + CheckedCode.grouped(values, sizes: [6, 6, 5, 5, 5])
    }

    /// The key that opens the recovery blob: `HKDF(code, "passbox/v1/recovery-key")`.
    public func recoveryKey() throws -> SecretBytes {
        try HKDF.deriveKey(from: secret, salt: [], info: "passbox/v1/recovery-key")
    }

    /// The recovery sign-in key (Ed25519): `seed = HKDF(code, "passbox/v1/recovery-auth-seed")`.
    public func signInKey() throws -> SigningKey {
        try SigningKey(seed: HKDF.deriveKey(from: secret, salt: [], info: "passbox/v1/recovery-auth-seed"))
    }
}
