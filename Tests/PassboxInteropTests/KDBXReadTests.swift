import Foundation
import PassboxCore
import PassboxCrypto
import Testing

@testable import PassboxInterop

/// Files made once by keepassxc-cli and pykeepass (Fixtures/make-fixtures.sh) read exactly.
@Suite struct KDBXReadTests {
    static let password = "fixture-password"

    static func fixture(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil))
        return Array(try Data(contentsOf: url))
    }

    static func credentials(_ password: String = password, keyFile: [UInt8]? = nil) -> KeePassCredentials {
        KeePassCredentials(password: SecretBytes(copying: Array(password.utf8)), keyFile: keyFile)
    }

    static func read(_ name: String, password: String = password, keyFile: [UInt8]? = nil) throws -> (KeePassDatabase, KDBXFile.ReadInfo) {
        let (database, info) = try KDBXFile.read(try fixture(name), credentials: credentials(password, keyFile: keyFile))
        return (database, info)
    }

    static func allEntries(_ group: KeePassGroup) -> [KeePassEntry] {
        group.entries + group.groups.flatMap(allEntries)
    }

    /// What keepassxc-source.xml holds, whichever KDBX version KeePassXC wrote it as.
    func checkKeePassXCContent(_ db: KeePassDatabase) throws {
        #expect(db.name == "Fixture")
        #expect(db.root.name == "Passwords")
        #expect(db.root.groups.map(\.name) == ["Work", "Recycle Bin"])
        #expect(db.root.groups[0].groups.map(\.name) == ["Servers"])
        #expect(db.recycleBin == db.root.groups[1].uuid)
        let github = try #require(db.root.entries.first { $0["Title"] == "GitHub" })
        #expect(github["UserName"] == "octocat")
        #expect(github["Password"] == "new-Secret-2024")
        #expect(github.strings.first { $0.key == "Password" }?.isProtected == true)
        #expect(github["KP2A_URL"] == "https://gist.github.com")
        #expect(github["Notes"] == "Two lines\nof notes, with <angle> & ampersand")
        #expect(github["otp"] == "otpauth://totp/GitHub:octocat?secret=JBSWY3DPEHPK3PXP&period=30&digits=6&issuer=GitHub")
        #expect(github["Recovery codes"] == "1111-2222\n3333-4444")
        #expect(github["Account ID"] == "583231")
        #expect(github.tags == ["code", "work"])
        #expect(github.attachments.map(\.name) == ["readme.txt"])
        #expect(db.binaries[github.attachments[0].reference] == Array("hello attachment\n".utf8))
        #expect(github.created == ISO8601DateFormatter().date(from: "2023-01-02T09:00:00Z"))
        #expect(github.modified == ISO8601DateFormatter().date(from: "2024-03-05T10:00:00Z"))
        #expect(github.history.count == 1)
        #expect(github.history[0]["Password"] == "old-Secret-2023")
        let wifi = try #require(db.root.entries.first { $0["Title"].hasPrefix("Wi-Fi") })
        #expect(wifi["Title"] == "Wi-Fi at home — Ünïcødé")
        #expect(wifi.expires == ISO8601DateFormatter().date(from: "2031-04-30T00:00:00Z"))
        let server = try #require(db.root.groups[0].groups[0].entries.first)
        #expect(server["TimeOtp-Secret-Base32"] == "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")
        #expect(db.root.groups[1].entries.map { $0["Title"] } == ["Old forum"])
    }

    @Test func keepassxcKDBX31ReadsExactly() throws {
        let (db, info) = try Self.read("keepassxc-3.1.kdbx")
        #expect(db.version == "3.1")
        #expect(info.description.hasPrefix("KDBX 3.1, AES-256, AES-KDF"))
        try checkKeePassXCContent(db)
    }

    @Test func keepassxcKDBX4ReadsExactly() throws {
        let (db, info) = try Self.read("keepassxc-4.kdbx")
        #expect(db.version == "4.0")
        #expect(info.description.hasPrefix("KDBX 4.0, AES-256, AES-KDF"))
        try checkKeePassXCContent(db)
        let github = try #require(db.root.entries.first { $0["Title"] == "GitHub" })
        #expect(github.customData["KPXC_BROWSER_HIDE"] == "true")
    }

    func checkPykeepassContent(_ db: KeePassDatabase) throws {
        let entries = Self.allEntries(db.root)
        #expect(Set(entries.map { $0["Title"] }) == ["Bank", "Mailbox", "Empty"])
        let bank = try #require(entries.first { $0["Title"] == "Bank" })
        #expect(bank["Password"] == "second-Bank-pass")
        #expect(bank["PIN"] == "4321")
        #expect(bank.strings.first { $0.key == "PIN" }?.isProtected == true)
        #expect(bank["Branch"] == "Main Street")
        #expect(bank.tags == ["money", "family"])
        #expect(bank.history.map { $0["Password"] } == ["first-Bank-pass"])
        #expect(bank.modified == ISO8601DateFormatter().date(from: "2024-05-06T07:08:09Z"))
        let mail = try #require(entries.first { $0["Title"] == "Mailbox" })
        #expect(mail["Password"] == "mail-pass-Ö")
        #expect(mail.attachments.map(\.name) == ["scan.png"])
        #expect(db.binaries[mail.attachments[0].reference] == [0x89] + Array("PNG not really".utf8) + [0, 1])
    }

    @Test func pykeepassChaCha20Argon2idReadsExactly() throws {
        let (db, info) = try Self.read("pykeepass-chacha20.kdbx")
        #expect(info.description == "KDBX 4.0, ChaCha20, Argon2id, 16 MiB × 2 passes × 2 lanes")
        try checkPykeepassContent(db)
    }

    @Test func pykeepassKeyFileNeedsTheKeyFile() throws {
        let key = try Self.fixture("pykeepass.key")
        let (db, info) = try Self.read("pykeepass-keyfile.kdbx", keyFile: key)
        #expect(info.description == "KDBX 4.0, AES-256, Argon2d, 16 MiB × 2 passes × 2 lanes")
        try checkPykeepassContent(db)
        #expect(throws: InteropError.wrongPassword) { try Self.read("pykeepass-keyfile.kdbx") }
        #expect(throws: InteropError.wrongPassword) { try Self.read("pykeepass-keyfile.kdbx", password: "other", keyFile: key) }
    }

    @Test(arguments: ["keepassxc-3.1.kdbx", "keepassxc-4.kdbx", "pykeepass-chacha20.kdbx"])
    func wrongPasswordIsOneAnswer(_ name: String) throws {
        #expect(throws: InteropError.wrongPassword) { try Self.read(name, password: "fixture-passwore") }
    }

    @Test func keyFileFormsAsKeePassReadsThem() throws {
        let raw = (0..<32).map { UInt8($0) }
        #expect(try KeePassCredentials.keyFileKey(raw) == raw)
        let hex = raw.map { String(format: "%02x", $0) }.joined()
        #expect(try KeePassCredentials.keyFileKey(Array(hex.utf8)) == raw)
        let hash = Hash.sha256(raw).prefix(4).map { String(format: "%02X", $0) }.joined()
        let v2 = "<?xml version=\"1.0\"?><KeyFile><Meta><Version>2.0</Version></Meta><Key><Data Hash=\"\(hash)\">\(hex.uppercased())</Data></Key></KeyFile>"
        #expect(try KeePassCredentials.keyFileKey(Array(v2.utf8)) == raw)
        let v1 = "<KeyFile><Meta><Version>1.00</Version></Meta><Key><Data>\(Data(raw).base64EncodedString())</Data></Key></KeyFile>"
        #expect(try KeePassCredentials.keyFileKey(Array(v1.utf8)) == raw)
        let other = Array("any other file".utf8)
        #expect(try KeePassCredentials.keyFileKey(other) == Hash.sha256(other))
        let badHash = v2.replacingOccurrences(of: hash, with: "00000000")
        #expect(throws: InteropError.self) { try KeePassCredentials.keyFileKey(Array(badHash.utf8)) }
    }

    /// Passbox's own export, made once (docs/FORMATS.md "Fixture"): it must keep opening, and keep importing as
    /// the items it was made from.
    @Test func passboxExportV1KeepsOpening() throws {
        let (db, info) = try Self.read("passbox-export-v1.kdbx", password: "export fixture password v1")
        #expect(info.description == "KDBX 4.0, ChaCha20, Argon2id, 0 MiB × 1 passes × 1 lanes")
        #expect(db.root.name == "Passbox")
        #expect(db.root.entries.map { $0["Title"] } == ["GitHub", "Visa", "Plans"])
        let plan = KeePassImport.plan(db, groupsAsVaults: false, now: Date())
        let items = plan.entries.map(\.item)
        #expect(items.map(\.category) == [.login, .creditCard, .secureNote])
        #expect(items[0].password == "Gh-Newer-2026" && items[0].username == "octocat")
        #expect(items[0].websites == ["https://github.com", "https://gist.github.com"])
        #expect(items[0].tags == ["code"])
        #expect(try OTPInput.parse(try #require(items[0].value(of: "otp"))).secret == Base32.decode("JBSWY3DPEHPK3PXP"))
        #expect(items[0].history.map { $0.item.password } == ["Gh-Secret-2026", "Gh-Secret-2026"])
        #expect(items[1].value(of: "number") == "4111111111111111" && items[1].value(of: "cvc") == "123" && items[1].value(of: "expiry") == "2029-04")
        #expect(items[1].field(named: "number")?.kind == .hidden)
        #expect(items[2].notes == "line one")
    }

    @Test func notKeePassAndNewerVersionsAreNamed() throws {
        #expect(throws: InteropError.notThisFormat(format: "kdbx")) { try KDBXFile.read(Array("hello world, not a database".utf8), credentials: Self.credentials()) }
        var newer = try Self.fixture("pykeepass-cheap.kdbx")
        newer[10] = 5
        #expect(throws: InteropError.unsupported(what: "KDBX 5.0, newer than this Passbox reads")) { try KDBXFile.read(newer, credentials: Self.credentials()) }
        let file = try Self.fixture("pykeepass-cheap.kdbx")
        #expect(throws: InteropError.truncated) { try KDBXFile.read(Array(file.prefix(file.count - 10)), credentials: Self.credentials()) }
    }
}
