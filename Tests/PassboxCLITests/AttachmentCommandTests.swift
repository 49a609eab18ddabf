import Foundation
import PassboxCrypto
import PassboxTestKit
import Testing

/// `passbox attach`, `attachments`, `save-attachment` and `detach` as a person uses them, without an agent.
@Suite struct AttachmentCommandTests {
    let password = "correct horse battery"

    @Test func attachListSaveAndDetachFromTheCommandLine() throws {
        let s = try AgentEndToEndTests.Session()
        #expect(try s.run(["init", "--insecure-test-kdf"], [password]).status == 0)
        #expect(try s.run(["add", "document", "--title", "Passport"], [password]).status == 0)
        let scan = s.dir.file("scan.png").path
        let bytes = SecureRandom.bytes(count: 150_000)
        try Data(bytes).write(to: URL(fileURLWithPath: scan))

        let attached = try s.run(["attach", "Passport", scan], [password])
        #expect(attached.status == 0, "\(attached.stderr)")
        #expect(attached.stdout == "Attached scan.png (146.5 KiB, image/png) to \"Passport\", encrypted.\n")
        #expect(attached.stderr.contains("The original at \(scan) is still there, not encrypted"))
        let listed = try s.run(["attachments", "Passport"], [password])
        #expect(listed.status == 0 && listed.stdout.hasPrefix("NAME") && listed.stdout.contains("scan.png") && listed.stdout.contains("146.5 KiB"))
        let json = try s.run(["attachments", "Passport", "--json"], [password])
        let reply = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let first = try #require((reply?["attachments"] as? [[String: Any]])?.first)
        #expect(first["size"] as? Int == 150_000 && first["key"] == nil, "a listing never carries the key")

        let out = s.dir.file("out.png").path
        let saved = try s.run(["save-attachment", "Passport", "scan.png", "--out", out], [password])
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(saved.stderr.contains("outside the vault and not encrypted"))
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: out))) == bytes)
        let again = try s.run(["save-attachment", "Passport", "scan.png", "--out", out], [password])
        #expect(again.status == 1 && again.stderr.contains(out))
        #expect(try s.run(["save-attachment", "Passport", "scan.png"], [password]).status == 2)
        let unknown = try s.run(["save-attachment", "Passport", "visa.png", "--out", s.dir.file("v.png").path], [password])
        #expect(unknown.status == 1 && unknown.stderr.contains("\"Passport\" has no attachment \"visa.png\" (its attachments: scan.png)"))

        let german = try s.run(["save-attachment", "Passport", "visa.png", "--out", s.dir.file("v.png").path], [password], env: ["PASSBOX_LANG": "de"])
        #expect(german.stderr.contains("„Passport“ hat keinen Anhang „visa.png“"))

        let declined = try s.run(["detach", "Passport", "scan.png"], [password, "no"])
        #expect(declined.status == 1 && declined.stderr.contains("nothing was changed"))
        let detached = try s.run(["detach", "Passport", "scan.png"], [password, "yes"])
        #expect(detached.status == 0 && detached.stdout.contains("Removed scan.png from \"Passport\""))
        #expect(try s.run(["attachments", "Passport"], [password]).stdout == "\"Passport\" has no attachments.\n")
    }

    /// A backup file carries the attachments' blobs in `blobs/` beside it (encrypted, as they are); a restore
    /// on another machine brings them back, checked; a PDF says it leaves them out.
    @Test func aBackupFileCarriesTheAttachmentsBesideIt() throws {
        let backupPassword = "a backup password of twenty chars"
        let s = try AgentEndToEndTests.Session()
        #expect(try s.run(["init", "--insecure-test-kdf"], [password]).status == 0)
        #expect(try s.run(["add", "document", "--title", "Deed"], [password]).status == 0)
        let scan = s.dir.file("deed.pdf").path
        let bytes = SecureRandom.bytes(count: 90_000)
        try Data(bytes).write(to: URL(fileURLWithPath: scan))
        #expect(try s.run(["attach", "Deed", scan], [password]).status == 0)
        #expect(try s.run(["backup", "password", "--insecure-test-kdf"], [password, backupPassword]).status == 0)
        let folder = s.dir.path + "/backups"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let made = try s.run(["backup", "--file", folder + "/deed.pbbackup"], [password])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.contains("Copied 1 attachment's file (encrypted, as they are) to \(folder)/blobs"))
        let copied = try FileManager.default.contentsOfDirectory(atPath: folder + "/blobs")
        #expect(copied.count == 1 && copied[0].count == 32)
        let pdf = try s.run(["backup", "--pdf", folder + "/deed.pdf"], [password])
        #expect(pdf.status == 0 && pdf.stderr.contains("1 attachment's file is not in this backup"))

        // Another machine: a new vault, the backup restored as new vaults, the file read back.
        let other = try AgentEndToEndTests.Session()
        #expect(try other.run(["init", "--insecure-test-kdf"], [password]).status == 0)
        let restored = try other.run(["restore", folder + "/deed.pbbackup"], [password, backupPassword])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.stdout.contains("Brought back 1 attachment's file from the blobs folder beside the backup."))
        let out = other.dir.file("deed-again.pdf").path
        #expect(try other.run(["save-attachment", "Deed", "deed.pdf", "--out", out], [password]).status == 0)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: out))) == bytes)

        // A changed blob beside the backup is refused and not kept: the attachment is listed as missing.
        let third = try AgentEndToEndTests.Session()
        #expect(try third.run(["init", "--insecure-test-kdf"], [password]).status == 0)
        let blob = folder + "/blobs/" + copied[0]
        var changed = Array(try Data(contentsOf: URL(fileURLWithPath: blob)))
        changed[100] ^= 1
        try Data(changed).write(to: URL(fileURLWithPath: blob))
        let refused = try third.run(["restore", folder + "/deed.pbbackup"], [password, backupPassword])
        #expect(refused.status == 0 && refused.stderr.contains("1 attachment's file was not found whole in the blobs folder beside the backup"), "\(refused.stderr)")
        #expect(try third.run(["attachments", "Deed"], [password]).stdout.contains("(not on this device)"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: third.data + "/blobs").filter { !$0.hasPrefix(".") }.allSatisfy { $0 != copied[0] })
    }
}
