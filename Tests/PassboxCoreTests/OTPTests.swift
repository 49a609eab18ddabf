import Foundation
import PassboxCore
import PassboxWording
import PassboxCrypto
import PassboxTestKit
import Testing

struct TOTPVector: CustomTestStringConvertible, Sendable {
    let time: UInt64, algorithm: HMAC.Algorithm, code: String
    var testDescription: String { "\(time) \(algorithm.rawValue)" }
}

@Suite struct OTPTests {
    static let rfc4226 = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"]

    @Test func hotpMatchesRFC4226AppendixD() {
        let p = OTPParameters(kind: .hotp, secret: Array("12345678901234567890".utf8))
        #expect((0..<10).map { p.code(counter: UInt64($0)) } == OTPTests.rfc4226)
    }

    static let rfc6238: [TOTPVector] = [
        .init(time: 59, algorithm: .sha1, code: "94287082"), .init(time: 59, algorithm: .sha256, code: "46119246"), .init(time: 59, algorithm: .sha512, code: "90693936"),
        .init(time: 1_111_111_109, algorithm: .sha1, code: "07081804"), .init(time: 1_111_111_109, algorithm: .sha256, code: "68084774"), .init(time: 1_111_111_109, algorithm: .sha512, code: "25091201"),
        .init(time: 1_111_111_111, algorithm: .sha1, code: "14050471"), .init(time: 1_111_111_111, algorithm: .sha256, code: "67062674"), .init(time: 1_111_111_111, algorithm: .sha512, code: "99943326"),
        .init(time: 1_234_567_890, algorithm: .sha1, code: "89005924"), .init(time: 1_234_567_890, algorithm: .sha256, code: "91819424"), .init(time: 1_234_567_890, algorithm: .sha512, code: "93441116"),
        .init(time: 2_000_000_000, algorithm: .sha1, code: "69279037"), .init(time: 2_000_000_000, algorithm: .sha256, code: "90698825"), .init(time: 2_000_000_000, algorithm: .sha512, code: "38618901"),
        .init(time: 20_000_000_000, algorithm: .sha1, code: "65353130"), .init(time: 20_000_000_000, algorithm: .sha256, code: "77737706"), .init(time: 20_000_000_000, algorithm: .sha512, code: "47863826"),
    ]

    @Test(arguments: rfc6238) func totpMatchesRFC6238AppendixB(_ v: TOTPVector) throws {
        let seed: String =
            switch v.algorithm {
            case .sha1: "12345678901234567890"
            case .sha256: "12345678901234567890123456789012"
            case .sha512: "1234567890123456789012345678901234567890123456789012345678901234"
            }
        let p = OTPParameters(secret: Array(seed.utf8), algorithm: v.algorithm, digits: 8)
        #expect(try p.currentCode(at: Date(timeIntervalSince1970: Double(v.time))).code == v.code)
    }

    @Test func base32IsForgiving() throws {
        let key = try Base32.decode("jbsw y3dp-ehpk 3pxp")
        #expect(key == Array("Hello!\u{de}\u{ad}\u{be}\u{ef}".unicodeScalars.map { UInt8($0.value) }))
        #expect(try Base32.decode("JBSWY3DPEHPK3PXP====") == key)
        #expect(Base32.encode(key) == "JBSWY3DPEHPK3PXP")
    }

