import PassboxCrypto
import PassboxTestKit
import Testing

@Suite struct EnvelopeTests {
    let key = SecretBytes.generate(count: 32)

    @Test func roundTripsWithAssociatedData() throws {
        let sealed = try Envelope.seal(Array("secret".utf8), key: key, associatedData: Array("passbox/v1/item|a".utf8))
        #expect(sealed.count == Envelope.overhead + 6)
        #expect(sealed[0] == 1)
        #expect(try Envelope.open(sealed, key: key, associatedData: Array("passbox/v1/item|a".utf8)) == Array("secret".utf8))
    }

    @Test func sealingInPlaceEqualsSealing() throws {
        let key = SecretBytes.generate(count: 32)
        let nonce = SecureRandom.bytes(count: XChaCha20Poly1305.nonceLength)
        for count in [0, 1, 1000, 70_000] {
            let plain = SecureRandom.bytes(count: count)
            let sealed = try XChaCha20Poly1305.seal(plain, key: key, nonce: nonce, associatedData: [7, 8])
            var buffer = plain + [UInt8](repeating: 0, count: XChaCha20Poly1305.tagLength)
            try buffer.withUnsafeMutableBytes { try XChaCha20Poly1305.sealInPlace($0, key: key, nonce: nonce, associatedData: [7, 8]) }
            #expect(buffer == sealed)
        }
    }

    @Test func valueMovedToAnotherPlaceFailsToOpen() throws {
        let sealed = try Envelope.seal(Array("secret".utf8), key: key, associatedData: Array("passbox/v1/item|a".utf8))
        #expect(throws: CryptoError.authenticationFailed) {
            _ = try Envelope.open(sealed, key: key, associatedData: Array("passbox/v1/item|b".utf8))
        }
    }

    @Test func everyFlippedByteFailsToOpen() throws {
        let ad = Array("ad".utf8)
        let sealed = try Envelope.seal(Array("0123456789".utf8), key: key, associatedData: ad)
        for index in 1..<sealed.count {
            var copy = sealed
            copy[index] ^= 0x01
            #expect(throws: CryptoError.authenticationFailed) { _ = try Envelope.open(copy, key: key, associatedData: ad) }
        }
    }

    @Test func unknownVersionSaysSo() throws {
        var sealed = try Envelope.seal([1, 2, 3], key: key, associatedData: [])
        sealed[0] = 2
        #expect(throws: CryptoError.unsupportedVersion(2)) { _ = try Envelope.open(sealed, key: key, associatedData: []) }
    }

    @Test func wrongKeyIsAuthenticationFailure() throws {
        let sealed = try Envelope.seal([1, 2, 3], key: key, associatedData: [])
        #expect(throws: CryptoError.authenticationFailed) {
            _ = try Envelope.open(sealed, key: SecretBytes.generate(count: 32), associatedData: [])
        }
    }

    @Test func truncatedEnvelopeFails() throws {
        let sealed = try Envelope.seal([1, 2, 3], key: key, associatedData: [])
        #expect(throws: CryptoError.authenticationFailed) { _ = try Envelope.open(Array(sealed.prefix(20)), key: key, associatedData: []) }
    }

    @Test func secretBytesNeverPrintTheirContents() {
        let secret = SecretBytes(copying: Array("hunter2hunter2".utf8))
        #expect(String(describing: secret) == "SecretBytes(14 bytes, redacted)")
        #expect(!String(reflecting: secret).contains("hunter"))
        #expect(Mirror(reflecting: secret).children.isEmpty)
    }

    @Test func secretBytesCompareInConstantTimeByValue() {
        #expect(SecretBytes(copying: [1, 2, 3]).isEqual(to: SecretBytes(copying: [1, 2, 3])))
        #expect(!SecretBytes(copying: [1, 2, 3]).isEqual(to: SecretBytes(copying: [1, 2, 4])))
        #expect(!SecretBytes(copying: [1, 2, 3]).isEqual(to: SecretBytes(copying: [1, 2])))
    }

    @Test func sealedBoxRoundTripsAndRejectsOthers() throws {
        let alice = try BoxKeyPair.generate()
        let sealed = try BoxKeyPair.seal(Array("vault key".utf8), to: alice.publicKey)
        #expect(try alice.open(sealed: sealed).revealBytes() == Array("vault key".utf8))
        #expect(throws: CryptoError.authenticationFailed) { _ = try BoxKeyPair.generate().open(sealed: sealed) }
    }

    @Test func coreDumpsCanBeTurnedOff() {
        ProcessHardening.disableCoreDumps()
        #expect(!ProcessHardening.isDumpable)
    }

    @Test func hmacSha1AndSha512HaveTheirLengths() {
        #expect(HMAC.authenticationCode(.sha1, key: [1], message: [2]).count == 20)
        #expect(HMAC.authenticationCode(.sha512, key: [1], message: [2]).count == 64)
        #expect(Hex.string(Hash.sha1(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
    }
}
