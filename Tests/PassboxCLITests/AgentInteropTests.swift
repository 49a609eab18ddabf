import Foundation
import PassboxCrypto
import PassboxInterop
import PassboxProtocol
import PassboxTestKit
import Testing

/// Imports and exports through a real agent (the operations `import-items` and `export-items` and each of
/// their error codes): a preview writes nothing, a confirmed import writes everything in one save, a file
/// that fails changes nothing, and an export is a new 0600 file KeePassXC opens.
@Suite struct AgentInteropTests {
    /// The operations these tests send (AgentOperationTests checks every operation is sent somewhere).
    static let operations: Set<OperationName> = [.importItems, .exportItems]
    /// The error codes these tests provoke.
    static let errorCodes: Set<ErrorCode> = [
        .importNotThisFormat, .importDamaged, .importTruncated, .importWrongPassword, .importUnsupported, .importTooLarge, .importEmpty, .unknownFormat,
        .importColumnsUnknown, .importMappingInvalid, .plainExportNotConfirmed,
    ]

    /// The KeePass fixtures of PassboxInteropTests (made once by keepassxc-cli and pykeepass), read where they are.
    static func fixture(_ name: String) throws -> String {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("PassboxInteropTests/Fixtures/\(name)").path
        try #require(FileManager.default.fileExists(atPath: path), "\(path)")
        return path
    }

    func importing(_ path: String, password: String = "fixture-password", keyFile: String? = nil, groups: String? = nil, keep: Bool = false, confirm: Bool) -> Request {
        .importItems(ItemsImportRequest(format: "kdbx", path: path, password: SecretText(password), keyFilePath: keyFile, groups: groups, keepDuplicates: keep, confirm: confirm))
    }

