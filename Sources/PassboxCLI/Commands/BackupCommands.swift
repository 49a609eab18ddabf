import Foundation
import PassboxCore
import PassboxCrypto
import PassboxImaging
import PassboxProtocol
import PassboxService
import PassboxStore

/// Backups (docs/CLI.md "Backups"): the backup password, a file or a PDF of QR codes, auto-backup, and
/// restoring from a file, a PDF, or photos and screenshots of its pages.
extension Commands {
    static let backupUsage = "passbox backup --file F | --pdf F [--paper a4|letter] | password [--hint TEXT] | auto DIR [--keep-days N] | auto off | status"
    static let restoreUsage = "passbox restore FILE... [--replace [--yes]]"

    /// `passbox backup --file F` or `--pdf F`: the whole vault, encrypted under its backup password.
    static func backup(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: backupUsage)
        let file = args.value("file"), pdf = args.value("pdf")
        guard (file == nil) != (pdf == nil) else { throw CLIError.usage("passbox backup takes --file F or --pdf F", hint: backupUsage) }
        let path = absolute(file ?? pdf!)
        if let paper = args.value("paper"), !["a4", "letter"].contains(paper) {
            throw CLIError.usage("--paper takes a4 or letter", hint: "passbox backup --pdf F --paper letter")
        }
        let made = try context.send(.backupMake(BackupMakeRequest(format: file != nil ? "file" : "pdf", paper: args.value("paper"), path: path, language: context.language.rawValue))).backupMade()
        if file != nil {
            Console.out("Saved a backup of \(made.bytes) bytes to \(path)")
        } else {
            Console.out("Saved a PDF backup to \(path): \(made.codes) QR codes on \(made.pages) \(made.pages == 1 ? "page" : "pages")")
        }
        if let copied = made.attachmentsCopied, copied > 0, let path = made.path {
            Console.out("Copied \(Output.count(copied, "attachment's file")) (encrypted, as they are) to \((path as NSString).deletingLastPathComponent)/blobs: keep that folder with the backup.")
        }
        if let left = made.attachmentsLeftOut, left > 0 {
            Console.err("\(Output.count(left, "attachment's file")) \(left == 1 ? "is" : "are") not in this backup: a backup file (passbox backup --file F) copies them beside it.")
        }
        Console.err("It opens only with the backup password. Keep it somewhere other than this machine.")
    }

    /// `passbox backup password [--hint TEXT]`: the vault's password, then the new backup password (twice).
    static func backupPassword(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: "passbox backup password [--hint TEXT]")
        if let hint = args.value("hint"), hint.count > BackupSettings.hintLimit || hint.contains(where: \.isNewline) {
            throw ProtocolError(.backupHintInvalid, ["limit": String(BackupSettings.hintLimit)])
        }
        if args.flag("insecure-test-kdf") {
            Console.err("passbox: warning: --insecure-test-kdf makes backups that are cheap to attack; use it only for tests")
            context.endpoint.localService().backupParameters = Argon2Parameters(memoryKiB: 64, passes: 1, lanes: 1)
        }
        Console.err("Backups open only with the backup password; Passbox keeps a key made from it, never the password, so it can back up without asking. Choose one you will remember in years: there is no way around it.")
        let current = try context.input.secretText(prompt: "Current vault password: ")
        let password = try newPassword(context, prompt: "New backup password: ")
        Console.err("Deriving the backup key (512 MiB of memory, about 10 seconds on two cores)…")
        _ = try context.send(.backupPassword(BackupPasswordRequest(current: current, password: SecretText(password), hint: args.value("hint")))).backup()
        Console.out("Set the backup password.")
    }

