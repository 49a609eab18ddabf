import PassboxCrypto
import Testing

/// ES256 for passkeys (issue 35): keys made by libcrypto sign and verify, a changed message or signature fails,
/// and bytes that are not a P-256 PKCS#8 key are refused.
@Suite struct P256Tests {
    @Test func signsAndVerifies() throws {
        let (key, point) = try P256.generate()
        #expect(point.count == 65 && point[0] == 4)
        #expect(try P256.publicPoint(of: key) == point)
        let message = Array("authenticator data and the client data's hash".utf8)
        let signature = try P256.signature(for: message, privateKey: key)
        // DER: SEQUENCE of two INTEGERs, at most 72 bytes.
        #expect(signature.first == 0x30 && (8...72).contains(signature.count))
        #expect(P256.isValidSignature(signature, for: message, publicPoint: point))
        #expect(!P256.isValidSignature(signature, for: message + [1], publicPoint: point))
        var bent = signature
        bent[bent.count - 1] ^= 1
        #expect(!P256.isValidSignature(bent, for: message, publicPoint: point))
        let (_, other) = try P256.generate()
        #expect(other != point && !P256.isValidSignature(signature, for: message, publicPoint: other))
        // ECDSA is randomised: two signatures differ, both verify.
        let second = try P256.signature(for: message, privateKey: key)
        #expect(second != signature && P256.isValidSignature(second, for: message, publicPoint: point))
        #expect(P256.subjectPublicKeyInfo(point).count == 91)
    }

    @Test func refusesWhatIsNotAP256Key() throws {
        #expect(throws: CryptoError.self) { try P256.publicPoint(of: SecretBytes(copying: [0x30, 0x03, 0x02, 0x01, 0x00])) }
        #expect(throws: CryptoError.self) { try P256.signature(for: [1], privateKey: SecretBytes(copying: [UInt8](repeating: 7, count: 100))) }
        let (key, _) = try P256.generate()
        // A key with bytes after it is refused too.
        #expect(throws: CryptoError.self) { try P256.publicPoint(of: SecretBytes(copying: key.revealBytes() + [0])) }
        #expect(!P256.isValidSignature([0x30, 0x00], for: [1], publicPoint: [UInt8](repeating: 4, count: 65)))
    }
}
