import Foundation
import PassboxCore
import PassboxCrypto
import PassboxProtocol
import PassboxStore
import PassboxTestKit
import Testing

/// Backups through a real agent, as the CLI and the web UI reach them (security.md §8; G54–G63, G77, G79,
/// TR-1/2). The agent runs with the debug build's cheap backup derivation; BackupCommandTests and
/// BackupFileTests use the real one.
@Suite struct AgentBackupTests {
    /// The operations these tests cover (AgentOperationTests counts them as sent).
    static let operations: Set<OperationName> = [.backupPassword, .backupView, .backupMake, .backupAuto, .backupRestore]
    /// The error codes these tests provoke.
    static let errorCodes: Set<ErrorCode> = [
        .noBackupPassword, .notABackup, .backupNewerFormat, .backupTruncated, .wrongBackupPassword, .backupCodesMissing, .backupCodeDamaged,
        .backupCodeOutOfRange, .backupCodeConflict, .backupCodeInvalid, .noBackupCodes, .backupFolderInvalid, .fileExists, .backupHintInvalid, .hintRevealsPassword,
    ]

    let real = RealAgent.password
    let backupPassword = "a backup password of its own"

    func agent() throws -> RealAgent {
        let agent = try RealAgent(agentArguments: ["--insecure-test-kdf"])
        try agent.unlock()
        return agent
    }

    func restore(_ agent: RealAgent, base64: String? = nil, codes: [String]? = nil, password: String? = nil, mode: String = "new") throws -> Reply {
        try agent.send(.backupRestore(BackupRestoreRequest(password: SecretText(password ?? backupPassword), mode: mode, base64: base64, codes: codes)))
    }

    @Test func aBackupNeedsItsOwnPasswordAndRestoresAsNewVaultsOrInPlace() throws {
        let agent = try agent()
        var mail = ItemChanges(title: "Mail", username: "me@example.com")
        mail.killphrase = "burn the mail"
        _ = try agent.add("login", mail)
        var quiet = ItemChanges(title: "Quiet note")
        quiet.searchPassphrase = "under the bridge"
        _ = try agent.add("note", quiet)
        let trashed = try agent.add("note", ItemChanges(title: "Old note"))
        _ = try agent.send(.delete(ItemRequest(item: trashed.id)))
        #expect(try agent.failure(.backupMake(BackupMakeRequest(format: "file"))).code == .noBackupPassword)
        #expect(try agent.send(.status).status().backupPasswordSet == false)
        #expect(try agent.failure(.backupPassword(BackupPasswordRequest(current: SecretText("not the password"), password: SecretText(backupPassword)))).code == .wrongPassword)
        #expect(try agent.failure(.backupPassword(BackupPasswordRequest(current: SecretText(real), password: SecretText("1234567890")))).code == .invalidValue)
        #expect(try agent.failure(.backupPassword(BackupPasswordRequest(current: SecretText(real), password: SecretText(backupPassword), hint: "line one\nline two"))).code == .backupHintInvalid)
        #expect(try agent.failure(.backupPassword(BackupPasswordRequest(current: SecretText(real), password: SecretText(backupPassword), hint: String(repeating: "h", count: 121)))).code == .backupHintInvalid)
        // The hint is printed in the clear: it may hold neither password (folded for case and accents).
        #expect(try agent.failure(.backupPassword(BackupPasswordRequest(current: SecretText(real), password: SecretText(backupPassword), hint: "mine: A Backup Password of its own"))).code == .hintRevealsPassword)
        #expect(try agent.failure(.backupPassword(BackupPasswordRequest(current: SecretText(real), password: SecretText(backupPassword), hint: "as the vault's: \(real)"))).code == .hintRevealsPassword)
        let view = try agent.send(.backupPassword(BackupPasswordRequest(current: SecretText(real), password: SecretText(backupPassword), hint: "the long one"))).backup()
        #expect(view.passwordSet && view.hint == "the long one" && view.lastBackup == nil)

        let file = try agent.send(.backupMake(BackupMakeRequest(format: "file"))).backupMade()
        #expect(file.bytes == 32_768 && file.mediaType == "application/octet-stream" && file.name.hasSuffix(".pbbackup"))
        let bytes = try #require(file.base64.flatMap { Data(base64Encoded: $0) })
        #expect(!String(decoding: bytes, as: UTF8.self).contains("Mail"), "nothing in the clear")
        let status = try agent.send(.status).status()
        #expect(status.lastBackup != nil && status.backupPasswordSet == true)

        // G59: the backup's own password, even here with the vault open; a wrong one changes nothing.
        let before = try Data(contentsOf: URL(fileURLWithPath: agent.vaultPath))
        #expect(try agent.failure(.backupRestore(BackupRestoreRequest(password: SecretText(real), mode: "new", base64: file.base64))).code == .wrongBackupPassword)
        #expect(try Data(contentsOf: URL(fileURLWithPath: agent.vaultPath)) == before)

        let restored = try restore(agent, base64: file.base64).restored()
        #expect(restored.mode == "new" && restored.items == 1 && restored.trashed == 1 && restored.vaults == ["Personal (restored)"], "hidden items are not counted aloud")
        let vaults = try agent.send(.vaultList).vaults().vaults.map(\.name)
        #expect(vaults == ["Personal", "Personal (restored)"])
        #expect(try agent.send(.list(ListRequest())).items().items.map(\.title).sorted() == ["Mail", "Mail"], "the hidden note stays hidden")
        let hidden = try agent.send(.search(SearchRequest(query: "Under the Bridge"))).items().items
        #expect(hidden.map(\.title) == ["Quiet note", "Quiet note"], "its passphrase finds the restored copy too")

        // Replace: the vault holds the backup's items again (one Mail), and the restored vault is gone.
        let replaced = try restore(agent, base64: file.base64, mode: "replace").restored()
        #expect(replaced.items == 1 && replaced.trashed == 1)
        #expect(try agent.send(.list(ListRequest())).items().items.map(\.title) == ["Mail"])
        // The killphrase still works after a restore (G9): the search deletes the item and says no match.
        #expect(try agent.send(.search(SearchRequest(query: "burn the mail"))).items().items.isEmpty)
        #expect(try agent.send(.list(ListRequest())).items().items.isEmpty)
        #expect(try agent.send(.backupView).backup().passwordSet, "the backup password stays after a replace")
    }

