import Foundation
import PassboxCrypto
import PassboxTestKit
import Testing

struct HKDFVector: CustomTestStringConvertible, Sendable {
    let name: String, ikm: String, salt: String, info: String, length: Int, okm: String
    var testDescription: String { name }
}

struct HMACVector: CustomTestStringConvertible, Sendable {
    let name: String, key: String, data: String, sha256: String
    var testDescription: String { name }
}

/// RFC 5869, RFC 4231 and RFC 9106 known answers (`../shared/vectors/rfc.md`).
@Suite struct KnownAnswerTests {
    static let hkdf: [HKDFVector] = [
        .init(name: "RFC 5869 A.1", ikm: String(repeating: "0b", count: 22), salt: "000102030405060708090a0b0c", info: "f0f1f2f3f4f5f6f7f8f9", length: 42,
              okm: "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"),
        .init(name: "RFC 5869 A.2", ikm: (0x00...0x4f).map { String(format: "%02x", $0) }.joined(),
              salt: (0x60...0xaf).map { String(format: "%02x", $0) }.joined(), info: (0xb0...0xff).map { String(format: "%02x", $0) }.joined(), length: 82,
              okm: "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87"),
        .init(name: "RFC 5869 A.3", ikm: String(repeating: "0b", count: 22), salt: "", info: "", length: 42,
              okm: "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"),
    ]

    static let hmac: [HMACVector] = [
        .init(name: "RFC 4231 4.2", key: String(repeating: "0b", count: 20), data: Hex.string(Array("Hi There".utf8)),
              sha256: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        .init(name: "RFC 4231 4.3", key: Hex.string(Array("Jefe".utf8)), data: Hex.string(Array("what do ya want for nothing?".utf8)),
              sha256: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        .init(name: "RFC 4231 4.4", key: String(repeating: "aa", count: 20), data: String(repeating: "dd", count: 50),
              sha256: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        .init(name: "RFC 4231 4.7", key: String(repeating: "aa", count: 131), data: Hex.string(Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)),
              sha256: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
    ]

    @Test(arguments: hkdf) func hkdfMatchesRFC5869(_ v: HKDFVector) throws {
        let okm = try Hex.bytes(v.ikm).withUnsafeBytes {
            try HKDF.deriveKey(inputKeyMaterial: $0, salt: Hex.bytes(v.salt), info: Hex.bytes(v.info), length: v.length)
        }
        #expect(Hex.string(okm.revealBytes()) == v.okm)
    }

    @Test(arguments: hmac) func hmacMatchesRFC4231(_ v: HMACVector) {
        #expect(Hex.string(HMAC.authenticationCode(.sha256, key: Hex.bytes(v.key), message: Hex.bytes(v.data))) == v.sha256)
    }

    @Test func argon2idMatchesRFC9106() throws {
        let tag = try Argon2.derive(
            password: [UInt8](repeating: 1, count: 32), salt: [UInt8](repeating: 2, count: 16),
            parameters: Argon2Parameters(memoryKiB: 32, passes: 3, lanes: 4), length: 32,
            secret: [UInt8](repeating: 3, count: 8), associatedData: [UInt8](repeating: 4, count: 12))
        #expect(Hex.string(tag.revealBytes()) == "0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659")
    }

    @Test func argon2dMatchesRFC9106() throws {
        let tag = try Argon2.derive(
            password: [UInt8](repeating: 1, count: 32), salt: [UInt8](repeating: 2, count: 16),
            parameters: Argon2Parameters(memoryKiB: 32, passes: 3, lanes: 4), length: 32, variant: .argon2d,
            secret: [UInt8](repeating: 3, count: 8), associatedData: [UInt8](repeating: 4, count: 12))
        #expect(Hex.string(tag.revealBytes()) == "512b391b6f1162975371d30919734294f868e3be3984f3c1a13a4db9fabe4acb")
    }

    /// The libsodium path (one lane, 16-byte salt) and the libargon2 path compute the same function.
    @Test func argon2idOneLaneAgreesAcrossLibraries() throws {
        let params = Argon2Parameters(memoryKiB: 65536, passes: 2, lanes: 1)
        let salt = Array("somesalt".utf8) + Array("somesalt".utf8)
        let viaSodium = try Argon2.derive(password: Array("password".utf8), salt: salt, parameters: params)
        // A non-empty associated data is not supported by libsodium, so an empty secret with AD forces libargon2
        // only when we pass an 8-byte salt; here we compare against the published reference CLI output instead.
        let reference = try Argon2.derive(password: Array("password".utf8), salt: Array("somesalt".utf8), parameters: params)
        #expect(Hex.string(reference.revealBytes()) == "09316115d5cf24ed5a15a31a3ba326e5cf32edc24702987c02b6566f61913cf7")
        let viaReference = try Argon2.derive(password: Array("password".utf8), salt: salt, parameters: params, variant: .argon2id, secret: [], associatedData: [])
        #expect(viaSodium.isEqual(to: viaReference))
    }

    @Test func xchachaMatchesDraftAppendix() throws {
        let key = SecretBytes(copying: Hex.bytes((0x80...0x9f).map { String(format: "%02x", $0) }.joined()))
        let nonce = Hex.bytes((0x40...0x57).map { String(format: "%02x", $0) }.joined())
        let message = Array("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".utf8)
        let sealed = try XChaCha20Poly1305.seal(message, key: key, nonce: nonce, associatedData: Hex.bytes("50515253c0c1c2c3c4c5c6c7"))
        #expect(Hex.string(Array(sealed.suffix(16))) == "c0875924c1c7987947deafd8780acf49")
        #expect(Hex.string(Array(sealed.prefix(16))) == "bd6d179d3e83d43b9576579493c0e939")
    }

    @Test func ed25519MatchesRFC8032() throws {
        let key = try SigningKey(seed: SecretBytes(copying: Hex.bytes("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")))
        #expect(Hex.string(key.publicKey) == "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
        #expect(Hex.string(key.signature(for: [])) == "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
    }

    @Test func blake2bMatchesRFC7693() {
        #expect(Hex.string(Hash.blake2b(Array("abc".utf8), length: 64)) == "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923")
    }

    /// SHA-256 goes to libcrypto from 64 KiB on and stays in libsodium below: both sides of the line, and
    /// FIPS 180-2's million `a`s, give the known digests (from Python's hashlib for the patterned inputs).
    @Test(arguments: [
        (65535, "dda402a2c028f0cbbdbc5c6ebae965eed9c75f71236e7022b0386d3455d5ae2f"),
        (65536, "4b640d85ab3ba30fd02c9fc9db4a8928f416322ad27022ea58a65aaee68a4df2"),
        (1 << 20, "631b84027d6b9e52b539c4e8373622d23032dfadc64d60af87339c9037e4f769"),
    ])
    func sha256OfLargeInputsMatchesOnBothSidesOfTheLibraryLine(_ length: Int, _ digest: String) {
        #expect(Hex.string(Hash.sha256((0..<length).map { UInt8($0 % 251) })) == digest)
    }

    @Test func sha256MatchesFIPS180OnAMillionAs() {
        #expect(Hex.string(Hash.sha256([UInt8](repeating: 0x61, count: 1_000_000))) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(Hex.string(Hash.sha256(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
