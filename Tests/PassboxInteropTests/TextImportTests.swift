import Foundation
import PassboxCore
import PassboxCrypto
import PassboxTestKit
import Testing

@testable import PassboxInterop

/// CSV (Chrome, Firefox, Bitwarden, 1Password, any CSV with a mapping) and Bitwarden's JSON export as items.
/// The samples follow each app's documented export columns and keys (written by hand: these apps cannot run
/// here); each parser also meets 10,000 mutations of its samples.
@Suite struct TextImportTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func plan(_ name: String, mapping: [String: String] = [:], vaults: Bool = false) throws -> ImportPlan {
        let bytes = try KDBXReadTests.fixture(name)
        return name.hasSuffix(".json") ? try BitwardenImport.plan(bytes, groupsAsVaults: vaults, now: now) : try CSVImport.plan(bytes, mapping: mapping, groupsAsVaults: vaults, now: now)
    }

    @Test func chromeCSVWithQuotesAndLineBreaks() throws {
        let p = try plan("chrome.csv")
        let items = p.entries.map(\.item)
        #expect(items.map(\.title) == ["GitHub", "Bank", "Note only"])
        #expect(items[0].password == "Gh,pa\"ss" && items[0].username == "octocat" && items[0].websites == ["https://github.com/login"])
        #expect(items[1].notes == "two\r\nlines")
        #expect(items[2].category == .secureNote && items[2].notes == "just a note")
        #expect(p.notBrought == ["emptyEntry": 1])
        for item in items { _ = try item.validated() }
    }

    @Test func firefoxCSVKeepsCreationTimesAndDropsFormDetails() throws {
        let items = try plan("firefox.csv").entries.map(\.item)
        #expect(items.count == 2)
        #expect(items[0].username == "me@example.org" && items[0].password == "Fx-Secret-1")
        #expect(items[0].created == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(items[0].fields.filter(\.isCustom).isEmpty, "guid, form origin and times are not fields")
        #expect(items[1].websites == ["ftp://files.example.org"])
    }

    @Test func bitwardenCSVFoldersFavouritesAndCodes() throws {
        let p = try plan("bitwarden.csv")
        let jira = try #require(p.entries.first { $0.item.title == "Jira" }?.item)
        #expect(jira.isFavorite && jira.tags == ["Work"] && jira.value(of: "otp") != nil)
        #expect(p.entries.first { $0.item.title == "Wifi" }?.item.category == .secureNote)
        let asVaults = try plan("bitwarden.csv", vaults: true)
        #expect(asVaults.entries.first { $0.item.title == "Jira" }?.vaultName == "Work")
    }

    @Test func anyCSVThroughAMapping() throws {
        #expect(throws: InteropError.unknownColumns(columns: "Site, Login, Secret, Comment, Room")) { try plan("custom.csv") }
        let p = try plan("custom.csv", mapping: ["url": "Site", "username": "login", "password": "Secret", "notes": "Comment"])
        let item = try #require(p.entries.first?.item)
        #expect(item.username == "admin" && item.password == "R0uter!" && item.notes == "in the hall; top shelf")
        #expect(item.field(named: "Room")?.value == "2", "an unmapped column is kept as a field")
        #expect(item.title.isEmpty)
        #expect(try item.validated().title == "router.local")
        #expect(throws: InteropError.badMapping(name: "Nope", columns: "Site, Login, Secret, Comment, Room")) { try plan("custom.csv", mapping: ["url": "Nope"]) }
        #expect(throws: InteropError.badMapping(name: "colour", columns: "Site, Login, Secret, Comment, Room")) { try plan("custom.csv", mapping: ["colour": "Site"]) }
    }

    @Test func csvEdgeCases() throws {
        #expect(throws: InteropError.damaged(reason: "a quoted field that starts on line 2 never ends")) { try CSVTable(parsing: Array("name,password\n\"open,x\n".utf8)) }
        #expect(throws: InteropError.empty) { try CSVTable(parsing: Array("\n\n".utf8)) }
        let tabs = try CSVTable(parsing: Array("\u{FEFF}title\tpassword\r\na\tb".utf8))
        #expect(tabs.header == ["title", "password"] && tabs.rows == [["a", "b"]])
        #expect(throws: InteropError.damaged(reason: "it is not UTF-8 text")) { try CSVTable(parsing: [0x61, 0xff, 0x0a]) }
    }

    /// Bitwarden's passkeys (bitwarden-passkey.json, keys made by openssl): a GUID id and a "b64." id come in as
    /// the login's passkeys (the counter kept) and sign; an RSA one is counted as not brought. Bitwarden's JSON is
    /// not encrypted, so an export to it leaves passkeys out, counted.
    @Test func bitwardenPasskeysComeIn() throws {
        let p = try plan("bitwarden-passkey.json")
        #expect(p.notBrought == ["passkey": 1])
        let bank = try #require(p.entries.first?.item)
        #expect(bank.passkeys.count == 2 && bank.passkeys.allSatisfy { $0.relyingParty == "bank.example" && $0.userName == "ada" && $0.userHandle == Array("user-4711".utf8) })
        #expect(bank.passkeys[0].credentialID == [0x8d, 0x7a, 0x0b, 0x1c, 0x2e, 0x3f, 0x4a, 0x5b, 0x9c, 0x6d, 0x7e, 0x8f, 0x90, 0xa1, 0xb2, 0xc3] && bank.passkeys[0].signCount == 0)
        #expect(bank.passkeys[1].credentialID == Array("imported-credential-id".utf8) && bank.passkeys[1].signCount == 5 && bank.passkeys[1].displayName == "Ada Lovelace")
        #expect(bank.passkeys[0].created == ISO8601DateFormatter().date(from: "2025-03-04T05:06:07Z"))
        for passkey in bank.passkeys {
            let key = SecretBytes(copying: passkey.privateKey)
            #expect(P256.isValidSignature(try P256.signature(for: [1], privateKey: key), for: [1], publicPoint: try P256.publicPoint(of: key)))
        }
        let out = try BitwardenExport.export(items: [bank], vaults: [])
        #expect(out.leftOut == ["passkeyPlain": 2] && !String(decoding: out.json, as: UTF8.self).contains("fido2"))
    }

    @Test func bitwardenJSONEveryKind() throws {
        let p = try plan("bitwarden.json")
        #expect(p.notBrought == ["linkedField": 1])
        let byTitle = Dictionary(uniqueKeysWithValues: p.entries.map { ($0.item.title, $0) })
        let github = try #require(byTitle["GitHub"]?.item)
        #expect(github.isFavorite && github.tags == ["Work"] && github.notes == "Work account")
        #expect(github.password == "current-GitHub-3" && github.value(of: "otp")?.hasPrefix("otpauth://") == true)
        #expect(github.websites == ["https://github.com/login", "androidapp://com.github.android"])
        #expect(github.field(named: "PIN")?.kind == .hidden && github.field(named: "Recovery email")?.value == "backup@example.org")
        #expect(github.history.map { $0.item.password } == ["oldest-GitHub-1", "older-GitHub-2"])
        #expect(github.created == ISO8601DateFormatter().date(from: "2022-01-02T03:04:05Z"))
        #expect(byTitle["Safe combination"]?.item.category == .secureNote)
        let card = try #require(byTitle["Visa"]?.item).validated()
        #expect(card.value(of: "number") == "4111111111111111" && card.value(of: "expiry") == "2029-04" && card.value(of: "cvc") == "123")
        let me = try #require(byTitle["Me"]?.item).validated()
        #expect(me.value(of: "first-name") == "Jane Q" && me.value(of: "address") == "1 Main Street\n12345 Springfield\nUS")
        #expect(me.field(named: "Social security number")?.kind == .hidden)
        #expect(byTitle["Old forum"]?.item.isTrashed == true)
        #expect(try plan("bitwarden.json", vaults: true).entries.first { $0.item.title == "GitHub" }?.vaultName == "Work")
        for entry in p.entries { _ = try entry.item.validated() }
    }

    @Test func bitwardenExportRoundTrips() throws {
        let (items, vaults) = KeePassMappingTests.sampleItems()
        let result = try BitwardenExport.export(items: items, vaults: vaults)
        #expect(result.entries == 3 && result.leftOut == ["trashed": 1, "sealed": 1])
        let back = try BitwardenImport.plan(result.json, groupsAsVaults: true, now: now)
        let login = try #require(back.entries.first { $0.item.title == "GitHub" })
        #expect(login.vaultName == "Personal")
        #expect(login.item.username == "octocat" && login.item.password == "Pa55-word-🙂" && login.item.websites == items[0].websites)
        #expect(try OTPInput.parse(try #require(login.item.value(of: "otp"))).secret == Base32.decode("JBSWY3DPEHPK3PXP"))
        #expect(login.item.field(named: "Recovery codes")?.kind == .multilineHidden && login.item.field(named: "Account ID")?.value == "42")
        #expect(login.item.history.map { $0.item.password } == ["old-password"])
        #expect(login.item.notes == items[0].notes && login.item.created == items[0].created)
        let card = try #require(back.entries.first { $0.item.title == "Visa" }?.item).validated()
        #expect(card.value(of: "number") == "4111111111111111" && card.value(of: "expiry") == "2029-04" && card.value(of: "cvc") == "123" && card.value(of: "cardholder") == "A. Person")
        #expect(back.entries.first { $0.item.title == "Plans" }?.item.notes == "secret plans")
    }

    @Test func onePasswordOnePUX() throws {
        let p = try OnePasswordImport.plan(try KDBXReadTests.fixture("onepassword.1pux"), groupsAsVaults: true, now: now)
        #expect(p.notBrought == ["recoveryPhrase": 1])
        let byTitle = Dictionary(uniqueKeysWithValues: p.entries.map { ($0.item.title, $0) })
        let github = try #require(byTitle["GitHub"])
        #expect(github.files.map(\.name) == ["codes.txt"] && github.files.first?.bytes == Array("1111\n2222\n".utf8), "a file field's file")
        #expect(github.vaultName == "Private" && github.item.isFavorite && github.item.tags == ["code"])
        #expect(github.item.username == "octocat" && github.item.password == "Op-Current-3" && github.item.notes == "login notes")
        #expect(github.item.websites == ["https://github.com/login", "https://gist.github.com"])
        #expect(try OTPInput.parse(try #require(github.item.value(of: "otp"))).secret == Base32.decode("JBSWY3DPEHPK3PXP"))
        #expect(github.item.field(named: "recovery key")?.kind == .hidden)
        #expect(github.item.history.map { $0.item.password } == ["Op-Old-1", "Op-Old-2"])
        #expect(github.item.created == Date(timeIntervalSince1970: 1_600_000_000))
        let card = try #require(byTitle["Visa"]?.item).validated()
        #expect(card.value(of: "number") == "4111111111111111" && card.value(of: "cvc") == "123" && card.value(of: "expiry") == "2029-04" && card.value(of: "cardholder") == "Jane Doe")
        #expect(byTitle["Archived note"]?.item.isTrashed == true)
        let wifi = try #require(byTitle["Home Wi-Fi"])
        #expect(wifi.vaultName == "Shared" && wifi.item.category == .wifi && wifi.item.value(of: "ssid") == "HomeNet" && wifi.item.password == "wifi-pass-1")
        for entry in p.entries { _ = try entry.item.validated() }
        // Not a ZIP, a ZIP without export.data, and a cut-off archive.
        #expect(throws: InteropError.notThisFormat(format: "1pux")) { try OnePasswordImport.plan(Array("not a zip at all, no".utf8), groupsAsVaults: false, now: now) }
        let zip = try KDBXReadTests.fixture("onepassword.1pux")
        #expect(throws: InteropError.self) { try OnePasswordImport.plan(Array(zip.prefix(zip.count - 30)), groupsAsVaults: false, now: now) }
    }

    @Test func onePasswordDocumentsAndStrayFiles() throws {
        let p = try OnePasswordImport.plan(try KDBXReadTests.fixture("onepassword-documents.1pux"), groupsAsVaults: false, now: now)
        #expect(p.notBrought == ["attachment": 1, "recoveryPhrase": 1], "the file no item names is counted")
        let passport = try #require(p.entries.first { $0.item.title == "Passport scan" })
        #expect(passport.item.category == .document && passport.item.notes == "scanned 2024")
        #expect(passport.files.map(\.name) == ["passport.pdf"] && passport.files.first?.bytes == Array("%PDF-1.4\n% a passport scan\n".utf8), "a Document item's file")
        #expect(p.entries.first { $0.item.title == "GitHub" }?.files.map(\.name) == ["codes.txt"])
    }

    /// An archive that claims a file larger than the import's budget: that file is counted as not brought,
    /// before a byte of it is inflated, and the rest comes.
    @Test func aOnePUXFileClaimingTooMuchIsCountedNotInflated() throws {
        var zip = try KDBXReadTests.fixture("onepassword-documents.1pux")
        let name = Array("files/d2__passport.pdf".utf8)
        // The name's last appearance is in the central directory; its header starts 46 bytes before it, and
        // the stated (uncompressed) size is at offset 24 of that header.
        let at = try #require((0...(zip.count - name.count)).last { Array(zip[$0..<$0 + name.count]) == name })
        let header = at - 46
        #expect(Array(zip[header..<header + 4]) == [0x50, 0x4B, 0x01, 0x02])
        for (i, byte) in [UInt8(0xFF), 0xFF, 0xFF, 0x7F].enumerated() { zip[header + 24 + i] = byte }
        let p = try OnePasswordImport.plan(zip, groupsAsVaults: false, now: now)
        #expect(p.notBrought["attachment"] == 2, "the stray file and the one past the budget")
        #expect(p.entries.first { $0.item.title == "Passport scan" }?.files.isEmpty == true)
        #expect(p.entries.first { $0.item.title == "GitHub" }?.files.map(\.name) == ["codes.txt"])
    }

    @Test(arguments: ["protonpass.zip", "protonpass.json"])
    func protonPassExports(_ name: String) throws {
        let p = try ProtonPassImport.plan(try KDBXReadTests.fixture(name), groupsAsVaults: false, now: now)
        #expect(p.source == "Proton Pass export, unencrypted")
        #expect(p.notBrought == ["passkey": 1, "unknownType": 1])
        let items = p.entries.map(\.item)
        #expect(items.map(\.title) == ["Proton Mail", "Visa", "Old note", "Shop alias", "Office Wi-Fi"])
        let mail = items[0]
        #expect(mail.username == "me" && mail.password == "Pr0ton-Secret!" && mail.isFavorite && mail.notes == "main account")
        #expect(mail.websites == ["https://account.proton.me", "https://mail.proton.me"])
        #expect(mail.value(of: "otp")?.hasPrefix("otpauth://totp/") == true)
        #expect(mail.field(named: "Email")?.value == "me@proton.me" && mail.field(named: "Recovery PIN")?.kind == .hidden && mail.field(named: "Plan")?.value == "Plus")
        #expect(mail.created == Date(timeIntervalSince1970: 1_700_000_000) && mail.lastChanged == Date(timeIntervalSince1970: 1_700_003_600))
        #expect(mail.tags == ["Personal"])
        let card = items[1]
        #expect(card.category == .creditCard && card.value(of: "number") == "4111111111111111" && card.value(of: "expiry") == "2029-03" && card.value(of: "cvc") == "123")
        #expect(items[2].isTrashed && items[2].category == .secureNote)
        #expect(items[3].username == "shop.x1@passmail.net" && items[3].tags == ["Work"])
        #expect(items[4].category == .wifi && items[4].value(of: "ssid") == "office" && items[4].password == "wifi-pass-1")
        for item in items { _ = try item.validated() }
        let asVaults = try ProtonPassImport.plan(try KDBXReadTests.fixture(name), groupsAsVaults: true, now: now)
        #expect(asVaults.entries.map { $0.vaultName ?? "-" } == ["Personal", "Personal", "-", "Work", "Work"])
        #expect(throws: InteropError.self) { try ProtonPassImport.plan(Array("-----BEGIN PGP MESSAGE-----".utf8), groupsAsVaults: false, now: now) }
        #expect(throws: InteropError.notThisFormat(format: "Proton Pass")) { try ProtonPassImport.plan(Array(#"{"a": 1}"#.utf8), groupsAsVaults: false, now: now) }
    }

    @Test func otpauthListsOfLinksAndMigrationExports() throws {
        let p = try OTPAuthListImport.plan(try KDBXReadTests.fixture("otpauth-list.txt"), groupsAsVaults: false)
        #expect(p.source == "a list of 4 otpauth links")
        #expect(OTPAuthListImport.looksLikeList(try KDBXReadTests.fixture("otpauth-list.txt")), "a comment line first")
        #expect(!OTPAuthListImport.looksLikeList(Array("# notes\nnot a link\notpauth://totp/x?secret=JBSWY3DPEHPK3PXP".utf8)))
        #expect(p.notBrought == ["invalidCode": 1])
        let items = p.entries.map(\.item)
        #expect(items.map(\.title) == ["Example", "GitHub", "Bank", "Example", "Bank"])
        #expect(items.allSatisfy { $0.category == .oneTimePassword })
        let github = try OTPInput.parse(try #require(items[1].value(of: "otp")))
        #expect(github.digits == 8 && github.algorithm == .sha256 && items[1].username == "octocat")
        let bank = try OTPInput.parse(try #require(items[2].value(of: "otp")))
        #expect(bank.kind == .hotp && bank.counter == 7)
        // The code of the first account at counter 1, as oathtool computes it for the same secret.
        let example = try OTPInput.parse(try #require(items[0].value(of: "otp")))
        #expect(example.code(counter: 1) == "996554")  // oathtool -b JBSWY3DPEHPK3PXP -c 1
        #expect(throws: InteropError.notThisFormat(format: "otpauth")) { try OTPAuthListImport.plan(Array("# nothing\n\n".utf8), groupsAsVaults: false) }
        #expect(throws: InteropError.notThisFormat(format: "otpauth")) { try OTPAuthListImport.plan([0xFF, 0xFE, 0x00], groupsAsVaults: false) }
    }

    /// Password-protected exports (fixtures made once by make-bitwarden-protected.py in Bitwarden's layout):
    /// the same items as the plain export, with PBKDF2 and with Argon2id; a wrong password, a changed MAC and
    /// hostile key-derivation costs are refused.
    @Test(arguments: ["bitwarden-protected-pbkdf2.json", "bitwarden-protected-argon2.json"])
    func passwordProtectedBitwardenExports(_ name: String) throws {
        let bytes = try KDBXReadTests.fixture(name)
        let password = SecretBytes(copying: Array("fixture-password".utf8))
        let opened = try BitwardenImport.plan(bytes, password: password, groupsAsVaults: false, now: now)
        let plain = try plan("bitwarden.json")
        #expect(opened.entries.map(\.item.title) == plain.entries.map(\.item.title))
        #expect(opened.entries.map { $0.item.password } == plain.entries.map { $0.item.password })
        #expect(opened.source.hasPrefix("Bitwarden JSON export, password-protected, " + (name.contains("argon2") ? "Argon2id 64 MiB × 3 passes × 4 lanes" : "PBKDF2-SHA256 100000")))
        let plainBytes = try KDBXReadTests.fixture("bitwarden.json")
        #expect(ImportFormat.needsPassword(bytes, format: "bitwarden-json") && !ImportFormat.needsPassword(plainBytes, format: "bitwarden-json"))
        #expect(throws: InteropError.wrongPassword) { try BitwardenImport.plan(bytes, password: SecretBytes(copying: Array("not it".utf8)), groupsAsVaults: false, now: now) }
        #expect(throws: InteropError.wrongPassword) { try BitwardenImport.plan(bytes, password: nil, groupsAsVaults: false, now: now) }
        // One bit of the data's MAC changed: the same answer as a wrong password, nothing decrypted.
        var json = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        var data = try #require(json["data"] as? String)
        let last = data.index(data.endIndex, offsetBy: -3)
        data.replaceSubrange(last...last, with: data[last] == "A" ? "B" : "A")
        json["data"] = data
        #expect(throws: InteropError.wrongPassword) { try BitwardenImport.plan(Array(try JSONSerialization.data(withJSONObject: json)), password: password, groupsAsVaults: false, now: now) }
        json["kdfType"] = 0
        json["kdfIterations"] = 2_000_000_000
        #expect(throws: InteropError.self) { try BitwardenImport.plan(Array(try JSONSerialization.data(withJSONObject: json)), password: password, groupsAsVaults: false, now: now) }
    }

    /// 300 mutations of a password-protected export (those that keep the JSON reach the key derivation).
    @Test func mutatedProtectedBitwardenExportsNeverCrash() throws {
        let sample = try KDBXReadTests.fixture("bitwarden-protected-pbkdf2.json")
        let password = SecretBytes(copying: Array("fixture-password".utf8))
        var rng = SplitMix64(seed: KDBXMutationTests.seed(0x6277_7072))
        var refused = 0
        for _ in 0..<300 {
            do {
                _ = try BitwardenImport.plan(KDBXMutationTests.mutate(sample, &rng), password: password, groupsAsVaults: false, now: now)
            } catch is InteropError {
                refused += 1
            }
        }
        #expect(refused > 0, "most mutations are refused, each with a clear error")
    }

    @Test func encryptedBitwardenExportsAreNamed() throws {
        let protected = #"{"encrypted": true, "passwordProtected": true, "salt": "x", "kdfType": 0, "kdfIterations": 600000, "data": "2.x|y|z"}"#
        #expect(throws: InteropError.self) { try BitwardenImport.plan(Array(protected.utf8), password: SecretBytes(copying: [1, 2, 3]), groupsAsVaults: false, now: now) }
        let accountBound = #"{"encrypted": true, "items": []}"#
        #expect(throws: InteropError.self) { try BitwardenImport.plan(Array(accountBound.utf8), groupsAsVaults: false, now: now) }
        #expect(throws: InteropError.notThisFormat(format: "Bitwarden JSON")) { try BitwardenImport.plan(Array("[1,2]".utf8), groupsAsVaults: false, now: now) }
    }

    @Test(arguments: ["chrome.csv", "firefox.csv", "bitwarden.csv", "bitwarden.json", "onepassword.1pux", "onepassword-documents.1pux", "otpauth-list.txt", "protonpass.zip", "protonpass.json", "cxf.json"])
    func tenThousandMutationsNeverCrash(_ name: String) throws {
        let sample = try KDBXReadTests.fixture(name)
        var rng = SplitMix64(seed: KDBXMutationTests.seed(0x7465_7874) ^ UInt64(name.utf8.count))
        var read = 0, refused = 0
        let count = Soak.count(2_000, soak: 10_000)
        for _ in 0..<count {
            let mutated = KDBXMutationTests.mutate(sample, &rng)
            do {
                let p =
                    name.hasPrefix("cxf") ? try CXFImport.plan(mutated, groupsAsVaults: false, now: now)
                    : name.hasPrefix("bitwarden") && name.hasSuffix(".json")
                    ? try BitwardenImport.plan(mutated, groupsAsVaults: false, now: now)
                    : name.hasSuffix(".1pux") ? try OnePasswordImport.plan(mutated, groupsAsVaults: false, now: now)
                    : name.hasSuffix(".txt") ? try OTPAuthListImport.plan(mutated, groupsAsVaults: false)
                    : name.hasPrefix("protonpass") ? try ProtonPassImport.plan(mutated, groupsAsVaults: false, now: now)
                    : try CSVImport.plan(mutated, mapping: [:], groupsAsVaults: false, now: now)
                for entry in p.entries { _ = try? entry.item.validated() }
                read += 1
            } catch is InteropError {
                refused += 1
            }
        }
        #expect(read + refused == count)
        #expect(read > 0, "some mutations leave a readable file")
    }
}
