import Foundation
import PassboxCore
import PassboxCrypto
@testable import PassboxStore
import PassboxStoreFakes
import PassboxTestKit
import Testing

/// The backup format (security.md §8; G55–G57, G67, G78): golden backups made once that still open and are
/// rewritten byte for byte, round trips of everything a vault holds, the padding, and every bad input
/// refused with nothing made.
@Suite struct BackupFileTests {
    static let cheap = Argon2Parameters(memoryKiB: 64, passes: 1, lanes: 1)

    func coercionFixture(_ password: String) throws -> OpenVault {
        let dir = try TemporaryDirectory()
        let url = try #require(Bundle.module.url(forResource: "Fixtures/coercion-v1/vault", withExtension: "pbx"))
        try FileManager.default.copyItem(at: url, to: dir.file("vault.pbx"))
        return try VaultStore(directory: dir.path, clock: FakeClock()).unlock(password: password)
    }

    func fixture(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/backup-v1/\(name)", withExtension: "pbbackup"))
        return Array(try Data(contentsOf: url))
    }

    /// `Fixtures/backup-v1`: the coercion fixture's real vault backed up once (2 December 2026) with the
    /// backup password "backup fixture password v1" at the real parameters, padded to 32 KiB
    /// (`vault.pbbackup`) and by a random amount as a transfer is (`transfer.pbbackup`). Never regenerated.
    @Test func theGoldenBackupsOpenAndAreRewrittenByteForByte() throws {
        let fixed = try fixture("vault"), transfer = try fixture("transfer")
        #expect(Hex.string(Hash.sha256(fixed)) == "e27c18e3d27a4a944ad89e5fda7bc10e71874cfce4deccb1be066faecb55821f")
        #expect(Hex.string(Hash.sha256(transfer)) == "2823ca402ed4874656ba0ae31fae578c0d577607099c852000ea01f54a2759e0")
        #expect(fixed.count == 32_768 && transfer.count == 6_226)
        let header = try BackupFile.header(of: fixed)
        #expect(header.kdf == BackupFile.parameters && header.padding == .fixed)
        #expect(try BackupFile.header(of: transfer).padding == .random)
        // One derivation at the real parameters (about 16 s of one core) for both: they share the password's salt
        // (the accepted limit AL-4). Opening by password is the same derivation then this open, which the
        // cheap-parameter tests below take whole.
        let key = try BackupFile.deriveKey(password: VaultStore.passwordBytes("backup fixture password v1"), salt: header.salt, parameters: header.kdf)
        let contents = try BackupFile.open(fixed, header: header, key: key)
        let source = BackupFile.portable(try coercionFixture("fixture password v1").vault)
        #expect(contents.vault == source, "the backup is exactly the vault it was made of")
        #expect(contents.vault.hiddenItems.map(\.title) == ["Hidden note"] && !contents.vault.keyrings.killphrase.isEmpty)
        #expect(contents.made == Date(timeIntervalSince1970: 1_796_169_600.123))
        let settings = BackupSettings(key: key.revealBytes(), salt: header.salt, kdf: header.kdf)
        for (bytes, padding) in [(fixed, BackupFile.Padding.fixed), (transfer, .random)] {
            let h = try BackupFile.header(of: bytes)
            let plain = try XChaCha20Poly1305.open(Array(bytes[64...]), key: key, nonce: h.nonce, associatedData: Array(bytes.prefix(64)))
            let length = Int(plain.prefix(8).enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) })
            let opened = try BackupFile.open(bytes, header: h, key: key)
            #expect(opened.vault == source)
            let rewritten = try BackupFile.seal(opened.vault, settings: settings, made: opened.made, padding: padding, nonce: h.nonce, paddingBytes: Array(plain[(8 + length)...]))
            #expect(rewritten == bytes, "the encryptor given the fixture's salt, nonce and padding rewrites it")
        }
    }

    /// A vault with every category, history, trash, killphrases, hidden and sealed items.
    func richVault(items: Int = 0) throws -> Vault {
        var vault = Vault.newLocal(slotOrder: Array(0..<16), created: Date(timeIntervalSince1970: 1_790_000_000))
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        for (i, category) in Category.all.enumerated() {
            var item = Item(category: category, title: "\(category.rawValue) item", notes: "notes of \(i)")
            if category == .login { item.fields = [Field(key: "username", label: "username", kind: .text, value: "me@example.com"), Field(key: "password", label: "password", kind: .hidden, value: "pw-\(i)")] }
            let saved = try vault.add(item, now: start)
            try vault.update(id: saved.id, now: start.addingTimeInterval(60)) { $0.notes = "edited \(i)" }
        }
        let trashed = try vault.add(Item(category: .secureNote, title: "Old thing"), now: start)
        try vault.trash(id: trashed.id, now: start.addingTimeInterval(120))
        var doomed = Item(category: .login, title: "Doomed")
        doomed.killphrase = try vault.phraseDigest("burn it", kind: .killphrase)
        try vault.add(doomed, now: start)
        var hidden = Item(category: .secureNote, title: "Hidden")
        hidden.searchPassphrase = try vault.phraseDigest("under the bridge", kind: .searchPassphrase)
        try vault.add(hidden, now: start)
        var sealed = Item(category: .secureNote, title: "Sealed")
        sealed.notes = "the plan"
        try ItemSeal.seal(&sealed, password: VaultStore.passwordBytes("item password"), parameters: Self.cheap)
        try vault.add(sealed, now: start)
        for n in 0..<items {
            let item = Item(
                category: .login, title: "Login \(n)",
                fields: [Field(key: "username", label: "username", kind: .text, value: "user\(n)@example.com"), Field(key: "password", label: "password", kind: .hidden, value: "pw-\(n)-\(UInt64(n) &* 0x9E37_79B9_7F4A_7C15)")],
                websites: ["https://site\(n).example.com/login"])
            try vault.add(item, now: start)
        }
        vault.settleHiddenItems()
        return vault
    }

    func settings(_ password: String = "backup password") throws -> BackupSettings {
        try BackupFile.settings(password: VaultStore.passwordBytes(password), hint: "", parameters: Self.cheap)
    }

    @Test func everythingAVaultHoldsComesBack() throws {
        let vault = try richVault()
        #expect(vault.hiddenItems.map(\.title) == ["Hidden"] && vault.items.contains { $0.isTrashed } && vault.items.contains { !$0.history.isEmpty })
        var withSettings = vault
        withSettings.backup = try settings()
        let bytes = try BackupFile.seal(withSettings, settings: withSettings.backup!, made: Date(), padding: .fixed)
        let opened = try BackupFile.open(bytes, password: VaultStore.passwordBytes("backup password"))
        #expect(opened.vault == BackupFile.portable(vault))
        #expect(opened.vault.backup == nil && opened.vault.slotOrder.isEmpty, "the key, the slot order and sync state stay behind")
        #expect(opened.vault.killphraseMatches("BURN it").count == 1 && opened.vault.hiddenMatches("under the bridge").map(\.title) == ["Hidden"])
        let sealed = try #require(opened.vault.items.first { $0.title == "Sealed" })
        #expect(try ItemSeal.open(sealed, password: VaultStore.passwordBytes("item password")).notes == "the plan")
        #expect(!ByteSearch.contains(bytes, Array("me@example.com".utf8)) && !ByteSearch.contains(bytes, Array("Sealed".utf8)))
    }

    @Test func savedBackupsArePaddedTo32KiBThenDoublingAndTransfersByARandomAmount() throws {
        let s = try settings()
        #expect(try BackupFile.seal(Vault(), settings: s, made: Date(), padding: .fixed).count == 32_768)
        #expect(try BackupFile.seal(try richVault(), settings: s, made: Date(), padding: .fixed).count == 32_768)
        let large = try richVault(items: 2_000)
        let size = try BackupFile.seal(large, settings: s, made: Date(), padding: .fixed).count
        #expect(size > 32_768 && size & (size - 1) == 0, "a power of two: \(size)")
        var transferSizes = Set<Int>()
        for _ in 0..<8 { transferSizes.insert(try BackupFile.seal(large, settings: s, made: Date(), padding: .random).count) }
        #expect(transferSizes.count > 1 && transferSizes.allSatisfy { $0 < size + BackupFile.transferPaddingLimit })
    }

    @Test func aTenThousandItemBackupRoundTrips() throws {
        let vault = try richVault(items: 10_000)
        let s = try settings()
        let bytes = try BackupFile.seal(vault, settings: s, made: Date(), padding: .fixed)
        #expect(bytes.count & (bytes.count - 1) == 0)
        let opened = try BackupFile.open(bytes, password: VaultStore.passwordBytes("backup password"))
        #expect(opened.vault.items.count == vault.items.count && opened.vault == BackupFile.portable(vault))
    }

    @Test func eachVaultOfTheFileBacksUpOnlyItself() throws {
        let duress = try coercionFixture("duress password level 1").vault
        let bytes = try BackupFile.seal(duress, settings: try settings(), made: Date(), padding: .fixed)
        let opened = try BackupFile.open(bytes, password: VaultStore.passwordBytes("backup password"))
        #expect(opened.vault.items.map(\.title) == ["Decoy mail"] && opened.vault.hiddenItems.isEmpty)
        #expect(bytes.count == 32_768, "the same size as any small vault's")
    }

    @Test func badInputIsRefusedByName() throws {
        let s = try settings()
        let good = try BackupFile.seal(try richVault(), settings: s, made: Date(), padding: .fixed)
        #expect(throws: BackupError.wrongPassword) { try BackupFile.open(good, password: VaultStore.passwordBytes("another password")) }
        for cut in [10, 63, 64, 100, 20_000, good.count - 1] {
            #expect(throws: BackupError.truncated) {
                try BackupFile.open(Array(good.prefix(cut)), password: VaultStore.passwordBytes("backup password"))
            }
        }
        var altered = good
        altered[5_000] ^= 1
        #expect(throws: BackupError.wrongPassword) { try BackupFile.open(altered, password: VaultStore.passwordBytes("backup password")) }
        var header = good
        header[30] ^= 1  // the salt: a header is the encryption's associated data
        #expect(throws: BackupError.wrongPassword) { try BackupFile.open(header, password: VaultStore.passwordBytes("backup password")) }
        #expect(throws: BackupError.notABackup) { try BackupFile.open(Array("not a backup at all".utf8), password: VaultStore.passwordBytes("x")) }
        #expect(throws: BackupError.notABackup) { try BackupFile.open([], password: VaultStore.passwordBytes("x")) }
        var newer = good
        newer[8] = 2
        #expect(throws: BackupError.newerFormat(version: 2)) { try BackupFile.open(newer, password: VaultStore.passwordBytes("backup password")) }
        // A hostile header asking for 4 GiB or 10,000 passes is refused before any derivation.
        var greedy = good
        greedy[12...15] = [0, 0, 0, 1]
        #expect(throws: BackupError.notABackup) { try BackupFile.open(greedy, password: VaultStore.passwordBytes("backup password")) }
        var slow = good
        slow[16...19] = [0x10, 0x27, 0, 0]
        #expect(throws: BackupError.notABackup) { try BackupFile.open(slow, password: VaultStore.passwordBytes("backup password")) }
    }

    /// G78: a backup whose content would expand past 64 MiB is refused, sealed with the right key and all.
    @Test func aDecompressionBombIsRefused() throws {
        let s = try settings()
        var zeros = [UInt8](repeating: 0, count: BackupFile.expandedLimit + 1)
        let compressed = try zeros.withUnsafeBytes { try Deflate.compress($0, level: 9) }
        zeros = []
        let header = BackupFile.Header(padding: .random, kdf: s.kdf, salt: s.salt, nonce: SecureRandom.bytes(count: 24))
        let plain = withUnsafeBytes(of: UInt64(compressed.count).littleEndian, Array.init) + compressed
        let bomb = header.bytes + (try XChaCha20Poly1305.seal(plain, key: SecretBytes(copying: s.key), nonce: header.nonce, associatedData: header.bytes))
        #expect(bomb.count < 100_000, "a small file that would expand past the bound")
        #expect(throws: BackupError.tooLarge(limitMiB: 64)) { try BackupFile.open(bomb, password: VaultStore.passwordBytes("backup password")) }
        // A length that points past the plaintext is damage, not a crash.
        let lying = withUnsafeBytes(of: UInt64(1 << 40).littleEndian, Array.init) + compressed
        let liar = header.bytes + (try XChaCha20Poly1305.seal(lying, key: SecretBytes(copying: s.key), nonce: header.nonce, associatedData: header.bytes))
        #expect(throws: BackupError.notABackup) { try BackupFile.open(liar, password: VaultStore.passwordBytes("backup password")) }
    }

    @Test func theBackupSettingsTravelInThePayload() throws {
        var vault = try richVault()
        var s = try settings()
        s.folder = "/home/someone/backups"
        s.retentionDays = 7
        s.written = [.init(name: "passbox-auto-1.pbbackup", made: Date(timeIntervalSince1970: 1_790_000_100))]
        s.lastBackup = Date(timeIntervalSince1970: 1_790_000_100)
        s.hint = "the usual"
        vault.backup = s
        let packed = vault.packed()
        let back = try packed.withUnsafeBytes { try Vault(unpacking: $0) }
        #expect(back.backup == s)
    }
}

