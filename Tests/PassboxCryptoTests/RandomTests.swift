import Foundation
import PassboxCrypto
import Testing

/// The two ways randomness is made in bulk (issue 30): fills over 4 KiB are ChaCha20 under a fresh random key,
/// identifiers come from a buffer libsodium refills. Neither may repeat itself, and a large fill must look
/// like noise.
struct RandomTests {
    @Test func largeFillsAreFreshEachTimeAndLookLikeNoise() {
        let a = SecureRandom.bytes(count: 1 << 20), b = SecureRandom.bytes(count: 1 << 20)
        #expect(a != b)
        #expect(a.prefix(64) != b.prefix(64), "a fresh key each time, not one stream started again")
        // Byte frequencies over a mebibyte: chi-square with 255 degrees of freedom stays far below 400 for
        // noise (p < 10⁻⁸ above it); a stream of zeros or a repeating pattern is in the millions.
        for sample in [a, b] {
            var counts = [Int](repeating: 0, count: 256)
            for byte in sample { counts[Int(byte)] += 1 }
            let expected = Double(sample.count) / 256
            let chi = counts.reduce(0.0) { $0 + pow(Double($1) - expected, 2) / expected }
            #expect(chi < 400, "chi-square \(chi)")
        }
        // Small fills still come straight from the system and differ too.
        #expect(SecureRandom.bytes(count: 32) != SecureRandom.bytes(count: 32))
    }

    @Test func identifierBytesNeverRepeatAcrossRefills() {
        var seen = Set<[UInt8]>()
        for _ in 0..<20_000 { #expect(seen.insert(IdentifierRandom.bytes(count: 16)).inserted) }
        let short = (0..<3_000).map { _ in IdentifierRandom.bytes(count: 8) }
        #expect(Set(short).count == short.count)
        #expect(IdentifierRandom.bytes(count: 0).isEmpty)
    }
}
