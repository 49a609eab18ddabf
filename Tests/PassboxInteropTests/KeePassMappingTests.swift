import Foundation
import PassboxCore
import PassboxCrypto
import PassboxTestKit
import Testing

@testable import PassboxInterop

/// KeePass entries as Passbox items and back; our exports read by keepassxc-cli and pykeepass.
@Suite struct KeePassMappingTests {
    static let cheap = Argon2Parameters(memoryKiB: 1024, passes: 1, lanes: 1)
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func keepassxcEntriesBecomeItems() throws {
        let (db, _) = try KDBXReadTests.read("keepassxc-4.kdbx")
        let plan = KeePassImport.plan(db, groupsAsVaults: false, now: now)
        #expect(plan.notBrought.isEmpty)
        // The attachment comes as a file of its entry.
        let files = plan.entries.flatMap { entry in entry.files.map { (entry.item.title, $0.name, $0.bytes) } }
        #expect(files.count == 1 && files[0].0 == "GitHub" && files[0].1 == "readme.txt" && files[0].2 == Array("hello attachment\n".utf8))
        let items = plan.entries.map(\.item)
        #expect(items.count == 4)
        let github = try #require(items.first { $0.title == "GitHub" })
        #expect(github.category == .login)
        #expect(github.username == "octocat")
        #expect(github.password == "new-Secret-2024")
        #expect(github.websites == ["https://github.com/login", "https://gist.github.com"])
        #expect(github.value(of: "otp")?.hasPrefix("otpauth://totp/GitHub:octocat?secret=JBSWY3DPEHPK3PXP") == true)
        #expect(github.field(named: "Recovery codes")?.kind == .multilineHidden)
        #expect(github.field(named: "Account ID")?.kind == .text)
        #expect(github.tags == ["code", "work"])
        guard case .map(let kept)? = github.unknown[KeePassImport.customDataKey] else { Issue.record("no custom data kept"); return }
        #expect(kept["KPXC_BROWSER_HIDE"] == .string("true"), "KeePassXC's own data kept")
        #expect(KeePassExport.entry(for: github).customData["KPXC_BROWSER_HIDE"] == "true", "and written back")
        #expect(github.history.count == 1)
        #expect(github.history[0].item.password == "old-Secret-2023")
        #expect(github.history[0].replacedAt == ISO8601DateFormatter().date(from: "2024-03-05T10:00:00Z"))
        #expect(github.created == ISO8601DateFormatter().date(from: "2023-01-02T09:00:00Z"))
        let wifi = try #require(items.first { $0.title.hasPrefix("Wi-Fi") })
        #expect(wifi.category == .secureNote)
        #expect(wifi.field(named: "Expires")?.value == "2031-04-30")
        #expect(wifi.field(named: "Expires")?.key == "expiry", "keyed so Security Check sees it")
        let server = try #require(items.first { $0.title == "build box" })
        #expect(server.tags == ["Work/Servers"])
        #expect(server.field(named: "URL")?.value == "ssh://build.example.org:2222" || server.websites == ["ssh://build.example.org:2222"])
        let code = try OTPInput.parse(try #require(server.value(of: "otp")))
        #expect(code.digits == 8)
        #expect(code.algorithm == .sha256)
        let trashed = try #require(items.first { $0.title == "Old forum" })
        #expect(trashed.isTrashed)
        #expect(trashed.tags.isEmpty)
        for item in items { _ = try item.validated() }
    }

    @Test func groupsCanBecomeVaults() throws {
        let (db, _) = try KDBXReadTests.read("keepassxc-3.1.kdbx")
        let plan = KeePassImport.plan(db, groupsAsVaults: true, now: now)
        let byTitle = Dictionary(uniqueKeysWithValues: plan.entries.map { ($0.item.title, $0) })
        #expect(byTitle["GitHub"]?.vaultName == nil)
        #expect(byTitle["build box"]?.vaultName == "Work")
        #expect(byTitle["build box"]?.item.tags == ["Servers"])
        #expect(byTitle["Old forum"]?.item.isTrashed == true)
    }

    @Test func emptyEntriesAreCountedNotMade() throws {
        let (db, _) = try KDBXReadTests.read("pykeepass-chacha20.kdbx")
        let plan = KeePassImport.plan(db, groupsAsVaults: false, now: now)
        #expect(plan.entries.map(\.item.title).sorted() == ["Bank", "Empty", "Mailbox"])
        #expect(plan.notBrought.isEmpty)
        #expect(plan.entries.first { $0.item.title == "Mailbox" }?.files.map(\.name) == ["scan.png"])
        #expect(plan.entries.first { $0.item.title == "Empty" }?.item.category == .secureNote)
        var blank = KeePassDatabase(name: "", root: KeePassGroup(name: "Root", entries: [KeePassEntry(strings: [.init(key: "Title", value: "", isProtected: false)])]))
        blank.root.entries.append(KeePassEntry(strings: [.init(key: "Password", value: "x", isProtected: true)]))
        let blankPlan = KeePassImport.plan(blank, groupsAsVaults: false, now: now)
        #expect(blankPlan.notBrought == ["emptyEntry": 1])
        #expect(blankPlan.entries.map(\.item.password) == ["x"])
        let bank = try #require(plan.entries.first { $0.item.title == "Bank" }?.item)
        #expect(bank.field(named: "PIN")?.kind == .hidden)
        #expect(try OTPInput.parse(try #require(bank.value(of: "otp"))).period == 60)
    }

    static func sampleItems() -> (items: [Item], vaults: [VaultInfo]) {
        let personal = VaultInfo(name: "Personal"), work = VaultInfo(name: "Work")
        var login = Item(category: .login, title: "GitHub", websites: ["https://github.com/login", "https://gist.github.com"], notes: "line one\nline <two> & more", tags: ["code"])
        login.setValue("octocat", for: "username")
        login.setValue("Pa55-word-🙂", for: "password")
        login.setValue("JBSWY3DPEHPK3PXP", for: "otp")
        login.fields.append(Field(label: "Recovery codes", kind: .multilineHidden, value: "1111\n2222"))
        login.fields.append(Field(label: "Account ID", kind: .text, value: "42"))
        login.created = Date(timeIntervalSince1970: 1_600_000_000)
        login.lastChanged = Date(timeIntervalSince1970: 1_700_000_000)
        var old = login
        old.setValue("old-password", for: "password")
        login.history = [ItemVersion(replacedAt: Date(timeIntervalSince1970: 1_700_000_000), item: old)]
        login.vaultID = personal.id
        var card = Item(category: .creditCard, title: "Visa")
        card.setValue("A. Person", for: "cardholder")
        card.setValue("4111111111111111", for: "number")
        card.setValue("2029-04", for: "expiry")
        card.setValue("123", for: "cvc")
        card.vaultID = work.id
        var note = Item(category: .secureNote, title: "Plans", notes: "secret plans")
        note.vaultID = work.id
        var trashed = Item(category: .login, title: "Gone")
        trashed.trashedAt = Date(timeIntervalSince1970: 1_700_000_000)
        var sealed = Item(category: .secureNote, title: "Sealed")
        sealed.sealed = SealedContent(version: 1, kdf: Argon2Parameters(memoryKiB: 8, passes: 1, lanes: 1), salt: [], nonce: [], box: [])
        return ([login, card, note, trashed, sealed], [personal, work])
    }

    /// A passkey as KeePassXC keeps it (pykeepass-passkey.kdbx, its key made by openssl): imported as the login's
    /// passkey (the PEM no field), it signs for its public key, and an export writes it back as KeePassXC reads it.
    @Test func passkeysComeInAndGoOutAsKeePassXCKeepsThem() throws {
        let (db, _) = try KDBXReadTests.read("pykeepass-passkey.kdbx")
        let plan = KeePassImport.plan(db, groupsAsVaults: false, now: now)
        let item = try #require(plan.entries.first?.item)
        let passkey = try #require(item.passkeys.first)
        #expect(item.passkeys.count == 1 && item.title == "Passkey Bank" && item.username == "ada" && item.websites == ["https://bank.example"])
        #expect(passkey.relyingParty == "bank.example" && passkey.userName == "ada" && passkey.credentialID == Array(0..<16) && passkey.userHandle == Array("user-4711".utf8))
        #expect(!item.fields.contains { $0.label.hasPrefix("KPEX_PASSKEY") }, "\(item.fields.map(\.label))")
        let key = SecretBytes(copying: passkey.privateKey)
        let point = try P256.publicPoint(of: key)
        #expect(Hex.string(point) == "04927a913a63363464a218b739257f0f2efc0b00cbad4dd3939b1e11b77649a826d3ee67864f0b94bd9a2a0690e935e580b693128734366ec5b532c892c76c587a")
        #expect(P256.isValidSignature(try P256.signature(for: [7], privateKey: key), for: [7], publicPoint: point))

        // Out and in again: the same passkey; a second one on the item is counted as left out.
        var two = item
        two.passkeys.append(Passkey(credentialID: [9], relyingParty: "bank.example", userHandle: [1], userName: "bob", displayName: "bob", privateKey: passkey.privateKey, created: now))
        let result = KeePassExport.database(items: [two], vaults: [], name: "Passbox")
        #expect(result.leftOut == ["passkey": 1])
        let entry = try #require(result.database.root.entries.first ?? result.database.root.groups.first?.entries.first)
        #expect(entry.strings.first { $0.key == "KPEX_PASSKEY_PRIVATE_KEY_PEM" }?.isProtected == true)
        #expect(entry["KPEX_PASSKEY_PRIVATE_KEY_PEM"].hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        let back = KeePassImport.plan(result.database, groupsAsVaults: false, now: now).entries.first?.item.passkeys
        #expect(back == [passkey])
        // A key that is not P-256 (or not a key) keeps its attributes as concealed fields: nothing is lost.
        var broken = db
        broken.root.entries[0].strings = broken.root.entries[0].strings.map { $0.key == "KPEX_PASSKEY_PRIVATE_KEY_PEM" ? .init(key: $0.key, value: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----", isProtected: true) : $0 }
        let kept = try #require(KeePassImport.plan(broken, groupsAsVaults: false, now: now).entries.first?.item)
        #expect(kept.passkeys.isEmpty && kept.field(named: "KPEX_PASSKEY_PRIVATE_KEY_PEM")?.kind.isConcealed == true)
    }

    static func exported(_ path: URL, password: String = "export-Password-1") throws -> KeePassExport.Result {
        let (items, vaults) = sampleItems()
        let result = KeePassExport.database(items: items, vaults: vaults, name: "Passbox")
        let bytes = try KDBXFile.write(result.database, credentials: KDBXReadTests.credentials(password), parameters: cheap)
        try Data(bytes).write(to: path)
        return result
    }

    @Test func exportRoundTripsThroughOurReader() throws {
        let dir = try TemporaryDirectory()
        let result = try Self.exported(dir.file("out.kdbx"))
        #expect(result.entries == 3)
        #expect(result.leftOut == ["trashed": 1, "sealed": 1])
        let (db, info) = try KDBXFile.read(Array(try Data(contentsOf: dir.file("out.kdbx"))), credentials: KDBXReadTests.credentials("export-Password-1"))
        #expect(info.description == "KDBX 4.0, ChaCha20, Argon2id, 1 MiB × 1 passes × 1 lanes")
        #expect(db.root.groups.map(\.name) == ["Personal", "Work"])
        let plan = KeePassImport.plan(db, groupsAsVaults: true, now: now)
        let (items, _) = Self.sampleItems()
        for original in items.prefix(3) {
            let back = try #require(plan.entries.first { $0.item.title == original.title }?.item)
            #expect(back.category == original.category)
            #expect(back.websites == original.websites)
            #expect(back.notes == original.notes)
            #expect(back.tags == original.tags)
            // KeePass has no "unknown": an item without a creation date is exported as made now.
            if let created = original.created { #expect(back.created == created) }
            #expect(back.history.count == original.history.count)
            for field in original.fields where !field.value.isEmpty {
                let match = back.field(named: field.key ?? field.label)
                if field.kind == .otp {
                    #expect(try OTPInput.parse(try #require(match?.value)).secret == OTPInput.parse(field.value).secret)
                } else {
                    #expect(match?.value == field.value, "\(original.title): \(field.label)")
                    #expect(match?.kind.isConcealed == field.kind.isConcealed, "\(original.title): \(field.label)")
                }
            }
        }
        #expect(plan.entries.first { $0.item.title == "Visa" }?.vaultName == "Work")
    }

    @Test func keepassxcReadsOurExport() throws {
        guard let cli = try Peers.find("/usr/bin/keepassxc-cli", package: "keepassxc") else { return }
        let dir = try TemporaryDirectory()
        _ = try Self.exported(dir.file("out.kdbx"))
        let db = dir.file("out.kdbx").path
        let list = try Transcript.execute(cli, ["ls", "-R", "-f", db], stdin: ["export-Password-1"], environment: [:])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(Set(list.stdout.split(separator: "\n").map(String.init)) == ["Personal/", "Personal/GitHub", "Work/", "Work/Visa", "Work/Plans"])
        let show = try Transcript.execute(
            cli, ["show", "-s", "-a", "Title", "-a", "UserName", "-a", "Password", "-a", "URL", "-a", "KP2A_URL", "-a", "Recovery codes", "-a", "Account ID", "-a", "Notes", db, "Personal/GitHub"],
            stdin: ["export-Password-1"], environment: [:])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout == "GitHub\noctocat\nPa55-word-🙂\nhttps://github.com/login\nhttps://gist.github.com\n1111\n2222\n42\nline one\nline <two> & more\n")
        let totp = try Transcript.execute(cli, ["show", "-t", db, "Personal/GitHub"], stdin: ["export-Password-1"], environment: [:])
        #expect(totp.status == 0, "\(totp.stderr)")
        let expected = OTPParameters(secret: try Base32.decode("JBSWY3DPEHPK3PXP"))
        let shown = totp.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // The code of this 30-second step or the next (the step may turn between the two calls).
        let t = Date().timeIntervalSince1970
        #expect([try expected.currentCode(at: Date(timeIntervalSince1970: t)).code, try expected.currentCode(at: Date(timeIntervalSince1970: t - 30)).code].contains(shown))
        let card = try Transcript.execute(cli, ["show", "-s", "-a", "Number", "-a", "Verification number", db, "Work/Visa"], stdin: ["export-Password-1"], environment: [:])
        #expect(card.stdout == "4111111111111111\n123\n")
        let wrong = try Transcript.execute(cli, ["ls", db], stdin: ["export-Password-2"], environment: [:])
        #expect(wrong.status != 0)
    }

    /// The attachment budget goes to every item's own files first: an earlier version's file never crowds out
    /// a later item's current one.
    @Test func versionsFilesTakeOnlyTheRoomItemsLeave() throws {
        func file(_ id: String, _ size: Int) -> PassboxCore.Attachment {
            PassboxCore.Attachment(id: id, name: id + ".bin", mediaType: "application/octet-stream", size: size, key: [UInt8](repeating: 0, count: 32), added: Date())
        }
        var first = Item(category: .secureNote, title: "First")
        var old = first
        old.attachments = [file(String(repeating: "a", count: 32), 600)]
        first.history = [ItemVersion(replacedAt: Date(), item: old)]
        var second = Item(category: .secureNote, title: "Second")
        second.attachments = [file(String(repeating: "b", count: 32), 600)]
        let result = KeePassExport.database(items: [first, second], vaults: [], name: "x", attachmentBudget: 1000) { a in [UInt8](repeating: 1, count: a.size) }
        #expect(result.leftOut["attachmentTooLarge"] == nil, "the second item's own file went in: \(result.leftOut)")
        #expect(result.database.binaries.count == 1)
        let entries = result.database.root.entries
        #expect(entries.first { $0["Title"] == "Second" }?.attachments.map(\.name) == [String(repeating: "b", count: 32) + ".bin"])
        #expect(entries.first { $0["Title"] == "First" }?.history.first?.attachments.isEmpty == true, "the old version's file had no room left")
    }

    @Test func pykeepassReadsOurExport() throws {
        guard let python = try Peers.pykeepass() else { return }
        let dir = try TemporaryDirectory()
        _ = try Self.exported(dir.file("out.kdbx"))
        let script = """
            import sys
            from pykeepass import PyKeePass
            kp = PyKeePass(sys.argv[1], password=sys.stdin.readline().rstrip("\\n"))
            e = kp.find_entries(title="GitHub", first=True)
            print(e.username, e.password, e.url, e.tags, e.custom_properties.get("Account ID"), len(e.history), e.history[0].password, sep="|")
            print(e.otp)
            print(kp.find_entries(title="Visa", first=True).group.name)
            """
        let r = try Transcript.execute(python, ["-c", script, dir.file("out.kdbx").path], stdin: ["export-Password-1"], environment: [:])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "octocat|Pa55-word-🙂|https://github.com/login|['code']|42|1|old-password")
        #expect(lines.dropFirst().first?.hasPrefix("otpauth://totp/GitHub%3Aoctocat?secret=JBSWY3DPEHPK3PXP") == true, "\(lines)")
        #expect(lines.last == "Work")
    }
}