    /// `passbox backup auto DIR [--keep-days N]` or `passbox backup auto off`.
    static func backupAuto(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: "passbox backup auto DIR [--keep-days N] | off")
        let days = try args.value("keep-days").map { value -> Int in
            guard let n = Int(value), (1...3650).contains(n) else { throw CLIError.usage("--keep-days takes 1 to 3650", hint: "passbox backup auto DIR --keep-days 30") }
            return n
        }
        if args.positionals[0] == "off" {
            _ = try context.send(.backupAuto(BackupAutoRequest(folder: nil))).backup()
            Console.out("Auto-backup is off. The files it wrote stay where they are.")
            return
        }
        try context.endpoint.prepare(.backupView)
        let before = try context.send(.backupView).backup()
        if let days, before.folder != nil, days < before.retentionDays, !args.flag("yes") {
            // G62: a shorter retention deletes files sooner; asked first.
            Console.err("Keeping auto-backups \(days) \(days == 1 ? "day" : "days") instead of \(before.retentionDays) deletes the older ones at the next backup. Type yes to go on:")
            guard context.input.readLine()?.trimmingCharacters(in: .whitespaces).lowercased() == "yes" else {
                throw CLIError.failure("nothing was changed: a shorter retention deletes older auto-backups sooner, so it asks first", hint: "type yes when asked, or add --yes")
            }
        }
        let folder = absolute(args.positionals[0])
        let view = try context.send(.backupAuto(BackupAutoRequest(folder: folder, retentionDays: days))).backup()
        Console.out("Auto-backup is on: after each change, a new backup in \(folder), kept \(Output.count(view.retentionDays, "day")) (the newest always).")
    }

    /// `passbox backup status`: the backup password, auto-backup and the last backup.
    static func backupStatus(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: "passbox backup status")
        let view = try context.send(.backupView).backup()
        if args.flag("json") { return try Output.json(view) }
        Console.out("Backup password: \(view.passwordSet ? "set" : "not set (passbox backup password)")")
        if !view.hint.isEmpty { Console.out("Hint: \(Console.visible(view.hint))") }
        Console.out("Auto-backup: \(view.folder.map { "into \($0), kept \(Output.count(view.retentionDays, "day")), \(Output.count(view.autoBackups, "file"))" } ?? "off")")
        Console.out("Last backup: \(view.lastBackup == nil ? "never" : Output.date(view.lastBackup))")
        if let problem = view.problem {
            let (message, hint) = Wording.error(problem, context.language)
            Console.out("The last auto-backup failed: \(message).\(hint.map { " Fix: \($0)." } ?? "")")
        }
    }

    /// `passbox restore FILE... [--replace]`: a .pbbackup file, a PDF backup, or images of its codes.
    static func restore(_ context: Context, _ args: Arguments) throws {
        guard !args.positionals.isEmpty else { throw CLIError.usage("passbox restore needs a backup file, a PDF or images of its codes", hint: restoreUsage) }
        let sources = args.positionals.map(absolute)
        var backupFile: String?
        var codes: [String] = []
        // Images (or PDF pages) on which no code could be read: named if codes turn out missing.
        var unreadable: [String] = []
        for path in sources {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
                throw CLIError.failure("\(path) is a folder", hint: "name the backup file, the PDF or the images themselves")
            }
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw CLIError.failure("cannot read \(path)", hint: "check the path and permissions")
            }
            let head = [UInt8]((try? handle.read(upToCount: 8)) ?? Data())
            try? handle.close()
            if head == BackupFile.magic {
                guard sources.count == 1 else { throw CLIError.usage("a backup file is restored on its own", hint: "passbox restore FILE.pbbackup") }
                backupFile = path
            } else if head.starts(with: Array("%PDF".utf8)) {
                let (found, blank) = try codesFromPDF(path)
                codes += found
                unreadable += blank.map { "page \($0) of \(path)" }
            } else if head.starts(with: [0x89, 0x50, 0x4e, 0x47]) || head.starts(with: [0xff, 0xd8, 0xff]) {
                do {
                    codes += try ParseChild.qrCodes(file: path)
                } catch let e as QRCodeReader.ReadError where e.reason == "noCode" {
                    unreadable.append(path)
                } catch let e as QRCodeReader.ReadError {
                    let (message, hint) = Wording.qr(e, context.language)
                    throw CLIError.failure(message, hint: hint)
                }
            } else {
                throw CLIError.failure("\(path) is not a Passbox backup, a PDF backup or an image of its codes", hint: "name a .pbbackup file, the PDF, or PNG or JPEG images of its pages")
            }
        }
        if backupFile == nil, codes.isEmpty, !unreadable.isEmpty {
            throw CLIError.failure("no QR code could be read on \(unreadable.joined(separator: ", "))", hint: "scan the pages at 300 dpi, or photograph each one closer and sharper")
        }
        try context.endpoint.prepare(.backupRestore)
        let password = try context.input.secretText(prompt: "Backup password: ")
        let mode = args.flag("replace") ? "replace" : "new"
        if mode == "replace", !args.flag("yes") {
            Console.err("This replaces everything this vault holds (its items, history, trash and vaults) with the backup. Type REPLACE to go on:")
            guard context.input.readLine()?.trimmingCharacters(in: .whitespaces) == "REPLACE" else {
                throw CLIError.failure("nothing was changed: the confirmation was not REPLACE", hint: "run it again and type REPLACE, or add --yes; without --replace the backup comes back beside what is here")
            }
        }
        let request = BackupRestoreRequest(password: password, mode: mode, path: backupFile, codes: backupFile == nil ? codes : nil, language: context.language.rawValue)
        let restored: RestoredReply
        do {
            restored = try context.send(.backupRestore(request)).restored()
        } catch let e as ProtocolError where e.code == .backupCodesMissing && !unreadable.isEmpty {
            let (message, _) = Wording.error(e, context.language)
            throw CLIError.failure(message, hint: "no code could be read on \(unreadable.joined(separator: ", ")): scan them at 300 dpi, or photograph them closer and sharper")
        }
        let made = Output.date(restored.made)
        if mode == "replace" {
            Console.out("Replaced this vault with the backup made \(made): \(Output.count(restored.items, "item")), \(restored.trashed) in the trash.")
        } else {
            Console.out("Restored the backup made \(made) as \(restored.vaults.map { "\"\($0)\"" }.joined(separator: ", ")): \(Output.count(restored.items, "item")), \(restored.trashed) in the trash.")
        }
        if let n = restored.attachmentsRestored, n > 0 { Console.out("Brought back \(Output.count(n, "attachment's file")) from the blobs folder beside the backup.") }
        if let n = restored.attachmentsMissing, n > 0 {
            Console.err("\(Output.count(n, "attachment's file")) \(n == 1 ? "was" : "were") not found whole in the blobs folder beside the backup (missing or damaged, so not kept): \(n == 1 ? "it is" : "they are") listed as not on this device.")
        }
        if restored.repeatedCodes > 0 { Console.err("\(Output.count(restored.repeatedCodes, "code")) read more than once \(restored.repeatedCodes == 1 ? "was" : "were") used once.") }
        if restored.foreignCodes > 0 { Console.err("\(Output.count(restored.foreignCodes, "code")) of another backup \(restored.foreignCodes == 1 ? "was" : "were") left out.") }
    }

    /// The codes on a PDF backup's pages, and the pages (numbered from 1) on which none could be read: each
    /// page rendered by pdftoppm (poppler-utils) into a private folder, read with libzbar, and removed.
    static func codesFromPDF(_ path: String) throws -> (codes: [String], unreadable: [Int]) {
        guard let pdftoppm = ["/usr/bin/pdftoppm", "/usr/local/bin/pdftoppm"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw CLIError.failure("reading a PDF needs pdftoppm", hint: "install it with \"apt-get install poppler-utils\", or restore from photos or screenshots of the pages")
        }
        let folder = NSTemporaryDirectory() + "passbox-pages-" + SecureRandom.bytes(count: 8).map { String(format: "%02x", $0) }.joined()
        guard mkdir(folder, 0o700) == 0 else { throw CLIError.failure("cannot make a folder for the PDF's pages", hint: String(cString: strerror(errno))) }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: pdftoppm)
        // JPEG at quality 95, not PNG: pdftoppm's PNG compression was two thirds of a PDF restore's time
        // (0.93 s of a 300-dpi page's 1.4 s, the codes read alike: BackupCommandTests restores from them).
        process.arguments = ["-r", "300", "-gray", "-jpeg", "-jpegopt", "quality=95", path, folder + "/page"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CLIError.failure("pdftoppm could not read \(path)", hint: "check it is the PDF backup, or restore from photos of its pages") }
        var codes: [String] = []
        var unreadable: [Int] = []
        for (n, page) in ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted().enumerated() {
            // A page whose codes zbar cannot find is left to the shard check, which names the codes missing.
            let found = (try? ParseChild.qrCodes(file: folder + "/" + page)) ?? []
            if found.isEmpty { unreadable.append(n + 1) }
            codes += found
        }
        return (codes, unreadable)
    }

    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
