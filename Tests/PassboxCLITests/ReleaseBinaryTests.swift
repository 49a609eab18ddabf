import Foundation
import PassboxTestKit
import Testing

/// The release binary (what `make run` builds, and the Debian package ships) refuses every test hook: a cheap
/// key derivation, an agent auto-lock in seconds, another PAM service. `make release-test` (part of `make
/// deploy-test`, which CI runs after `make test`) builds it and names it in PASSBOX_RELEASE_BINARY; without
/// that variable these tests are skipped, and say so.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["PASSBOX_RELEASE_BINARY"] != nil, "PASSBOX_RELEASE_BINARY is not set (make release-test sets it)"))
struct ReleaseBinaryTests {
    let password = "correct horse battery"

    func run(_ args: [String], _ stdin: [String] = [], data: String, environment: [String: String] = [:]) throws -> Transcript.Result {
        let bin = ProcessInfo.processInfo.environment["PASSBOX_RELEASE_BINARY"] ?? ""
        return try Transcript.execute(bin, ["--data", data] + args, stdin: stdin, environment: environment.merging(["XDG_RUNTIME_DIR": ""]) { $1 })
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

    /// The tests' cheap account derivation (PASSBOX_TEST_ACCOUNT_KDF=cheap) is a debug build's only: an account
    /// a debug client made with it on a debug server is refused by the release client given the same
    /// environment, as below the floor, before anything is derived or sent.
    @Test func theCheapAccountDerivationIsRefused() throws {
        let dir = try TemporaryDirectory("passbox-release")
        let cheap = ["PASSBOX_TEST_ACCOUNT_KDF": "cheap", "XDG_RUNTIME_DIR": "", "PASSBOX_LANG": "en"]
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir, environment: cheap)
        let made = try Transcript.execute(try Transcript.executablePath(), ["--data", dir.path + "/debug", "signup", "--server", server.origin, "--email", "rel@example.org"],
                                          stdin: [password, password], environment: cheap)
        #expect(made.status == 0, "\(made.stderr)")
        let key = try #require(made.stdout.range(of: #"P1-[0-9A-Z-]{38}"#, options: .regularExpression).map { String(made.stdout[$0]) })
        let refused = try run(["signin", "--server", server.origin, "--email", "rel@example.org"], [password, key], data: dir.path + "/release", environment: cheap)
        #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stderr.contains("key-derivation parameters this device refuses (2 MiB, 1 passes, 1 lanes)"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/release/account.json"))
    }
}
