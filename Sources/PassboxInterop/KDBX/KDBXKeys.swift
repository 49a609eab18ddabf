import Foundation
import PassboxCrypto

/// What opens a KeePass file: its password, a key file, or both (KeePass's composite key).
public struct KeePassCredentials {
    let password: SecretBytes?
    let keyFile: [UInt8]?

    /// `password` is the password's UTF-8 bytes; an empty password with a key file means "no password"
    /// (KeePass lets a file be opened by its key file alone).
    public init(password: SecretBytes?, keyFile: [UInt8]? = nil) {
        self.password = (password?.count ?? 0) == 0 && keyFile != nil ? nil : password
        self.keyFile = keyFile
    }

    /// SHA-256 over the parts' hashes: the password's SHA-256, then the key file's key.
    func compositeKey() throws -> [UInt8] {
        var parts: [UInt8] = []
        if let password { parts += password.withUnsafeBytes { Hash.sha256(Array($0)) } }
        if let keyFile { parts += try Self.keyFileKey(keyFile) }
        defer { ConstantTime.wipe(&parts) }
        return Hash.sha256(parts)
    }

    /// A key file's 32-byte key, as KeePass reads one: an XML key file (version 1.0 base64, 2.0 hex with its
    /// hash checked), 32 raw bytes, 64 hex digits, else the SHA-256 of the whole file.
    static func keyFileKey(_ file: [UInt8]) throws -> [UInt8] {
        if file.count < 64 * 1024, let text = String(bytes: file, encoding: .utf8), text.contains("<KeyFile") {
            let root = try XMLTree.parse(file)
            let version = root.child("Meta")?.child("Version")?.text.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            guard let data = root.child("Key")?.child("Data") else { throw InteropError.damaged(reason: "the key file has no key") }
            if version.hasPrefix("2.") {
                let hex = data.text.filter { !$0.isWhitespace }
                guard let key = Hex.decode(hex), key.count == 32 else { throw InteropError.damaged(reason: "the key file's key is not 32 bytes of hex") }
                if let hash = data.attributes["Hash"].flatMap(Hex.decode), hash != Array(Hash.sha256(key).prefix(4)) {
                    throw InteropError.damaged(reason: "the key file's key does not match its hash")
                }
                return key
            }
            guard let key = Data(base64Encoded: data.text.trimmingCharacters(in: .whitespacesAndNewlines)) else { throw InteropError.damaged(reason: "the key file's key is not base64") }
            return Array(key)
        }
        if file.count == 32 { return file }
        if file.count == 64, let key = Hex.decode(String(decoding: file, as: UTF8.self)) { return key }
        return Hash.sha256(file)
    }

    /// The KDF's output (the "transformed key") for a header.
    func transformedKey(_ kdf: KDBXHeader.KDF) throws -> [UInt8] {
        var composite = try compositeKey()
        defer { ConstantTime.wipe(&composite) }
        switch kdf {
        case .aes(let seed, let rounds):
            return try AESKDF.transform(composite, seed: seed, rounds: rounds)
        case .argon2(let variant, let salt, let parameters, let secret, let associatedData):
            let out = try Argon2.derive(password: composite, salt: salt, parameters: parameters, length: 32, variant: variant, secret: secret, associatedData: associatedData)
            return out.revealBytes()
        }
    }
}

/// The keys a file's master seed and transformed key give: the payload's cipher key, and (4.x) the HMAC base.
struct KDBXKeys {
    var cipherKey: [UInt8]
    var hmacBase: [UInt8]

    init(masterSeed: [UInt8], transformed: [UInt8]) {
        cipherKey = Hash.sha256(masterSeed + transformed)
        hmacBase = Hash.sha512(masterSeed + transformed + [1])
    }

    /// The HMAC key of block `index` (the header's is `UInt64.max`).
    func blockKey(_ index: UInt64) -> [UInt8] {
        Hash.sha512(LittleEndian.bytes(index) + hmacBase)
    }

    mutating func wipe() {
        ConstantTime.wipe(&cipherKey)
        ConstantTime.wipe(&hmacBase)
    }
}

enum Hex {
    static func decode(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var i = 0
        while i < digits.count {
            guard let hi = value(digits[i]), let lo = value(digits[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    private static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        case 0x61...0x66: c - 0x61 + 10
        default: nil
        }
    }
}
