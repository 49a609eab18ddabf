import Foundation
import PassboxCrypto
import PassboxTestKit
import Testing

/// Every case of the Wycheproof files for the primitives Passbox uses: valid cases pass, invalid ones are
/// rejected. "acceptable" X25519 cases (low-order points) may go either way, but when accepted must agree.
@Suite struct WycheproofTests {
    func load(_ name: String) throws -> [WycheproofCase] {
        let url = try #require(Bundle.module.url(forResource: "Vectors/\(name)", withExtension: "json"))
        return try Wycheproof.cases(from: url)
    }

    @Test func xchacha20Poly1305AllCases() throws {
        let cases = try load("xchacha20_poly1305_test")
        #expect(cases.count == 315)
        for c in cases {
            let key = SecretBytes(copying: c.bytes("key"))
            let sealedExpected = c.bytes("ct") + c.bytes("tag")
            if c.isValid {
                let sealed = try XChaCha20Poly1305.seal(c.bytes("msg"), key: key, nonce: c.bytes("iv"), associatedData: c.bytes("aad"))
                #expect(sealed == sealedExpected, "\(c)")
                let opened = try XChaCha20Poly1305.open(sealedExpected, key: key, nonce: c.bytes("iv"), associatedData: c.bytes("aad"))
                #expect(opened == c.bytes("msg"), "\(c)")
            } else {
                #expect(throws: CryptoError.self, "\(c)") {
                    _ = try XChaCha20Poly1305.open(sealedExpected, key: key, nonce: c.bytes("iv"), associatedData: c.bytes("aad"))
                }
            }
        }
    }

    @Test func x25519AllCases() throws {
        let cases = try load("x25519_test")
        #expect(cases.count == 518)
        for c in cases {
            let pair = try BoxKeyPair(privateKey: SecretBytes(copying: c.bytes("private")))
            let expected = c.bytes("shared")
            if c.isValid {
                let shared = try pair.sharedSecret(with: c.bytes("public"))
                #expect(shared.revealBytes() == expected, "\(c)")
            } else {
                // "acceptable": libsodium refuses an all-zero shared secret; any other answer must be the expected one.
                if let shared = try? pair.sharedSecret(with: c.bytes("public")) {
                    #expect(shared.revealBytes() == expected, "\(c)")
                } else {
                    #expect(expected == [UInt8](repeating: 0, count: 32), "\(c)")
                }
            }
        }
    }

    @Test func ed25519AllCases() throws {
        let cases = try load("ed25519_test")
        #expect(cases.count == 151)
        for c in cases {
            let ok = SigningKey.isValidSignature(c.bytes("sig"), for: c.bytes("msg"), publicKey: c.bytes("pk"))
            #expect(ok == c.isValid, "\(c)")
        }
    }

    @Test func hkdfSha256AllCases() throws {
        let cases = try load("hkdf_sha256_test")
        #expect(cases.count == 86)
        for c in cases {
            let size = c.sizes["size"] ?? 0
            let ikm = c.bytes("ikm")
            if c.isValid {
                let okm = try ikm.withUnsafeBytes { try HKDF.deriveKey(inputKeyMaterial: $0, salt: c.bytes("salt"), info: c.bytes("info"), length: size) }
                #expect(okm.revealBytes() == c.bytes("okm"), "\(c)")
            } else {
                #expect(throws: CryptoError.self, "\(c)") {
                    _ = try ikm.withUnsafeBytes { try HKDF.deriveKey(inputKeyMaterial: $0, salt: c.bytes("salt"), info: c.bytes("info"), length: size) }
                }
            }
        }
    }

    @Test func hmacSha256AllCases() throws {
        let cases = try load("hmac_sha256_test")
        #expect(cases.count == 174)
        for c in cases {
            let ok = HMAC.isValid(c.bytes("tag"), algorithm: .sha256, key: c.bytes("key"), message: c.bytes("msg"))
            let tagBits = c.sizes["tagSize"] ?? 256
            // A tag of the group's declared size is what a verifier checks; a tag of another length is invalid.
            #expect((ok && c.bytes("tag").count * 8 == tagBits) == c.isValid, "\(c)")
        }
    }
}
