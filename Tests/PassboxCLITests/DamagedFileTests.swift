import Foundation
import PassboxTestKit
import Testing

/// A damaged, truncated, foreign or newer file is reported as such, and never written to.
@Suite struct DamagedFileTests {
    func makeVault() throws -> (TemporaryDirectory, String, [UInt8]) {
        let dir = try TemporaryDirectory("passbox-cli")
        let bin = try Transcript.executablePath()
        let created = try Transcript.execute(bin, ["--data", dir.path, "init", "--insecure-test-kdf"], stdin: ["correct horse battery"], environment: [:])
        #expect(created.status == 0)
        let path = dir.path + "/vault.pbx"
        return (dir, path, Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    func run(_ dir: TemporaryDirectory, _ args: [String]) throws -> Transcript.Result {
        try Transcript.execute(try Transcript.executablePath(), ["--data", dir.path] + args, stdin: ["correct horse battery", "secret"], environment: [:])
    }

    @Test(arguments: ["truncated", "foreign", "newer", "flipped"])
    func damagedFilesAreReportedAndLeftAlone(_ kind: String) throws {
        let (dir, path, original) = try makeVault()
        var bytes = original
        let expected: String
        switch kind {
        case "truncated":
            bytes.removeLast(4096)
            expected = "is damaged (it is truncated"
        case "foreign":
            bytes = Array("<html>not a vault</html>".utf8)
            expected = "is not a Passbox vault file"
        case "newer":
            bytes[9] = 9
            expected = "format version 9, which needs a newer Passbox"
        default:
            bytes[40] ^= 0xff  // a salt byte: no slot opens, which is indistinguishable from a wrong password
            expected = "wrong password"
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        for args in [["list"], ["add", "login", "--title", "X", "--password-stdin"]] {
            let result = try run(dir, args)
            #expect(result.status != 0)
            #expect(result.stderr.contains(expected), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == bytes)
    }

    /// `init` over a file that is not a vault names it as such and leaves it alone.
    @Test func initOverAForeignFileSaysItIsNotAVault() throws {
        let dir = try TemporaryDirectory("passbox-cli")
        try FileManager.default.createDirectory(atPath: dir.path + "/data", withIntermediateDirectories: true)
        let foreign = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 73 &+ 5) })
        try foreign.write(to: URL(fileURLWithPath: dir.path + "/data/vault.pbx"))
        let r = try Transcript.execute(try Transcript.executablePath(), ["--data", dir.path + "/data", "init", "--insecure-test-kdf"], stdin: ["correct horse battery"], environment: [:])
        #expect(r.status == 1)
        #expect(r.stderr.contains("is not a Passbox vault file"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.path + "/data/vault.pbx")) == foreign)
    }

    @Test func dataDirectoryIsCreatedPrivate() throws {
        let dir = try TemporaryDirectory("passbox-cli")
        let data = dir.path + "/nested/data"
        let result = try Transcript.execute(try Transcript.executablePath(), ["--data", data, "init", "--insecure-test-kdf"], stdin: ["correct horse battery"], environment: [:])
        #expect(result.status == 0)
        let mode = try FileManager.default.attributesOfItem(atPath: data)[.posixPermissions] as? Int
        #expect(mode == 0o700)
    }

    @Test func secretsNeverReachOutputUnlessAsked() throws {
        let (dir, _, _) = try makeVault()
        let added = try Transcript.execute(try Transcript.executablePath(), ["--data", dir.path, "add", "login", "--title", "Bank", "--password-stdin", "--notes-stdin"], stdin: ["correct horse battery", "Very-Secret-Pa55word!", "secret note text"], environment: [:])
        #expect(added.status == 0)
        for args in [["list"], ["list", "--json"], ["show", "Bank"], ["show", "Bank", "--json"], ["history", "Bank"]] {
            let r = try run(dir, args)
            #expect(!r.stdout.contains("Very-Secret-Pa55word!") && !r.stderr.contains("Very-Secret-Pa55word!"), "\(args)")
        }
        #expect(try run(dir, ["show", "Bank", "--reveal"]).stdout.contains("Very-Secret-Pa55word!"))
    }
}
