import Foundation
import PassboxTestSupport
import Testing

/// The release binary (what `make run` builds) refuses every test hook: a cheap key derivation, an agent
/// auto-lock in seconds, another PAM service. `make test` builds it and names it in PASSBOX_RELEASE_BINARY;
/// without that variable these tests are skipped, and say so.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["PASSBOX_RELEASE_BINARY"] != nil, "PASSBOX_RELEASE_BINARY is not set (make test sets it)"))
struct ReleaseBinaryTests {
    let password = "correct horse battery"

    func run(_ args: [String], _ stdin: [String] = [], data: String) throws -> Transcript.Result {
        let bin = ProcessInfo.processInfo.environment["PASSBOX_RELEASE_BINARY"] ?? ""
        return try Transcript.execute(bin, ["--data", data] + args, stdin: stdin, environment: ["XDG_RUNTIME_DIR": ""])
    }

    @Test(arguments: [
        (["init", "--insecure-test-kdf"], "--insecure-test-kdf"), (["unlock", "--test-auto-lock-seconds", "1"], "--test-auto-lock-seconds"),
        (["unlock", "--pam-service", "other"], "--pam-service"), (["agent", "--test-auto-lock-seconds", "1"], "--test-auto-lock-seconds"),
        (["agent", "--pam-service", "other"], "--pam-service"),
    ])
    func testHooksAreUnknownOptions(_ args: [String], _ option: String) throws {
        let dir = try TemporaryDirectory("passbox-release")
        let r = try run(args, [password], data: dir.path + "/data")
        #expect(r.status == 2, "\(args): \(r.stderr)")
        #expect(r.stderr.contains("unknown option \(option)"))
        // Nothing was created or started.
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/data/vault.pbx"))
    }

    @Test func autoLockStaysWithinTheChoices() throws {
        let dir = try TemporaryDirectory("passbox-release")
        for value in ["2", "-1", "0.01", "99999"] {
            #expect(try run(["settings", "auto-lock", value], data: dir.path + "/data").status == 2, "\(value)")
        }
        // A settings file edited by hand to a value outside the choices means the strictest ones.
        try FileManager.default.createDirectory(atPath: dir.path + "/data", withIntermediateDirectories: true)
        try #"{"v":1,"autoLockMinutes":100000}"#.write(toFile: dir.path + "/data/settings.json", atomically: true, encoding: .utf8)
        let shown = try run(["settings"], data: dir.path + "/data")
        #expect(shown.stdout.contains("auto-lock: 1 minutes"))
        #expect(shown.stdout.contains("quick unlock: off"))
        #expect(shown.stderr.contains("passbox: warning:") && shown.stderr.contains("settings.json cannot be read"))
    }
}