    @Test func problemsAreExplainedBeforeSaving() {
        func message(_ text: String) -> String {
            // Worded as every surface words it: from the reason and its facts.
            do { _ = try OTPInput.parse(text); return "accepted" } catch let e as ValidationError { return Localization.tr("invalid.\(e.reason)", .english, e.facts) } catch { return "\(error)" }
        }
        #expect(message("123456").contains("look like a one-time code"))
        #expect(message("JBSWY3DPEHPK3PX1").contains("\"1\" at position 16"))
        #expect(message("JBSWY3DP").contains("only 40 bits"))
        #expect(message("otpauth://totp/X?secret=JBSWY3DPEHPK3PXP&period=0").contains("period of 0"))
        #expect(message("otpauth://totp/X?secret=JBSWY3DPEHPK3PXP&algorithm=MD5").contains("MD5"))
        #expect(message("otpauth://totp/X?secret=JBSWY3DPEHPK3PXP&digits=10").contains("10-digit"))
        #expect(message("otpauth://totp/X?issuer=Y").contains("no secret"))
        #expect(message("otpauth://hotp/X?secret=JBSWY3DPEHPK3PXP").contains("no counter"))
        #expect(message("otpauth://hotp/X?secret=JBSWY3DPEHPK3PXP&counter=99999999999999999999").contains("does not fit"))
        #expect(message("otpauth://steam/X?secret=JBSWY3DPEHPK3PXP").contains("not supported"))
        #expect(message("otpauth-migration://offline?data=AA").contains("Google Authenticator"))
        #expect(message("JBSWY3DPEHPK3PXP") == "accepted")
    }

    @Test func otpauthLinksRoundTrip() throws {
        let p = try OTPInput.parse("otpauth://totp/ACME%20Co:john.doe@email.com?secret=HXDMVJECJJWSRB3HWIZR4IFUGFTMXBOZ&issuer=ACME%20Co&algorithm=SHA256&digits=8&period=60")
        #expect(p.issuer == "ACME Co")
        #expect(p.account == "john.doe@email.com")
        #expect(p.algorithm == .sha256 && p.digits == 8 && p.period == 60)
        #expect(try OTPInput.parse(p.uri) == p)
        let h = try OTPInput.parse("otpauth://hotp/Bank:bob?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&counter=5")
        #expect(h.kind == .hotp && h.counter == 5 && h.issuer == "Bank")
        #expect(try OTPInput.parse(h.uri) == h)
    }

    @Test func periodsAndCountersAtTheirLimits() throws {
        var p = OTPParameters(secret: Array("12345678901234567890".utf8), period: OTPParameters.maximumPeriod)
        #expect(throws: Never.self) { try p.validate() }
        p.period = OTPParameters.maximumPeriod + 1
        #expect(throws: ValidationError.self) { try p.validate() }
        // The largest counter leaves room for the next one as a signed 64-bit number; anything above it (up to
        // 2^64 - 2, which a link or an export may carry) is refused with the reason, never trapped on.
        var h = OTPParameters(kind: .hotp, secret: Array("12345678901234567890".utf8), counter: OTPParameters.maximumCounter)
        #expect(throws: Never.self) { try h.validate() }
        #expect(OTPParameters.maximumCounter + 1 == UInt64(Int64.max))
        for counter in [OTPParameters.maximumCounter + 1, UInt64(Int64.max) + 1, UInt64.max - 1, UInt64.max] {
            h.counter = counter
            #expect(throws: ValidationError.self) { try h.validate() }
            #expect(throws: ValidationError.self) { try OTPInput.parse("otpauth://hotp/Bank:me?secret=GEZDGNBVGY3TQOJQ&counter=\(counter)") }
        }
        #expect(throws: ValidationError.self) { _ = try OTPParameters(secret: Array("12345678901234567890".utf8)).currentCode(at: Date(timeIntervalSince1970: -10)) }
    }

    @Test func secondsLeftCountsDown() throws {
        let p = OTPParameters(secret: Array("12345678901234567890".utf8))
        #expect(try p.currentCode(at: Date(timeIntervalSince1970: 60)).secondsLeft == 30)
        #expect(try p.currentCode(at: Date(timeIntervalSince1970: 89)).secondsLeft == 1)
    }