    func vaultBytes(_ agent: RealAgent) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: agent.vaultPath)) }

    @Test func aPreviewWritesNothingAndAConfirmedImportWritesAll() throws {
        let agent = try RealAgent(agentArguments: ["--insecure-test-kdf"])
        try agent.unlock()
        let file = try Self.fixture("keepassxc-4.kdbx")
        let before = try vaultBytes(agent)
        let preview = try agent.send(importing(file, confirm: false)).importPreview()
        #expect(preview.items == 3 && preview.trashed == 1 && !preview.imported)
        #expect(preview.categories == ["login": 2, "secure-note": 1])
        #expect(preview.notBrought.isEmpty && preview.attachments == 1)
        #expect(preview.source == "KDBX 4.0, AES-256, AES-KDF, 5555555 rounds")
        #expect(try vaultBytes(agent) == before, "a preview writes nothing")
        let wrong = try agent.failure(importing(file, password: "not it", confirm: true))
        #expect(wrong.code == .importWrongPassword && wrong.exitCode == 3)
        #expect(try vaultBytes(agent) == before, "a file that fails changes nothing")

        let done = try agent.send(importing(file, confirm: true)).importPreview()
        #expect(done.imported && done.items == 3)
        let listed = try agent.send(.list(ListRequest())).items().items
        #expect(Set(listed.map(\.title)) == ["GitHub", "Wi-Fi at home — Ünïcødé", "build box"])
        #expect(listed.first { $0.title == "build box" }?.tags == ["Work/Servers"])
        #expect(try agent.send(.trashList(ListRequest())).items().items.map(\.title) == ["Old forum"])
        let github = try agent.send(.show(ShowRequest(item: "GitHub", reveal: true))).item()
        #expect(github.fields.first { $0.label == "Password" }?.value == "new-Secret-2024")
        #expect(try agent.send(.history(ShowRequest(item: "GitHub", reveal: true))).history().versions.count == 1)
        #expect(try agent.send(.code(ItemRequest(item: "GitHub"))).code().code?.count == 6)

        // Again: every item is a duplicate now, so nothing more is made.
        let again = try agent.send(importing(file, confirm: true)).importPreview()
        #expect(again.duplicates == 4 && again.items == 0 && !again.imported)
        #expect(Set(again.duplicateTitles) == ["GitHub", "Wi-Fi at home — Ünïcødé", "build box", "Old forum"])
        let kept = try agent.send(importing(file, keep: true, confirm: true)).importPreview()
        #expect(kept.items == 3 && kept.imported)
        #expect(try agent.send(.list(ListRequest())).items().items.count == 6)
    }

    @Test func groupsBecomeVaultsAndKeyFilesOpenFiles() throws {
        let agent = try RealAgent(agentArguments: ["--insecure-test-kdf"])
        try agent.unlock()
        let done = try agent.send(importing(try Self.fixture("keepassxc-3.1.kdbx"), groups: "vaults", confirm: true)).importPreview()
        #expect(done.newVaults == ["Work"] && done.imported)
        let vaults = try agent.send(.vaultList).vaults().vaults
        #expect(vaults.map(\.name) == ["Personal", "Work"])
        #expect(vaults.map(\.items) == [2, 1])
        let keyed = try Self.fixture("pykeepass-keyfile.kdbx")
        #expect(try agent.failure(importing(keyed, confirm: false)).code == .importWrongPassword)
        let withKey = try agent.send(importing(keyed, keyFile: try Self.fixture("pykeepass.key"), confirm: false)).importPreview()
        #expect(withKey.items == 3)
        // Through the web UI's route: the file as base64.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: try Self.fixture("pykeepass-chacha20.kdbx")))
        let uploaded = try agent.send(.importItems(ItemsImportRequest(format: "kdbx", base64: bytes.base64EncodedString(), password: SecretText("fixture-password"), vault: "Work", confirm: true))).importPreview()
        #expect(uploaded.vault == "Work" && uploaded.items == 3)
        #expect(try agent.send(.vaultList).vaults().vaults.map(\.items) == [2, 4])
    }

    @Test func everyBadFileIsNamedAndChangesNothing() throws {
        let agent = try RealAgent(agentArguments: ["--insecure-test-kdf"])
        try agent.unlock()
        let dir = try TemporaryDirectory()
        let before = try vaultBytes(agent)
        let good = Array(try Data(contentsOf: URL(fileURLWithPath: try Self.fixture("pykeepass-cheap.kdbx"))))
        func write(_ name: String, _ bytes: [UInt8]) throws -> String {
            let path = dir.file(name).path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }
        #expect(try agent.failure(importing(try write("text.kdbx", Array("just some text".utf8)), confirm: true)).code == .importNotThisFormat)
        var seed = good
        seed[60] ^= 1  // the master seed, inside the header: its SHA-256 no longer matches
        #expect(try agent.failure(importing(try write("damaged.kdbx", seed), confirm: true)).code == .importDamaged)
        #expect(try agent.failure(importing(try write("cut.kdbx", Array(good.prefix(good.count / 2))), confirm: true)).code == .importTruncated)
        var newer = good
        newer[10] = 5
        let unsupported = try agent.failure(importing(try write("newer.kdbx", newer), confirm: true))
        #expect(unsupported.code == .importUnsupported && unsupported.facts["what"] == "KDBX 5.0, newer than this Passbox reads")
        // A sparse file past the limit is refused by its size, before it is read.
        let huge = dir.file("huge.kdbx").path
        #expect(FileManager.default.createFile(atPath: huge, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: huge))
        try handle.truncate(atOffset: UInt64(KDBXFile.sizeLimit + 1))
        try handle.close()
        #expect(try agent.failure(importing(huge, confirm: true)).code == .importTooLarge)
        let empty = try KDBXFile.write(
            KeePassDatabase(name: "", root: KeePassGroup(name: "Root", entries: [KeePassEntry()])),
            credentials: KeePassCredentials(password: .init(copying: Array("fixture-password".utf8))), parameters: .init(memoryKiB: 64, passes: 1, lanes: 1))
        #expect(try agent.failure(importing(try write("empty.kdbx", empty), confirm: true)).code == .importEmpty)
        #expect(try agent.failure(.importItems(ItemsImportRequest(format: "lastpass-vault", path: huge, password: nil, confirm: true))).code == .unknownFormat)
        let csv = Data("Site;Login;Secret\nrouter.local;admin;R0uter!\n".utf8).base64EncodedString()
        func csvImport(_ mapping: [String: String]?) -> Request {
            .importItems(ItemsImportRequest(format: "csv", base64: csv, password: nil, confirm: true, mapping: mapping))
        }
        #expect(try agent.failure(csvImport(nil)).code == .importColumnsUnknown)
        let bad = try agent.failure(csvImport(["url": "Website"]))
        #expect(bad.code == .importMappingInvalid && bad.facts == ["name": "Website", "columns": "Site, Login, Secret"])
        #expect(try agent.failure(.importItems(ItemsImportRequest(format: "bitwarden-json", base64: Data("{\"encrypted\": true}".utf8).base64EncodedString(), password: nil, confirm: true))).code == .importUnsupported)
        #expect(try vaultBytes(agent) == before)
        let mapped = try agent.send(csvImport(["url": "Site", "username": "Login", "password": "Secret"])).importPreview()
        #expect(mapped.imported && mapped.items == 1 && mapped.source == "CSV; columns Site, Login, Secret")
        #expect(try agent.send(.show(ShowRequest(item: "router.local", reveal: true))).item().fields.first { $0.label == "Password" }?.value == "R0uter!")
    }

    /// The formats of version 10 through the agent: a Proton Pass ZIP, a password-protected Bitwarden export
    /// (its password sent as a secret), and an otpauth list.
    @Test func protonPassProtectedBitwardenOtpauthListsAndOnePUXFilesThroughTheAgent() throws {
        let agent = try RealAgent(agentArguments: ["--insecure-test-kdf"])
        try agent.unlock()
        let proton = try agent.send(.importItems(ItemsImportRequest(format: "proton-pass", path: try Self.fixture("protonpass.zip"), password: nil, confirm: true))).importPreview()
        #expect(proton.imported && proton.items == 4 && proton.trashed == 1 && proton.notBrought == ["passkey": 1, "unknownType": 1])
        let before = try vaultBytes(agent)
        let wrong = try agent.failure(.importItems(ItemsImportRequest(format: "bitwarden-json", path: try Self.fixture("bitwarden-protected-pbkdf2.json"), password: SecretText("not it"), confirm: true)))
        #expect(wrong.code == .importWrongPassword && wrong.exitCode == 3)
        #expect(try vaultBytes(agent) == before)
        let bitwarden = try agent.send(.importItems(ItemsImportRequest(format: "bitwarden-json", path: try Self.fixture("bitwarden-protected-pbkdf2.json"), password: SecretText("fixture-password"), confirm: true))).importPreview()
        #expect(bitwarden.imported && bitwarden.source.hasPrefix("Bitwarden JSON export, password-protected"))
        // "auto" (the web UI's upload): the format told by the first bytes, else the name.
        var auto = ItemsImportRequest(format: "auto", base64: try Data(contentsOf: URL(fileURLWithPath: try Self.fixture("protonpass.json"))).base64EncodedString(), password: nil, confirm: false)
        auto.name = "data.json"
        #expect(try agent.send(.importItems(auto)).importPreview().format == "proton-pass")
        var unknown = ItemsImportRequest(format: "auto", base64: Data("just words".utf8).base64EncodedString(), password: nil, confirm: false)
        unknown.name = "notes.txt"
        #expect(try agent.failure(.importItems(unknown)).code == .unknownFormat)
        let codes = try agent.send(.importItems(ItemsImportRequest(format: "otpauth", path: try Self.fixture("otpauth-list.txt"), password: nil, confirm: true))).importPreview()
        #expect(codes.imported && codes.categories == ["one-time-password": 5] && codes.notBrought == ["invalidCode": 1])
        // A 1PUX export's files (a Document item's and a file field's) come as encrypted attachments.
        let onePUX = try agent.send(.importItems(ItemsImportRequest(format: "1pux", path: try Self.fixture("onepassword-documents.1pux"), password: nil, confirm: true))).importPreview()
        #expect(onePUX.imported && onePUX.attachments == 2 && onePUX.notBrought == ["attachment": 1, "recoveryPhrase": 1])
        let scan = try agent.send(.saveAttachment(SaveAttachmentRequest(item: "Passport scan", attachment: "passport.pdf", path: nil))).attachmentSaved()
        #expect(scan.base64.flatMap { Data(base64Encoded: $0) } == Data("%PDF-1.4\n% a passport scan\n".utf8) && scan.mediaType == "application/pdf")
    }

    /// pykeepass-history-attachments.kdbx: an entry whose earlier version has a file the entry no longer has,
    /// and a photo both have (one file of the pool).
    @Test func aVersionKeepsItsAttachmentsThroughImportAndExport() throws {
        let agent = try RealAgent(agentArguments: ["--insecure-test-kdf"])
        try agent.unlock()
        let done = try agent.send(importing(try Self.fixture("pykeepass-history-attachments.kdbx"), confirm: true)).importPreview()
        #expect(done.imported && done.attachments == 3, "three files, the shared photo once")
        #expect(try agent.send(.attachments(AttachmentsRequest(item: "Lease"))).attachments().attachments.map(\.name) == ["flat.jpg", "lease signed.pdf"])
        let versions = try agent.send(.history(ShowRequest(item: "Lease", reveal: false))).history().versions
        let draft = try #require(versions.first { $0.item.attachments?.contains { $0.name == "lease.pdf" } == true })
        #expect(draft.item.attachments?.map(\.name) == ["lease.pdf", "flat.jpg"])
        let shared = Set((versions.flatMap { $0.item.attachments ?? [] } + (try agent.send(.attachments(AttachmentsRequest(item: "Lease"))).attachments().attachments)).map(\.id))
        #expect(shared.count == 3, "the photo is one attachment in the item and its version")

        // Out again: the version refers to its files in the pool, the photo once.
        let dir = try TemporaryDirectory()
        let out = dir.file("lease.kdbx").path
        _ = try agent.send(.exportItems(ItemsExportRequest(format: "kdbx", path: out, password: SecretText("an export password")))).exported()
        let (db, _) = try KDBXFile.read(Array(try Data(contentsOf: URL(fileURLWithPath: out))), credentials: KeePassCredentials(password: SecretBytes(copying: Array("an export password".utf8))))
        let lease = try #require(db.root.entries.first { $0["Title"] == "Lease" })
        #expect(db.binaries.count == 3)
        #expect(lease.attachments.map(\.name) == ["flat.jpg", "lease signed.pdf"])
        let old = try #require(lease.history.first)
        #expect(old.attachments.map(\.name) == ["lease.pdf", "flat.jpg"])
        #expect(old.attachments[1].reference == lease.attachments[0].reference, "the photo is one file of the pool")
        #expect(db.binaries[old.attachments[0].reference] == Array("%PDF-1.4 lease, first draft\n".utf8))

        // As an attach does, an import into the local vault writes 0–2 cover blobs per file: after 30 more files
        // (10 imports) the folder holds blobs no item refers to (all 30 drawing none: 3^-30).
        for _ in 0..<10 { _ = try agent.send(importing(try Self.fixture("pykeepass-history-attachments.kdbx"), keep: true, confirm: true)).importPreview() }
        let folder = (agent.vaultPath as NSString).deletingLastPathComponent + "/blobs"
        let onDisk = Set(try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.count == 32 })
        let referenced = try agent.send(.list(ListRequest())).items().items.count
        #expect(referenced == 11)
        #expect(onDisk.count > 33, "33 files referred to, and covers beside them: \(onDisk.count)")
    }

    @Test func anExportIsANewPrivateFileKeePassXCOpens() throws {
        let agent = try RealAgent(agentArguments: ["--insecure-test-kdf"])
        try agent.unlock()
        _ = try agent.send(importing(try Self.fixture("keepassxc-4.kdbx"), confirm: true))
        let dir = try TemporaryDirectory()
        let out = dir.file("export.kdbx").path
        let password = "an export password"
        #expect(try agent.failure(.exportItems(ItemsExportRequest(format: "kdbx", path: out, password: SecretText("123")))).code == .invalidValue)
        #expect(try agent.failure(.exportItems(ItemsExportRequest(format: "csv", path: out, password: SecretText(password)))).code == .unknownFormat)
        let done = try agent.send(.exportItems(ItemsExportRequest(format: "kdbx", path: out, password: SecretText(password)))).exported()
        #expect(done.entries == 3 && done.leftOut == ["trashed": 1])
        #expect((try FileManager.default.attributesOfItem(atPath: out)[.posixPermissions] as? Int) == 0o600)
        #expect(try agent.failure(.exportItems(ItemsExportRequest(format: "kdbx", path: out, password: SecretText(password)))).code == .fileExists)
        // A plain export only when confirmed; it imports back as the same items.
        let plain = dir.file("export.json").path
        #expect(try agent.failure(.exportItems(ItemsExportRequest(format: "bitwarden-json", path: plain, password: nil))).code == .plainExportNotConfirmed)
        #expect(!FileManager.default.fileExists(atPath: plain))
        let json = try agent.send(.exportItems(ItemsExportRequest(format: "bitwarden-json", path: plain, password: nil, plainConfirmed: true))).exported()
        #expect(json.entries == 3 && json.leftOut == ["trashed": 1])
        #expect((try FileManager.default.attributesOfItem(atPath: plain)[.posixPermissions] as? Int) == 0o600)
        let back = try agent.send(.importItems(ItemsImportRequest(format: "bitwarden-json", path: plain, password: nil, confirm: false))).importPreview()
        #expect(back.items == 0 && back.duplicates == 3, "every exported item is recognised as already here")
        // A download (the web UI's): no path; the file comes back as base64 with a name to save it under.
        #expect(try agent.failure(.exportItems(ItemsExportRequest(format: "bitwarden-json", path: nil, password: nil))).code == .plainExportNotConfirmed)
        let download = try agent.send(.exportItems(ItemsExportRequest(format: "kdbx", path: nil, password: SecretText(password)))).exported()
        #expect(download.path == nil && download.name?.hasSuffix(".kdbx") == true && download.mediaType == "application/x-keepass2")
        let file = try #require(download.base64.flatMap { Data(base64Encoded: $0) })
        #expect(file.count == download.bytes && file.starts(with: [0x03, 0xD9, 0xA2, 0x9A]), "a KeePass file's signature")
        var reading = ItemsImportRequest(format: "kdbx", path: nil, password: SecretText(password), confirm: false)
        reading.base64 = file.base64EncodedString()
        #expect(try agent.send(.importItems(reading)).importPreview().duplicates == 3, "it opens with its password and holds the same items")
        guard let cli = try Peers.find("/usr/bin/keepassxc-cli", package: "keepassxc") else { return }
        let shown = try Transcript.execute(cli, ["show", "-s", "-a", "Password", "-a", "Recovery codes", out, "GitHub"], stdin: [password], environment: [:])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout == "new-Secret-2024\n1111-2222\n3333-4444\n")
        // The imported attachment came as an encrypted file, and went back into the export: KeePassXC reads it.
        let readme = try agent.send(.saveAttachment(SaveAttachmentRequest(item: "GitHub", attachment: "readme.txt", path: nil))).attachmentSaved()
        #expect(readme.base64.flatMap { Data(base64Encoded: $0) } == Data("hello attachment\n".utf8))
        let exported = dir.file("readme-out.txt").path
        let extracted = try Transcript.execute(cli, ["attachment-export", out, "GitHub", "readme.txt", exported], stdin: [password], environment: [:])
        #expect(extracted.status == 0, "\(extracted.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: exported)) == Data("hello attachment\n".utf8))
    }
}