    @Test func aPDFAndATransferCarryTheSameBackupAsQRCodes() throws {
        let agent = try agent()
        _ = try agent.send(.backupPassword(BackupPasswordRequest(current: SecretText(real), password: SecretText(backupPassword))))
        for n in 0..<40 { _ = try agent.add("login", ItemChanges(title: "Site \(n)", username: "user\(n)", secretFields: [FieldAssignment(label: "password", value: "pw-\(n)-\(n * 7919)")])) }
        let pdf = try agent.send(.backupMake(BackupMakeRequest(format: "pdf", paper: "letter", language: "de"))).backupMade()
        #expect(pdf.mediaType == "application/pdf" && pdf.codes == 35 && pdf.pages == 9)
        #expect(try #require(pdf.base64.flatMap { Data(base64Encoded: $0) }).starts(with: Array("%PDF".utf8)))
        #expect(try agent.failure(.backupMake(BackupMakeRequest(format: "pdf", paper: "a3"))).code == .invalidSetting)
        #expect((try FileManager.default.contentsOfDirectory(atPath: agent.session.data)).allSatisfy { !$0.hasSuffix(".pdf") }, "no copy is kept")

        let lastBackup = try agent.send(.backupView).backup().lastBackup
        let transfer = try agent.send(.backupMake(BackupMakeRequest(format: "transfer"))).backupMade()
        let codes = try #require(transfer.transfer)
        #expect(codes.count == transfer.codes && transfer.base64 == nil && transfer.bytes != 32_768)
        #expect(try agent.send(.backupView).backup().lastBackup == lastBackup, "a transfer is no saved backup (G79)")

        // The receiver reads the codes from images, as a screen capture saves them (TR-2): drawn by Python's
        // zlib, read with libzbar through the agent, shuffled, repeated and mixed with another transfer's code.
        let dir = try TemporaryDirectory()
        let other = try #require(try agent.send(.backupMake(BackupMakeRequest(format: "transfer"))).backupMade().transfer)
        let drawn = codes + [codes[1], other[0]]
        let request = try JSONSerialization.data(withJSONObject: ["dir": dir.path, "codes": drawn.map { ["size": $0.size, "modules": $0.modules] }])
        let script = try #require(Resources.script("qr_png"))
        let made = try Transcript.execute("/usr/bin/python3", [script.path], stdin: [String(decoding: request, as: UTF8.self)], environment: [:])
        #expect(made.status == 0, "\(made.stderr)")
        var texts: [String] = []
        for i in (1...drawn.count).reversed() {
            let image = try Data(contentsOf: URL(fileURLWithPath: (dir.path + "/code-\(i).png")))
            texts += try agent.send(.readQR(ReadQRRequest(image: image.base64EncodedString()))).resolved().values
        }
        let restored = try restore(agent, codes: texts).restored()
        #expect(restored.items == 40 && restored.repeatedCodes == 1 && restored.foreignCodes == 1)

        // Codes left out, altered or impossible are named, and nothing is changed.
        let before = try Data(contentsOf: URL(fileURLWithPath: agent.vaultPath))
        let missing = try agent.failure(.backupRestore(BackupRestoreRequest(password: SecretText(backupPassword), mode: "new", codes: Array(texts.suffix(2)))))
        #expect(missing.code == .backupCodesMissing && missing.facts["total"] == String(codes.count))
        var altered = Array(texts[0].utf8)
        altered[altered.count - 3] = altered[altered.count - 3] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        let parts = texts[0].split(separator: "/", omittingEmptySubsequences: false)
        #expect(try agent.failure(.backupRestore(BackupRestoreRequest(password: SecretText(backupPassword), mode: "new", codes: [String(decoding: altered, as: UTF8.self)]))).code == .backupCodeDamaged)
        let impossible = (["PBK1", parts[1], parts[2], "9", "3"] + parts[5...]).joined(separator: "/")
        #expect(try agent.failure(.backupRestore(BackupRestoreRequest(password: SecretText(backupPassword), mode: "new", codes: [impossible]))).code == .backupCodeOutOfRange)
        #expect(try agent.failure(.backupRestore(BackupRestoreRequest(password: SecretText(backupPassword), mode: "new", codes: ["PBK1/broken"]))).code == .backupCodeInvalid)
        #expect(try agent.failure(.backupRestore(BackupRestoreRequest(password: SecretText(backupPassword), mode: "new", codes: ["otpauth://totp/x?secret=AB"]))).code == .noBackupCodes)
        let data = Base45.encode([1, 2, 3])
        let body = "\(parts[1])/\(parts[2])/\(parts[3])/\(parts[4])/"
        let forged = "PBK1/" + body + Hash.sha256(Array((body + data).utf8)).prefix(4).map { String(format: "%02X", $0) }.joined() + "/" + data
        #expect(try agent.failure(.backupRestore(BackupRestoreRequest(password: SecretText(backupPassword), mode: "new", codes: [texts[0], forged]))).code == .backupCodeConflict)
        #expect(try Data(contentsOf: URL(fileURLWithPath: agent.vaultPath)) == before)
    }

