import Foundation
import PassboxCore
import PassboxCrypto
import PassboxImaging
import PassboxProtocol
import PassboxService
import PassboxStore
import PassboxTestKit
import Testing

/// Backups as a person uses them on the command line, without an agent: a file and a PDF, the PDF read
/// back through pdftoppm and libzbar from its pages in any order, missing pages named, the golden PDF made
/// once still restoring at the real derivation, and auto-backup's retention.
@Suite struct BackupCommandTests {
    let password = "correct horse battery"
    let backupPassword = "a backup password of its own"

    func session() throws -> AgentEndToEndTests.Session {
        let s = try AgentEndToEndTests.Session()
        #expect(try s.run(["init", "--insecure-test-kdf"], [password]).status == 0)
        return s
    }

    func sha(_ path: String) throws -> String { Hex.string(Hash.sha256(Array(try Data(contentsOf: URL(fileURLWithPath: path))))) }

    /// The PDF's pages as images, rendered by poppler's pdftoppm as a scanner or a screenshot would: at 150 dpi,
    /// the lower of a scanner's usual settings (every code of a page reads at it; 300 dpi only made zbar's work
    /// four times larger); PNG, or JPEG as most scanners save them (PNG's compression costs pdftoppm about a CPU
    /// second a page).
    func pages(_ pdf: String, into dir: String, dpi: Int = 150, jpeg: Bool = false) throws -> [String] {
        let format = jpeg ? ["-jpeg", "-jpegopt", "quality=90"] : ["-png"]
        let rendered = try Transcript.execute("/usr/bin/pdftoppm", ["-r", String(dpi), "-gray"] + format + [pdf, dir + "/page"], stdin: [], environment: [:])
        #expect(rendered.status == 0, "\(rendered.stderr)")
        return try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("page") }.sorted().map { dir + "/" + $0 }
    }

    @Test func aFileAndAPDFBackupRestoreAndBadOnesChangeNothing() throws {
        let s = try session()
        #expect(try s.run(["add", "login", "--title", "Mail", "--username", "me@example.com", "--killphrase-stdin"], [password, "burn the mail"]).status == 0)
        for n in 0..<30 { #expect(try s.run(["add", "login", "--title", "Site \(n)", "--username", "user\(n)"], [password]).status == 0) }
        let none = try s.run(["backup", "--file", s.dir.path + "/a.pbbackup"], [password])
        #expect(none.status == 1 && none.stderr.contains("this vault has no backup password yet"))
        #expect(try s.run(["check"], [password]).stdout.contains("Backups: no backup password yet"))
        let tellingHint = try s.run(["backup", "password", "--hint", "it is \(backupPassword.uppercased())!", "--insecure-test-kdf"], [password, backupPassword])
        #expect(tellingHint.status == 1 && tellingHint.stderr.contains("the hint holds the password itself"))
        #expect(try s.run(["backup", "password", "--hint", "two\nlines"], [password]).stderr.contains("a hint is one line"))
        #expect(try s.run(["restore", s.dir.path], [password]).stderr.contains("is a folder"))
        try Data("plain text".utf8).write(to: URL(fileURLWithPath: s.dir.path + "/notes.txt"))
        #expect(try s.run(["restore", s.dir.path + "/notes.txt"], [password]).stderr.contains("is not a Passbox backup, a PDF backup or an image of its codes"))
        let set = try s.run(["backup", "password", "--hint", "the long one", "--insecure-test-kdf"], [password, backupPassword])
        #expect(set.status == 0 && set.stdout == "Set the backup password.\n", "\(set.stderr)")
        #expect(try s.run(["check"], [password]).stdout.contains("Backups: none saved yet"))

        let file = s.dir.path + "/vault.pbbackup", pdf = s.dir.path + "/vault.pdf"
        let madeFile = try s.run(["backup", "--file", file], [password])
        #expect(madeFile.status == 0 && madeFile.stdout == "Saved a backup of 32768 bytes to \(file)\n")
        let again = try s.run(["backup", "--file", file], [password])
        #expect(again.status == 1 && again.stderr.contains("already exists"), "a backup never replaces a file")
        let madePDF = try s.run(["backup", "--pdf", pdf, "--paper", "a4"], [password])
        #expect(madePDF.status == 0 && madePDF.stdout.contains("35 QR codes on 9 pages"), "\(madePDF.stderr)")
        let pdfAgain = try s.run(["backup", "--pdf", pdf], [password])
        #expect(pdfAgain.status == 1 && pdfAgain.stderr.contains("already exists"), "a PDF never replaces a file either")
        let status = try s.run(["backup", "status"], [password])
        #expect(status.stdout.contains("Backup password: set") && status.stdout.contains("Hint: the long one") && !status.stdout.contains("Last backup: never"))
        #expect(!(try s.run(["check"], [password])).stdout.contains("Backups: none saved yet"))

        // The PDF shows in plain text only what G58 allows.
        let text = try Transcript.execute("/usr/bin/pdftotext", [pdf, "-"], stdin: [], environment: [:]).stdout
        #expect(text.contains("Passbox backup") && text.contains("page 1 of 9") && text.contains("35 QR codes") && text.contains("Hint: the long one") && text.contains("35 / 35"))
        #expect(!text.contains("Mail") && !text.contains("Site"))

        // Pages in any order, one twice; then with a page missing, the codes on it are named.
        let dir = try TemporaryDirectory()
        let images = try pages(pdf, into: dir.path, jpeg: true)
        #expect(images.count == 9)
        let vault = s.data + "/vault.pbx"
        let before = try sha(vault)
        let missing = try s.run(["restore"] + images.filter { $0 != images[2] }, [password, backupPassword])
        #expect(missing.status == 1 && missing.stderr.contains("codes 9, 10, 11, 12 of 35 are missing"), "\(missing.stderr)")
        let wrong = try s.run(["restore", file], [password, "not the backup password"])
        #expect(wrong.status == 3 && wrong.stderr.contains("the backup password does not open this backup"))
        let cut = s.dir.path + "/cut.pbbackup"
        try Data(try Data(contentsOf: URL(fileURLWithPath: file)).prefix(10_000)).write(to: URL(fileURLWithPath: cut))
        #expect(try s.run(["restore", cut], [password, backupPassword]).stderr.contains("the backup is cut off"))
        #expect(try s.run(["restore", images[0], file], [password]).status == 2, "a file is restored on its own")
        #expect(try sha(vault) == before, "nothing changed")

        let fromImages = try s.run(["restore"] + images.reversed() + [images[0]], [password, backupPassword])
        #expect(fromImages.status == 0 && fromImages.stdout.contains("as \"Personal (restored)\": 31 items"), "\(fromImages.stdout)\(fromImages.stderr)")
        #expect(fromImages.stderr.contains("4 codes read more than once were used once."))
        let fromPDF = try s.run(["restore", pdf], [password, backupPassword])
        #expect(fromPDF.status == 0 && fromPDF.stdout.contains("\"Personal (restored) 2\": 31 items"), "\(fromPDF.stderr)")
        let unconfirmed = try s.run(["restore", file, "--replace"], [password, backupPassword, "replace"])
        #expect(unconfirmed.status == 1 && unconfirmed.stderr.contains("the confirmation was not REPLACE"))
        let replaced = try s.run(["restore", file, "--replace"], [password, backupPassword, "REPLACE"])
        #expect(replaced.status == 0 && replaced.stdout.contains("Replaced this vault with the backup made"))
        #expect(try s.run(["vault", "list"], [password]).stdout.contains("(restored)") == false)
        // The killphrase came back with its key (G9): searching it deletes the item as before.
        #expect(try s.run(["search", "burn the mail"], [password]).stdout.contains("Mail") == false)
        #expect(!(try s.run(["list"], [password])).stdout.contains("Mail"))
    }

    /// A printed backup reads back as people scan it (issue 28): every page rendered at 150 dpi (the "Text"
    /// default of Debian's scanner app), and a phone-like photo of each (turned 4 degrees, blurred, a grey JPEG
    /// of quality 70) — each page's every code read, and either set restores the vault.
    @Test func aPrintedBackupReadsBackFromA150DpiScanAndFromPhotos() throws {
        let s = try session()
        for n in 0..<12 { #expect(try s.run(["add", "login", "--title", "Site \(n)", "--username", "user\(n)"], [password]).status == 0) }
        #expect(try s.run(["backup", "password", "--insecure-test-kdf"], [password, backupPassword]).status == 0)
        let pdf = s.dir.path + "/vault.pdf"
        let made = try s.run(["backup", "--pdf", pdf, "--paper", "letter"], [password])
        #expect(made.status == 0 && made.stdout.contains("35 QR codes on 9 pages"), "\(made.stdout)\(made.stderr)")
        let dir = try TemporaryDirectory()
        let scans = try pages(pdf, into: dir.path)
        #expect(scans.count == 9)
        let photo = try #require(Resources.script("photo"))
        var photos: [String] = []
        for (n, scan) in scans.enumerated() {
            let codes = try QRCodeReader.decode(file: scan)
            #expect(codes.count == (n < 8 ? 4 : 3), "page \(n + 1) at 150 dpi: \(codes.count) codes read")
            let target = dir.path + "/photo-\(n + 1).jpg"
            let taken = try Transcript.execute("/usr/bin/python3", [photo.path, scan, target, n % 2 == 0 ? "4" : "-3"], stdin: [], environment: [:])
            #expect(taken.status == 0, "\(taken.stderr)")
            let fromPhoto = try QRCodeReader.decode(file: target)
            #expect(fromPhoto.count == codes.count, "page \(n + 1) photographed: \(fromPhoto.count) codes read")
            photos.append(target)
        }
        let fromScans = try s.run(["restore"] + scans, [password, backupPassword])
        #expect(fromScans.status == 0 && fromScans.stdout.contains("12 items"), "\(fromScans.stdout)\(fromScans.stderr)")
        let fromPhotos = try s.run(["restore"] + photos, [password, backupPassword])
        #expect(fromPhotos.status == 0 && fromPhotos.stdout.contains("12 items"), "\(fromPhotos.stdout)\(fromPhotos.stderr)")
    }

    /// `Transcripts/fixtures/backup-v1.pdf`: the coercion fixture's real vault backed up once as a PDF (A4,
    /// hint "the fixture's") with the backup password "backup fixture password v1" at the real parameters.
    @Test func theGoldenPDFBackupStillRestores() throws {
        let url = try #require(Bundle.module.url(forResource: "Transcripts/fixtures/backup-v1", withExtension: "pdf"))
        #expect(try sha(url.path) == "d67c0a89e587dc37baffffde263dfc77a5a95e61ad387269f219ce0f2306dc7c")
        let s = try session()
        let restored = try s.run(["restore", url.path], [password, "backup fixture password v1"])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.stdout.contains("as \"Personal (restored)\": 5 items, 0 in the trash"), "\(restored.stdout)")
        let list = try s.run(["list"], [password]).stdout
        for title in ["Burnable login", "Cold wallet", "Everyday mail", "Paper key", "Protected note"] { #expect(list.contains(title)) }
        #expect(try s.run(["search", "safe house address"], [password]).stdout.contains("Hidden note"), "the hidden note and its passphrase's key came with it")
    }

    /// The test's clock, moved by hand.
    final class Clock: @unchecked Sendable {
        // @unchecked: one test's thread only.
        var now = Date(timeIntervalSince1970: 1_800_000_000)
    }

    /// A vault (cheap key derivations) with a backup password and auto-backup into DIR/auto, kept 2 days, on a clock.
    func autoBackupVault(_ dir: TemporaryDirectory) throws -> (VaultService, String, Clock) {
        let data = dir.path + "/data", folder = dir.path + "/auto"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let clock = Clock()
        let service = VaultService(dataDirectory: data, now: { clock.now })
        service.backupParameters = Argon2Parameters(memoryKiB: 64, passes: 1, lanes: 1)
        _ = try service.create(password: password, parameters: Argon2Parameters(memoryKiB: 64, passes: 1, lanes: 1))
        _ = try service.perform(.backupPassword(BackupPasswordRequest(current: SecretText(password), password: SecretText(backupPassword))))
        _ = try service.perform(.backupAuto(BackupAutoRequest(folder: folder, retentionDays: 2)))
        return (service, folder, clock)
    }

    /// G62 with a clock: files past the retention are deleted, only auto-backup's own, never the newest.
    @Test func autoBackupKeepsItsRetentionAndTouchesNothingElse() throws {
        let dir = try TemporaryDirectory()
        let (service, folder, clock) = try autoBackupVault(dir)
        let mine = folder + "/passbox-auto-mine.pbbackup"
        try Data("the user's own file".utf8).write(to: URL(fileURLWithPath: mine))
        for day in 0..<5 {
            _ = try service.perform(.add(AddRequest(category: "login", changes: ItemChanges(title: "Day \(day)"))))
            clock.now = clock.now.addingTimeInterval(86_400)
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        // Made on days 0–4; at day 4's backup the cutoff is day 2: days 2, 3 and 4 stay, with the user's file.
        #expect(files.count == 4 && files.contains("passbox-auto-mine.pbbackup"), "\(files)")
        #expect(try service.perform(.backupView).backup().autoBackups == 3)
        // A long quiet spell: the newest is kept however old.
        clock.now = clock.now.addingTimeInterval(100 * 86_400)
        _ = try service.perform(.add(AddRequest(category: "login", changes: ItemChanges(title: "Much later"))))
        let later = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0 != "passbox-auto-mine.pbbackup" }
        #expect(later.count == 1)
        #expect(try String(contentsOfFile: mine, encoding: .utf8) == "the user's own file")
        // Two changes in one second: a new name, never over the first (O_EXCL).
        _ = try service.perform(.add(AddRequest(category: "login", changes: ItemChanges(title: "Same second A"))))
        _ = try service.perform(.add(AddRequest(category: "login", changes: ItemChanges(title: "Same second B"))))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).contains { $0.hasSuffix("-2.pbbackup") })
    }

    /// Blob copies beside auto-backups go once no kept auto-backup refers to them: a file deleted for good
    /// keeps its copy while an older auto-backup holds it, and loses it when the retention deleted those;
    /// a backup file of another's in the folder keeps every copy.
    @Test func autoBackupsBlobCopiesGoWithTheLastBackupThatNeedsThem() throws {
        let dir = try TemporaryDirectory()
        let (service, folder, clock) = try autoBackupVault(dir)
        func attach(_ title: String, _ name: String) throws -> String {
            _ = try service.perform(.add(AddRequest(category: "document", changes: ItemChanges(title: title))))
            let reply = try service.perform(.attach(AttachRequest(item: title, base64: Data("the file \(name)".utf8).base64EncodedString(), name: name))).attachments()
            return try #require(reply.changed).id
        }
        let old = try attach("Old lease", "old.txt"), kept = try attach("Lease", "lease.txt")
        let copy = { (id: String) in FileManager.default.fileExists(atPath: folder + "/blobs/" + id) }
        #expect(copy(old) && copy(kept))

        // Day 1: the old file deleted for good; the auto-backups of day 0 still refer to it.
        clock.now = clock.now.addingTimeInterval(86_400)
        _ = try service.perform(.delete(ItemRequest(item: "Old lease")))
        _ = try service.perform(.trashDelete(ItemRequest(item: "Old lease")))
        #expect(copy(old), "day 0's auto-backups need it")
        // The list of retired blobs is kept in the vault file (read again after a lock).
        service.lock()
        _ = try service.unlock(password: SecretText(password))
        #expect(service.session?.vault.backup?.retiredBlobs.keys.contains(old) == true)
        // A backup file of another's in the folder: its blobs may be among them, so nothing is removed.
        let theirs = folder + "/my-own.pbbackup"
        try Data("not auto-backup's".utf8).write(to: URL(fileURLWithPath: theirs))
        clock.now = clock.now.addingTimeInterval(3 * 86_400)
        _ = try service.perform(.add(AddRequest(category: "login", changes: ItemChanges(title: "Day 4"))))
        #expect(copy(old) && copy(kept), "another's backup in the folder keeps every copy")
        // Without it, the next auto-backup's retention (day 2 and older gone) takes the copy no kept backup needs.
        try FileManager.default.removeItem(atPath: theirs)
        clock.now = clock.now.addingTimeInterval(60)
        _ = try service.perform(.add(AddRequest(category: "login", changes: ItemChanges(title: "Day 4, later"))))
        #expect(!copy(old), "no kept auto-backup refers to it")
        #expect(copy(kept), "the vault and every backup still refer to it")
        #expect(try service.perform(.backupView).backup().autoBackups == 2)
    }
}
