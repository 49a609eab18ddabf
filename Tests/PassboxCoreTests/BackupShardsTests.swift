import Foundation
import PassboxCore
import PassboxCrypto
import PassboxTestKit
import Testing

/// A backup's QR codes (G77, TR-1): Base45 as RFC 9285 gives it, and codes put together from any order,
/// with repeats and another backup's codes left out and every problem named.
@Suite struct BackupShardsTests {
    @Test func base45MatchesRFC9285() {
        for (bytes, text) in [("AB", "BB8"), ("Hello!!", "%69 VD92EX0"), ("base-45", "UJCLQE7W581"), ("ietf!", "QED8WEX0")] {
            #expect(Base45.encode(Array(bytes.utf8)) == text)
            #expect(Base45.decode(text) == Array(bytes.utf8))
        }
        #expect(Base45.decode("GGW") == nil, "65535 + 1 is above a group's range")
        #expect(Base45.decode("A") == nil && Base45.decode("ab") == nil && Base45.decode("ZZ") == nil)
        var random = SplitMix64(seed: 45)
        for n in 0..<200 {
            let bytes = (0..<n).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            #expect(Base45.decode(Base45.encode(bytes)) == bytes)
        }
    }

    func sample(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    @Test func codesComeBackInAnyOrderWithRepeatsAndAnotherBackupsCodes() throws {
        let bytes = sample(5_500)
        let codes = BackupShards.split(bytes, kind: .backup)
        #expect(codes.count == 6)
        #expect(codes.allSatisfy { $0.utf8.allSatisfy { c in Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".utf8).contains(c) } }, "QR alphanumeric only")
        let other = Array(BackupShards.split(sample(2_900, seed: 2), kind: .transfer).prefix(1))
        var random = SplitMix64(seed: 7)
        var shuffled = codes + [codes[2], codes[4]] + other + ["https://example.com"]
        for i in shuffled.indices.reversed() { shuffled.swapAt(i, Int(random.next() % UInt64(i + 1))) }
        let assembled = try BackupShards.assemble(shuffled)
        #expect(assembled.bytes == bytes && assembled.kind == .backup && assembled.total == 6)
        #expect(assembled.repeated == 2 && assembled.foreign == 1 && assembled.unrelated == 1)
    }

    @Test func missingCodesAreNamed() {
        let codes = BackupShards.split(sample(11_000), kind: .backup)
        #expect(codes.count == 12)
        var some = codes
        some.remove(at: 8)
        some.remove(at: 3)
        #expect(throws: BackupShards.ShardError.missing(numbers: [4, 9], total: 12)) { try BackupShards.assemble(some.reversed()) }
        #expect(throws: BackupShards.ShardError.none) { try BackupShards.assemble(["otpauth://totp/x?secret=AAAA"]) }
        #expect(throws: BackupShards.ShardError.none) { try BackupShards.assemble([]) }
    }

    @Test func anAlteredOrImpossibleCodeIsNamed() {
        let codes = BackupShards.split(sample(2_800), kind: .backup)
        // One character of the data changed: the code's check names it.
        var altered = Array(codes[1].utf8)
        altered[altered.count - 5] = altered[altered.count - 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(throws: BackupShards.ShardError.damaged(number: 2, total: 3)) { try BackupShards.assemble([codes[0], String(decoding: altered, as: UTF8.self), codes[2]]) }
        let parts = codes[0].split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        func with(number: String, total: String) -> String { ([parts[0], parts[1], parts[2], number, total] + parts[5...]).joined(separator: "/") }
        #expect(throws: BackupShards.ShardError.outOfRange(number: 4, total: 3)) { try BackupShards.parse(with(number: "4", total: "3")) }
        #expect(throws: BackupShards.ShardError.outOfRange(number: 0, total: 3)) { try BackupShards.parse(with(number: "0", total: "3")) }
        #expect(throws: BackupShards.ShardError.outOfRange(number: 1, total: 0)) { try BackupShards.parse(with(number: "1", total: "0")) }
        #expect(throws: BackupShards.ShardError.outOfRange(number: 1, total: 99_999_999)) { try BackupShards.parse(with(number: "1", total: "99999999")) }
        #expect(throws: BackupShards.ShardError.invalid) { try BackupShards.parse("PBK1/B/1234") }
        #expect(throws: BackupShards.ShardError.invalid) { try BackupShards.parse("PBK1/X/12345678/1/1/00000000/AA") }
        #expect((try? BackupShards.parse("hello")) == .some(nil))
    }

    /// Codes hold 940 bytes since issue 28 (large enough modules four to a page), at most 1,447 characters (a
    /// version-25 code at M); a code of 1,000, as printed before, still reads, and one of more is refused.
    @Test func codesHold940BytesAndPrintedOnesOf1000StillRead() throws {
        let codes = BackupShards.split(sample(32_768), kind: .backup)
        #expect(codes.count == 35 && codes.allSatisfy { $0.utf8.count <= 1_447 })
        func code(_ count: Int) -> String {
            let body = "B/0A1B2C3D/1/1/"
            let data = Base45.encode(sample(count))
            let check = Hash.sha256(Array((body + data).utf8)).prefix(4).map { String(format: "%02X", $0) }.joined()
            return "PBK1/" + body + check + "/" + data
        }
        #expect(try BackupShards.parse(code(1_000))?.data.count == 1_000)
        #expect(throws: BackupShards.ShardError.damaged(number: 1, total: 1)) { try BackupShards.parse(code(1_001)) }
    }

    @Test func theSameNumberWithOtherContentsIsAConflict() throws {
        let codes = BackupShards.split(sample(1_800), kind: .backup)
        // A forged code 1 with a valid check but other data, in the same set.
        let parts = codes[0].split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let body = "\(parts[1])/\(parts[2])/\(parts[3])/\(parts[4])/"
        let data = Base45.encode(Array(repeating: 7, count: 10))
        let check = Hash.sha256(Array((body + data).utf8)).prefix(4).map { String(format: "%02X", $0) }.joined()
        let forged = "PBK1/" + body + check + "/" + data
        #expect(throws: BackupShards.ShardError.conflicting(number: 1, total: 2)) { try BackupShards.assemble([codes[0], codes[1], forged]) }
    }

    /// Fuzz-style: mutations of real codes (2,000 in `make test`, 10,000 in `make fuzz`) never crash the reader;
    /// each is read, refused by name, or not ours.
    @Test func mutatedCodesNeverCrash() {
        let original = sample(2_500)
        let codes = BackupShards.split(original, kind: .transfer)
        var refused = 0
        var random = SplitMix64(seed: Soak.seed("backup code mutations", fixed: 77, variable: "PASSBOX_MUTATION_SEED"))
        let count = Soak.count(2_000, soak: 10_000)
        for _ in 0..<count {
            var text = Array(codes[Int(random.next() % UInt64(codes.count))].utf8)
            for _ in 0..<(1 + Int(random.next() % 4)) {
                let at = Int(random.next() % UInt64(text.count))
                switch random.next() % 3 {
                case 0: text[at] = UInt8(truncatingIfNeeded: random.next())
                case 1: text.remove(at: at)
                default: text.insert(UInt8(truncatingIfNeeded: random.next()), at: at)
                }
            }
            do {
                // A mutated code that still reads must be the very code it was (its check): never other bytes.
                #expect(try BackupShards.assemble([String(decoding: text, as: UTF8.self)] + codes.dropFirst()).bytes == original)
            } catch {
                refused += 1
            }
        }
        // Nine in ten or more are refused by name (the rest read as the original, or are not ours).
        #expect(refused > count * 9 / 10)
    }
}
