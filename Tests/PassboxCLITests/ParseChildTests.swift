import Foundation
import PassboxImaging
import PassboxProtocol
import PassboxTestKit
import Testing

@testable import PassboxService
import PassboxWording

/// Untrusted bytes are parsed in a confined child (promise 33b, issue 28): it can open no file, make no socket
/// and start no process or program, inherits none of its parent's descriptors, is bounded in memory and CPU
/// time, and a child that crashes or runs away is a clear error while its parent carries on.
@Suite struct ParseChildTests {
    static func probe(_ what: String) throws -> String {
        guard case .probe(let result) = try ParseChild.run(.probe(what)) else { throw ProtocolError(.internalError, ["type": "not a probe answer"]) }
        return result
    }

    @Test func theChildCanOpenNothingAndInheritsNoDescriptor() throws {
        for what in ["open", "socket", "exec", "fork", "signal"] {
            #expect(try Self.probe(what) == "errno \(EPERM)", "\(what) is refused by the filter")
        }
        // A descriptor this process holds (as the agent holds its vault file) does not reach the child.
        let fd = open("/etc/hostname", O_RDONLY)
        defer { close(fd) }
        #expect(fd >= 0)
        #expect(try Self.probe("descriptors") == "0")
    }

    @Test func aChildThatCrashesOrRunsAwayIsAClearErrorAndTheNextJobWorks() throws {
        for (what, reason) in [("crash", "crashed"), ("spin", "tooSlow"), ("allocate", "crashed"), ("linger", "crashed")] {
            #expect(throws: ProtocolError.self, "\(what)") { try Self.probe(what) }
            do {
                _ = try Self.probe(what)
            } catch let error as ProtocolError {
                #expect(error.code == .parseFailed && error.facts["reason"] == reason, "\(what): \(error)")
            }
        }
        let dir = try TemporaryDirectory("passbox-parse")
        let image = dir.path + "/code.png"
        #expect(try Transcript.execute("/usr/bin/qrencode", ["-o", image, "otpauth://totp/Example:me?secret=JBSWY3DPEHPK3PXP"], stdin: [], environment: [:]).status == 0)
        #expect(try ParseChild.qrCodes(file: image) == ["otpauth://totp/Example:me?secret=JBSWY3DPEHPK3PXP"])
        #expect(throws: (any Error).self) { try ParseChild.qrCodes(bytes: Array("not an image".utf8), name: "text") }
        do {
            _ = try ParseChild.qrCodes(bytes: Array("not an image".utf8), name: "text")
        } catch let error as QRCodeReader.ReadError {
            #expect(Localization.tr("qr.\(error.reason)", .english, error.facts).contains("is not a PNG or JPEG image"))
        }
    }

    /// An agent whose parse child dies (as on a file made to crash its parser) answers the import with the
    /// reason, keeps its vault as it was and goes on serving.
    @Test func anAgentWhoseParseChildCrashesKeepsServing() throws {
        let tests = AgentEndToEndTests()
        let s = try tests.unlockedSession(env: ["PASSBOX_TEST_PARSE_CHILD": "crash"])
        let csv = s.dir.path + "/logins.csv"
        try Data("name,url,username,password\nShop,https://shop.example,me,pw-123\n".utf8).write(to: URL(fileURLWithPath: csv))
        let before = try Data(contentsOf: URL(fileURLWithPath: s.data + "/vault.pbx"))
        let refused = try s.run(["import", csv, "--format", "csv", "--dry-run"])
        #expect(refused.status == 1 && refused.stderr.contains("the separate, confined reader that opens it stopped (crashed)"), "\(refused.stderr)")
        #expect(try s.run(["status"]).stdout.contains("Unlocked"))
        #expect(try s.run(["list"]).stdout.contains("GitHub"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: s.data + "/vault.pbx")) == before)
    }
}
