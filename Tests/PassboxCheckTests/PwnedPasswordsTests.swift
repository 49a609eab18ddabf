import Foundation
import PassboxClient
import PassboxTestKit
import Testing
import PassboxWording

/// The k-anonymity check against a local range server that serves real-format responses with padding.
@Suite struct PwnedPasswordsTests {
    @Test func onlyPrefixesLeaveAndPaddingNeverMatches() throws {
        let dir = try TemporaryDirectory()
        let breached = "password123"
        let padded = "only-in-padding-Xy7"
        let hashes = [PwnedPasswordsClient.sha1Hex(breached): 123_456, PwnedPasswordsClient.sha1Hex(padded): 0]
        let server = try RangeServer(hashes: hashes, directory: dir)
        #expect(server.port > 0)
        let passwords = [breached, padded, "Tn7yaCi$cUGKwbk9(4WK"] + (0..<20).map { "generated-\($0)" }
        let client = PwnedPasswordsClient(rangeURL: "http://127.0.0.1:\(server.port)/range")
        let counts = try client.occurrences(of: passwords)
        #expect(counts[breached] == 123_456)
        #expect(counts[padded] == 0)
        #expect(counts["Tn7yaCi$cUGKwbk9(4WK"] == 0)
        let requests = server.requests
        // Padded: the number of requests is the same for 1 or 100 distinct passwords, and every real prefix is asked.
        #expect(requests.count == PwnedPasswordsClient.requestBlock)
        let asked = Set(requests.map { String($0[0].suffix(5)) })
        #expect(Set(passwords.map { String(PwnedPasswordsClient.sha1Hex($0).prefix(5)) }).isSubset(of: asked))
        for request in requests {
            #expect(request[0].range(of: "^/range/[0-9A-F]{5}$", options: .regularExpression) != nil, "\(request[0])")
            #expect(request[1] == "true")
        }
        let logText = (try? String(contentsOf: server.log, encoding: .utf8)) ?? ""
        for p in passwords {
            #expect(!logText.contains(PwnedPasswordsClient.sha1Hex(p).dropFirst(5).prefix(10)))
            #expect(!logText.contains(p))
        }
    }

    @Test func paddingIsAFixedCountOfDistinctPrefixes() {
        for n in [0, 1, 37, 100, 101, 250] {
            let real = Set((0..<n).map { String(format: "%05X", $0 * 7919 % 0xFFFFF) })
            let padded = PwnedPasswordsClient.padded(real)
            #expect(padded.count == max(100, (n + 99) / 100 * 100), "\(n)")
            #expect(Set(padded).count == padded.count && real.isSubset(of: Set(padded)))
            #expect(padded.allSatisfy { $0.range(of: "^[0-9A-F]{5}$", options: .regularExpression) != nil })
        }
    }

    @Test func onlyHTTPSOrThisMachine() {
        #expect(PwnedPasswordsClient.isAllowed("https://api.pwnedpasswords.com/range/"))
        #expect(PwnedPasswordsClient.isAllowed("http://127.0.0.1:8999/range/"))
        #expect(PwnedPasswordsClient.isAllowed("http://localhost/range/"))
        #expect(!PwnedPasswordsClient.isAllowed("http://api.pwnedpasswords.com/range/"))
        #expect(!PwnedPasswordsClient.isAllowed("http://192.168.1.5/range/"))
        #expect(!PwnedPasswordsClient.isAllowed("ftp://example.com/"))
        let client = PwnedPasswordsClient(rangeURL: "http://example.com/range/")
        #expect(throws: PwnedPasswordsClient.CheckError.self) { try client.occurrences(of: ["x"]) }
    }

    /// A hostile or broken server cannot make the client buffer without bound.
    @Test func oversizedAnswersAreRefused() throws {
        let dir = try TemporaryDirectory()
        let server = try RangeServer(hashes: [:], directory: dir)
        do {
            _ = try HTTPGet.get("http://127.0.0.1:\(server.port)/range/ABCDE", limit: 64)
            Issue.record("expected the 64-byte limit to refuse the answer")
        } catch let e as HTTPGet.Failure {
            #expect(e.description == "the answer is larger than 64 bytes, the most accepted")
        }
        // The same server's answer within the limit is read whole.
        let answer = try HTTPGet.get("http://127.0.0.1:\(server.port)/range/ABCDE")
        #expect(answer.status == 200 && answer.body.count > 64)
    }

    @Test func offlineIsAClearError() throws {
        let client = PwnedPasswordsClient(rangeURL: "http://127.0.0.1:9/range", timeout: 3)
        do {
            _ = try client.occurrences(of: ["anything"])
            Issue.record("expected an error")
        } catch let e as PwnedPasswordsClient.CheckError {
            // Worded as the CLI words it: the reason's sentence, then breachCheckFailed's hint.
            #expect(Localization.tr("breach.\(e.reason)", .english, e.facts).contains("could not reach the range service at 127.0.0.1"))
            #expect(Localization.tr("error.breachCheckFailed.hint", .english).contains("nothing was changed"))
        }
    }
}