    @Test func badBackupsAreRefusedByNameAndChangeNothing() throws {
        let agent = try agent()
        _ = try agent.send(.backupPassword(BackupPasswordRequest(current: SecretText(real), password: SecretText(backupPassword))))
        let file = try #require(try agent.send(.backupMake(BackupMakeRequest(format: "file"))).backupMade().base64.flatMap { Data(base64Encoded: $0) })
        let before = try Data(contentsOf: URL(fileURLWithPath: agent.vaultPath))
        func code(_ bytes: [UInt8], mode: String = "new") throws -> ErrorCode {
            try agent.failure(.backupRestore(BackupRestoreRequest(password: SecretText(backupPassword), mode: mode, base64: Data(bytes).base64EncodedString()))).code
        }
        #expect(try code(Array(file.prefix(20_000))) == .backupTruncated)
        #expect(try code(Array(file.prefix(40))) == .backupTruncated)
        #expect(try code(Array("PK\u{3}\u{4} a zip file".utf8)) == .notABackup)
        var newer = Array(file)
        newer[8] = 9
        #expect(try code(newer) == .backupNewerFormat)
        var flipped = Array(file)
        flipped[20_000] ^= 0x40
        #expect(try code(flipped, mode: "replace") == .wrongBackupPassword)
        #expect(try agent.failure(.backupRestore(BackupRestoreRequest(password: SecretText(backupPassword), mode: "merge", base64: file.base64EncodedString()))).code == .invalidSetting)
        #expect(try Data(contentsOf: URL(fileURLWithPath: agent.vaultPath)) == before, "G60: nothing changed")

        // A path the agent writes to is never replaced.
        let dir = try TemporaryDirectory()
        let path = (dir.path + "/kept.pbbackup")
        try Data("mine".utf8).write(to: URL(fileURLWithPath: path))
        let exists = try agent.failure(.backupMake(BackupMakeRequest(format: "file", path: path)))
        #expect(exists.code == .fileExists && exists.facts["path"] == path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "mine")
        let written = try agent.send(.backupMake(BackupMakeRequest(format: "file", path: (dir.path + "/new.pbbackup")))).backupMade()
        #expect(written.path == (dir.path + "/new.pbbackup") && written.base64 == nil)
        var st = stat()
        #expect(stat((dir.path + "/new.pbbackup"), &st) == 0 && st.st_mode & 0o777 == 0o600)
    }

