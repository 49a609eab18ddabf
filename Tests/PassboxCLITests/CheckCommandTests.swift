import Foundation
import PassboxTestKit
import Testing

/// `passbox check --breaches` end to end: opt-in, a local range server, results kept in the vault.
@Suite struct CheckCommandTests {
    func run(_ dir: TemporaryDirectory, _ args: [String], _ stdin: [String] = ["correct horse battery"]) throws -> Transcript.Result {
        try Transcript.execute(try Transcript.executablePath(), ["--data", dir.path] + args, stdin: stdin, environment: ["LANG": "C"])
    }

    @Test func breachCheckIsOptInAndSendsOnlyPrefixes() throws {
        let dir = try TemporaryDirectory("passbox-cli")
        #expect(try run(dir, ["init", "--insecure-test-kdf"]).status == 0)
        #expect(try run(dir, ["add", "login", "--title", "Mail", "--username", "me", "--url", "mail.example", "--password-stdin"], ["correct horse battery", "hunter2-but-longer"]).status == 0)
        #expect(try run(dir, ["add", "login", "--title", "Bank", "--username", "me", "--url", "bank.example", "--generate"]).status == 0)
        // Off by default: asking for it says how to turn it on, and nothing is sent.
        let off = try run(dir, ["check", "--breaches"])
        #expect(off.status == 1 && off.stderr.contains("the breached-password check is off"))
        let explain = try run(dir, ["check", "breaches", "on"], [])
        #expect(explain.stdout.contains("Only the first 5 of its 40 hex characters are sent"))
        #expect(explain.stdout.contains("--yes"))
        #expect(try run(dir, ["check", "breaches", "on", "--yes"], []).status == 0)

        let server = try RangeServer(hashes: [sha1Hex("hunter2-but-longer"): 42], directory: dir)
        #expect(try run(dir, ["check", "settings", "range-url", "http://127.0.0.1:\(server.port)/range/"], []).status == 0)
        let checked = try run(dir, ["check", "--breaches", "--json"])
        #expect(checked.status == 0, "\(checked.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(checked.stdout.utf8)) as? [String: Any])
        let findings = json["findings"] as? [[String: Any]] ?? []
        #expect(findings.contains { $0["kind"] as? String == "breached-password" && $0["title"] as? String == "Mail" })
        #expect(!findings.contains { $0["kind"] as? String == "breached-password" && $0["title"] as? String == "Bank" })
        // Two distinct passwords, padded to the fixed block of requests (security design §9).
        #expect(server.requests.count == 100)
        #expect(server.requests.allSatisfy { $0[0].range(of: "^/range/[0-9A-F]{5}$", options: .regularExpression) != nil && $0[1] == "true" })
        // The result is kept (with its time) and shown without a new query.
        let again = try run(dir, ["check"])
        #expect(again.stdout.contains("Breached passwords: last checked"))
        #expect(again.stdout.contains("Mail"))
        #expect(server.requests.count == 100)
        // Plain http to another machine is refused: the prefixes would travel in the clear.
        #expect(try run(dir, ["check", "settings", "range-url", "http://example.com/range/"], []).status == 2)
    }

    @Test func offlineBreachCheckChangesNothing() throws {
        let dir = try TemporaryDirectory("passbox-cli")
        #expect(try run(dir, ["init", "--insecure-test-kdf"]).status == 0)
        #expect(try run(dir, ["add", "login", "--title", "Mail", "--generate"]).status == 0)
        #expect(try run(dir, ["check", "breaches", "on", "--yes"], []).status == 0)
        #expect(try run(dir, ["check", "settings", "range-url", "http://127.0.0.1:9/range/"], []).status == 0)
        let before = try Data(contentsOf: dir.file("vault.pbx"))
        let r = try run(dir, ["check", "--breaches"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("could not reach the range service"))
        #expect(try Data(contentsOf: dir.file("vault.pbx")) == before)
    }

    func sha1Hex(_ s: String) -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", "import hashlib,sys; print(hashlib.sha1(sys.argv[1].encode()).hexdigest().upper())", s]
        let out = Pipe()
        p.standardOutput = out
        try? p.run()
        p.waitUntilExit()
        return String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
