import Foundation
import PassboxCore
import PassboxCrypto
import PassboxInterop
import PassboxProtocol
import PassboxWording

/// Imports of other apps' files and exports to them (docs/CLI.md "Imports and exports").
extension Commands {
    static let importUsage = "passbox import FILE [--format kdbx|bitwarden-json|1pux|proton-pass|cxf|csv|aegis|2fas|otpauth] [--key-file F] [--map TARGET=COLUMN,…] [--groups tags|vaults] [--vault VAULT] [--keep-duplicates] [--dry-run] [--yes] [--json]"
    static let exportUsage = "passbox export FILE [--format kdbx|bitwarden-json|cxf [--with-passkeys]] [--vault VAULT]"

    /// `passbox import FILE`: reads the file (its password asked), shows what it would make, and after a yes
    /// brings it all in with one save.
    static func importFile(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: importUsage)
        let path = absolute(args.positionals[0])
        if let groups = args.value("groups"), !["tags", "vaults"].contains(groups) {
            throw CLIError.usage("--groups takes tags or vaults", hint: "passbox import FILE --groups vaults")
        }
        let format = try args.value("format") ?? detectFormat(path)
        let keyFile = args.value("key-file").map(absolute)
        if let keyFile, !FileManager.default.isReadableFile(atPath: keyFile) {
            throw CLIError.failure("cannot read the key file \(keyFile)", hint: "check the path and permissions")
        }
        let mapping = try args.value("map").map(parseMapping)
        if mapping != nil, format != "csv" { throw CLIError.usage("--map is for CSV files", hint: "passbox import FILE.csv --map title=Name,password=Secret") }
        try context.endpoint.prepare(.importItems)
        // A KeePass file, and an encrypted Aegis or 2FAS export, have a password of their own.
        let encrypted = format == "kdbx" || ImportFormat.needsPassword(Array(FileManager.default.contents(atPath: path) ?? Data()), format: format)
        let password = encrypted ? try context.input.secretText(prompt: "Password of \((path as NSString).lastPathComponent): ") : nil
        func request(confirm: Bool) -> ItemsImportRequest {
            ItemsImportRequest(
                format: format, path: path, password: password, keyFilePath: keyFile, groups: args.value("groups"), vault: args.value("vault"),
                keepDuplicates: args.flag("keep-duplicates"), confirm: confirm, mapping: mapping)
        }
        let preview = try context.send(.importItems(request(confirm: false))).importPreview()
        if args.flag("json"), args.flag("dry-run") || !args.flag("yes") { return try Output.json(preview) }
        printPreview(preview, path: path, context: context)
        guard preview.items + preview.trashed > 0 else {
            Console.out("Nothing to import: everything in the file is here already or cannot be brought over.")
            return
        }
        if args.flag("dry-run") { return Console.err("Nothing was changed (--dry-run).") }
        if !args.flag("yes") {
            Console.err("Import \(Output.count(preview.items + preview.trashed, "item"))? Type yes to go on:")
            guard context.input.readLine()?.trimmingCharacters(in: .whitespaces).lowercased() == "yes" else {
                throw CLIError.failure("nothing was changed: the answer was not yes", hint: "run it again and type yes, or add --yes")
            }
        }
        let done = try context.send(.importItems(request(confirm: true))).importPreview()
        if args.flag("json") { return try Output.json(done) }
        let into = done.newVaults.isEmpty ? "into \"\(done.vault)\"" : "into \"\(done.vault)\" and the new \(done.newVaults.count == 1 ? "vault" : "vaults") \(done.newVaults.map { "\"\($0)\"" }.joined(separator: ", "))"
        Console.out("Imported \(Output.count(done.items, "item")) \(into)\(done.trashed > 0 ? ", and \(done.trashed) into the trash" : "").")
    }

    static func printPreview(_ p: ImportPreviewReply, path: String, context: Context) {
        Console.out("Read \(path) (\(p.source)).")
        let categories = p.categories.sorted { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }.map { "\(Category(rawValue: $0.key).displayName): \($0.value)" }
        Console.out("It would make \(Output.count(p.items, "item")) in \"\(p.vault)\"\(categories.isEmpty ? "" : ": " + categories.joined(separator: ", "))\(p.trashed > 0 ? "; \(p.trashed) in the trash" : "").")
        if !p.newVaults.isEmpty { Console.out("New vaults: \(p.newVaults.map(Console.visibleLine).joined(separator: ", "))") }
        if let files = p.attachments, files > 0 { Console.out("Files: \(Output.count(files, "attachment")) \(files == 1 ? "comes" : "come") too, each encrypted under a key of its own.") }
        if p.duplicates > 0 {
            let names = p.duplicateTitles.map(Console.visibleLine).joined(separator: ", ") + (p.duplicates > p.duplicateTitles.count ? ", …" : "")
            Console.out("Left out: \(Output.count(p.duplicates, "duplicate")) of items already here (\(names)); --keep-duplicates brings them too.")
        }
        for (reason, n) in p.notBrought.sorted(by: { $0.key < $1.key }) {
            Console.out("Cannot be brought over (\(n)): \(Localization.tr("import.notBrought.\(reason)", context.language)).")
        }
        if p.refused > 0 {
            Console.out("Left out, because they fail a check (\(p.refused)):")
            for r in p.refusals {
                let (message, _) = Wording.error(r.error, context.language)
                Console.out("  \(Console.visibleLine(r.title)): \(message)")
            }
        }
    }

    /// The format of a file by its first bytes, else its name.
    static func detectFormat(_ path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CLIError.failure("cannot read \(path)", hint: "check the path and permissions") }
        let head = [UInt8]((try? handle.read(upToCount: 4096)) ?? Data())
        try? handle.close()
        if let format = ImportFormat.detect(head: head, name: path) { return format }
        throw CLIError.failure(
            "\(path) is not a file Passbox can import", hint: "Passbox imports KeePass (.kdbx), Bitwarden JSON, 1Password (.1pux), Proton Pass, CXF, CSV, Aegis and 2FAS files and otpauth lists; name the format with --format kdbx|bitwarden-json|1pux|proton-pass|cxf|csv|aegis|2fas|otpauth")
    }

    /// `--map title=Name,username=Login`: target → column.
    static func parseMapping(_ text: String) throws -> [String: String] {
        var mapping: [String: String] = [:]
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, CSVImport.targets.contains(parts[0].lowercased()), !parts[1].isEmpty else {
                throw CLIError.usage("--map takes TARGET=COLUMN pairs, TARGET one of \(CSVImport.targets.sorted().joined(separator: ", "))", hint: "passbox import FILE.csv --map title=Name,password=Secret")
            }
            mapping[parts[0].lowercased()] = parts[1]
        }
        return mapping
    }

    /// `passbox export FILE`: the items as a KeePass 4 file under a new password (asked twice), or with
    /// `--format bitwarden-json` or `cxf` as plain JSON after two confirmations (and a third for
    /// `--with-passkeys`); written new and 0600.
    static func exportFile(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: exportUsage)
        let path = absolute(args.positionals[0])
        let format = args.value("format") ?? "kdbx"
        guard ["kdbx", "bitwarden-json", "cxf"].contains(format) else { throw ProtocolError(.unknownFormat, ["format": format, "formats": "kdbx, bitwarden-json, cxf"]) }
        let withPasskeys = args.flag("with-passkeys")
        guard !withPasskeys || format != "kdbx" else {
            throw CLIError.usage("--with-passkeys is for the plain formats (bitwarden-json, cxf): a KeePass export always carries passkeys, encrypted", hint: exportUsage)
        }
        guard !FileManager.default.fileExists(atPath: path) else { throw ProtocolError(.fileExists, ["path": path]) }
        if args.flag("insecure-test-kdf") {
            Console.err("passbox: warning: --insecure-test-kdf makes files that are cheap to attack; use it only for tests")
            context.endpoint.localService().exportParameters = Argon2Parameters(memoryKiB: 64, passes: 1, lanes: 1)
        }
        try context.endpoint.prepare(.exportItems)
        let request: ItemsExportRequest
        if format != "kdbx" {
            // Asked twice, and where it goes said both times: the file holds every password in plain text.
            Console.err("This export is NOT encrypted: \(path) will hold every exported password, key and note in plain text, readable by anyone who gets the file. Type yes to go on:")
            guard context.input.readLine()?.trimmingCharacters(in: .whitespaces).lowercased() == "yes" else {
                throw CLIError.failure("nothing was written: the answer was not yes", hint: "export a KeePass file instead (passbox export FILE.kdbx), which is encrypted")
            }
            Console.err("Once more: write the plain-text export to \(path) (0600, readable by you only)? Type EXPORT to go on:")
            guard context.input.readLine()?.trimmingCharacters(in: .whitespaces) == "EXPORT" else {
                throw CLIError.failure("nothing was written: the answer was not EXPORT", hint: "run it again and type EXPORT, or export a KeePass file instead")
            }
            if withPasskeys {
                // A passkey's private key in plain text signs in as the user wherever it is copied: asked a third time.
                Console.err("With --with-passkeys, \(path) also holds the private keys of your passkeys in plain text: whoever gets the file can sign in as you on those websites, with no password and no second factor. Type PASSKEYS to include them:")
                guard context.input.readLine()?.trimmingCharacters(in: .whitespaces) == "PASSKEYS" else {
                    throw CLIError.failure("nothing was written: the answer was not PASSKEYS", hint: "run it again without --with-passkeys to leave passkeys out, or export a KeePass file, which carries them encrypted")
                }
            }
            request = ItemsExportRequest(format: format, path: path, password: nil, vault: args.value("vault"), plainConfirmed: true, passkeysConfirmed: withPasskeys ? true : nil)
        } else {
            Console.err("The file opens with its own password in KeePassXC, KeePass and other apps. Choose one as strong as your vault's.")
            let password = try newPassword(context, prompt: "Password for the new file: ")
            request = ItemsExportRequest(format: format, path: path, password: SecretText(password), vault: args.value("vault"))
        }
        let done = try context.send(.exportItems(request)).exported()
        let kind = format == "kdbx" ? "KeePass 4" : format == "cxf" ? "CXF 1.0, not encrypted" : "Bitwarden JSON, not encrypted"
        Console.out("Exported \(Output.count(done.entries, "item")) to \(done.path ?? path) (\(kind), \(done.bytes) bytes, readable by you only).")
        for (reason, n) in done.leftOut.sorted(by: { $0.key < $1.key }) {
            Console.err("Left out (\(n)): \(Localization.tr("export.leftOut.\(reason)", context.language)).")
        }
        Console.err("The file is outside Passbox now: keep it safe, and delete it when it has served.")
    }
}