    @Test func autoBackupWritesNewFilesAfterChangesOnly() throws {
        let agent = try agent()
        let dir = try TemporaryDirectory()
        #expect(try agent.failure(.backupAuto(BackupAutoRequest(folder: dir.path))).code == .noBackupPassword)
        _ = try agent.send(.backupPassword(BackupPasswordRequest(current: SecretText(real), password: SecretText(backupPassword))))
        let relative = try agent.failure(.backupAuto(BackupAutoRequest(folder: "backups")))
        #expect(relative.code == .backupFolderInvalid && relative.facts["reason"] == "relative")
        #expect(try agent.failure(.backupAuto(BackupAutoRequest(folder: (dir.path + "/none")))).facts["reason"] == "missing")
        #expect(try agent.failure(.backupAuto(BackupAutoRequest(folder: agent.session.data))).facts["reason"] == "dataDirectory", "not beside the vault it copies")
        try Data().write(to: URL(fileURLWithPath: (dir.path + "/a-file")))
        #expect(try agent.failure(.backupAuto(BackupAutoRequest(folder: (dir.path + "/a-file")))).facts["reason"] == "notDirectory")
        let folder = (dir.path + "/auto")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let view = try agent.send(.backupAuto(BackupAutoRequest(folder: folder, retentionDays: 14))).backup()
        #expect(view.folder == folder && view.retentionDays == 14 && view.autoBackups == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "setting it up is no change to back up")

        // A file the user keeps there, named as auto-backup would name one, is never touched.
        for n in 0..<3 { _ = try agent.add("login", ItemChanges(title: "Change \(n)")) }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(files.count == 3 && files.allSatisfy { $0.hasPrefix("passbox-auto-") && $0.hasSuffix(".pbbackup") }, "\(files)")
        #expect(try agent.send(.backupView).backup().autoBackups == 3)
        let newest = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + files.max { a, b in
            ((try? FileManager.default.attributesOfItem(atPath: folder + "/" + a)[.modificationDate] as? Date) ?? .distantPast)
                < ((try? FileManager.default.attributesOfItem(atPath: folder + "/" + b)[.modificationDate] as? Date) ?? .distantPast)
        }!))
        #expect(try restore(agent, base64: newest.base64EncodedString()).restored().items == 3)

        // The folder gone: the change is kept, and the problem is said.
        try FileManager.default.removeItem(atPath: folder)
        _ = try agent.add("login", ItemChanges(title: "After"))
        let problem = try #require(try agent.send(.backupView).backup().problem)
        #expect(problem.code == .backupFolderInvalid && problem.facts["reason"] == "missing")
        #expect(try agent.send(.list(ListRequest())).items().items.contains { $0.title == "After" })
        let off = try agent.send(.backupAuto(BackupAutoRequest(folder: nil))).backup()
        #expect(off.folder == nil && off.problem == nil && off.autoBackups == 0, "the record belongs to the folder it was made in")
        // Another folder starts a record of its own: nothing of the first is deleted from it.
        let second = dir.path + "/second"
        try FileManager.default.createDirectory(atPath: second, withIntermediateDirectories: false)
        #expect(try agent.send(.backupAuto(BackupAutoRequest(folder: second, retentionDays: 1))).backup().autoBackups == 0)
        _ = try agent.add("login", ItemChanges(title: "In the second"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: second).count == 1)
    }
}
