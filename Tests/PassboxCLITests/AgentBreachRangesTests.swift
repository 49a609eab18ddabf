import Foundation
import PassboxClient
import PassboxProtocol
import PassboxTestKit
import Testing

/// `breach-ranges`, the web page's breach check through the agent (issue 34, SEC-4/SEC-17): the agent fetches
/// exactly the prefixes it is given (the page pads them), with padding asked of the service, only while the
/// opt-in is on, and refuses what is not a prefix.
@Suite struct AgentBreachRangesTests {
    /// The operations these tests send (AgentOperationTests counts every operation as sent somewhere).
    static let operations: Set<OperationName> = [.breachRanges]

    @Test func theBreachRangesAreFetchedOnlyWhenOnAndExactlyAsAsked() throws {
        let dir = try TemporaryDirectory()
        let breached = "password123"
        let digest = PwnedPasswordsClient.sha1Hex(breached)
        let server = try RangeServer(hashes: [digest: 4_242], directory: dir)
        let agent = try RealAgent()
        try agent.unlock()
        _ = try agent.add("login", ItemChanges(title: "Forum", secretFields: [FieldAssignment(label: "password", value: breached)]))
        _ = try agent.send(.changeSetting(SettingRequest(name: "range-url", value: "http://127.0.0.1:\(server.port)/range/"))).settings()

        // Off: nothing is asked.
        #expect(try agent.failure(Request(Operations.breachRanges, BreachRangesRequest(prefixes: [String(digest.prefix(5))]))).code == .breachCheckOff)
        #expect(server.requests.isEmpty)

        _ = try agent.send(.changeSetting(SettingRequest(name: "breach-check", value: "on"))).settings()
        let asked = [String(digest.prefix(5))] + PwnedPasswordsClient.padded([]).prefix(9)
        let reply = try agent.send(Request(Operations.breachRanges, BreachRangesRequest(prefixes: asked)))
        let ranges = try #require(RangesReply.from(reply)).ranges
        #expect(Set(ranges.keys) == Set(asked))
        // Cut to the vault's own hashes: the breached password's line alone, and nothing of the other ranges.
        #expect(ranges[String(digest.prefix(5))] == "\(digest.dropFirst(5)):4242", "\(ranges[String(digest.prefix(5))] ?? "")")
        #expect(asked.dropFirst().allSatisfy { ranges[$0] == "" })
        // Exactly the ten, each once, each asking for padding.
        #expect(server.requests.map { String($0[0].suffix(5)) }.sorted() == asked.sorted())
        #expect(server.requests.allSatisfy { $0[1] == "true" })

        // Not a prefix, or too many at once: refused before anything is asked.
        let before = server.requests.count
        for bad in [["12345/../x"], ["ABCDEF"], ["GHIJK"], (0..<101).map { String(format: "%05X", $0) }] {
            #expect(try agent.failure(Request(Operations.breachRanges, BreachRangesRequest(prefixes: bad))).code == .badRequest, "\(bad.prefix(2))")
        }
        #expect(server.requests.count == before)

        // A service that cannot be reached is a clear failure, not an empty answer.
        _ = try agent.send(.changeSetting(SettingRequest(name: "range-url", value: "http://127.0.0.1:9/range/"))).settings()
        let unreachable = try agent.failure(Request(Operations.breachRanges, BreachRangesRequest(prefixes: asked)))
        #expect(unreachable.code == .breachCheckFailed && unreachable.facts["problem"] != nil)

        // Locked: refused as every vault operation is.
        _ = try agent.send(.lock(LockRequest()))
        #expect(try agent.failure(Request(Operations.breachRanges, BreachRangesRequest(prefixes: asked))).code == .locked)
    }
}