    @Test func googleAuthenticatorExportDecodes() throws {
        let link = "otpauth-migration://offline?data=Ci4KCkhlbGxvId6tvu8SEWFsaWNlQGV4YW1wbGUuY29tGgdFeGFtcGxlIAEoATACCioKFDEyMzQ1Njc4OTAxMjM0NTY3ODkwEghCYW5rOmJvYhoAIAIoAjABOAUQARgBIAAouWA%3D"
        let payload = try MigrationPayload.decode(link: link)
        #expect(payload.accounts.count == 2)
        let a = payload.accounts[0]
        #expect(a.issuer == "Example" && a.account == "alice@example.com" && a.kind == .totp && a.digits == 6 && a.algorithm == .sha1)
        #expect(Base32.encode(a.secret) == "JBSWY3DPEHPK3PXP")
        let b = payload.accounts[1]
        #expect(b.issuer == "Bank" && b.account == "bob" && b.kind == .hotp && b.counter == 5 && b.digits == 8 && b.algorithm == .sha256)
        #expect(throws: ValidationError.self) { try MigrationPayload.decode(link: "otpauth-migration://offline?data=Ci4K") }
        #expect(throws: ValidationError.self) { try MigrationPayload.decode(link: "https://example.com") }
    }

    /// Found by the Migration fuzz target: protobuf writes a negative int32 as a 10-byte varint, which did not
    /// fit in an Int and stopped the process. It is read as the int32 it is.
    @Test func exportWithNegativeBatchNumbersDecodes() throws {
        let minusOne: [UInt8] = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]
        let payload = try MigrationPayload.decode(protobuf: [0x18] + minusOne + [0x20] + minusOne)
        #expect(payload.batchSize == -1 && payload.batchIndex == -1 && payload.accounts.isEmpty)
        // The fuzzer's input: an unknown field 110, version 16, then batch_index as a 10-byte varint whose low
        // 32 bits are 0xffffff8a.
        let found: [UInt8] = [0xf0, 0x06, 0x22, 0x10, 0x10, 0x20, 0x8a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x5b]
        #expect(try MigrationPayload.decode(protobuf: found).batchIndex == -118)
    }

    /// Thousands of random secrets, times and settings against oathtool, an independent implementation.
    @Test func codesAgreeWithOathtool() throws {
        guard let oathtool = ["/usr/bin/oathtool", "/usr/local/bin/oathtool"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            Issue.record("oathtool is not installed (Debian package oathtool; make test installs it)")
            return
        }
        var compared = 0
        for round in 0..<120 {
            let secret = SecureRandom.bytes(count: [10, 16, 20, 32, 64][round % 5])
            let algorithm = HMAC.Algorithm.allCases[round % 3]
            let digits = 6 + round % 3
            let period = UInt64([30, 60, 1, 15, 86_400, 300][round % 6])
            let time = UInt64(SecureRandom.uniform(UInt32.max))
            let window = 30
            let p = OTPParameters(secret: secret, algorithm: algorithm, digits: digits, period: period)
            let result = try Transcript.execute(oathtool, ["--totp=\(algorithm.rawValue)", "-d", "\(digits)", "-s", "\(period)s", "-N", "@\(time)", "-w", "\(window)", Hex.string(secret)], stdin: [], environment: ["TZ": "UTC"])
            let theirs = result.stdout.split(separator: "\n").map(String.init)
            let step = time / period
            let ours = (0...UInt64(window)).map { p.code(counter: step + $0) }
            #expect(theirs == ours, "secret \(Hex.string(secret)) \(algorithm) \(digits) digits, period \(period), time \(time): \(result.stderr)")
            compared += ours.count
            // HOTP (oathtool supports SHA-1 HOTP) at a random counter.
            let counter = UInt64(SecureRandom.uniform(UInt32.max)) << 8
            let hotp = OTPParameters(kind: .hotp, secret: secret, digits: digits, counter: counter)
            let h = try Transcript.execute(oathtool, ["-c", "\(counter)", "-d", "\(digits)", "-w", "9", Hex.string(secret)], stdin: [], environment: [:])
            let hotpLines: [String] = h.stdout.split(separator: "\n").map(String.init)
            let hotpOurs: [String] = (0...9).map { (n: Int) -> String in hotp.code(counter: counter + UInt64(n)) }
            #expect(hotpLines == hotpOurs)
            compared += 10
        }
        #expect(compared > 4000)
    }
}
