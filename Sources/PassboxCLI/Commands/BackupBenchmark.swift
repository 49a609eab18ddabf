import Foundation
import PassboxCore
import PassboxCrypto
import PassboxImaging
import PassboxProtocol
import PassboxService
import PassboxStore

/// `passbox bench backup [--items N,N] [--no-pdf]`: backup and restore of vaults of typical logins, as a file
/// and as a PDF of QR codes (issue 15): the time besides the Argon2id share, the PDF's page count and the
/// bytes per item. The backup password's derivation (512 MiB × 32 × 4) is measured once and shown apart:
/// a backup uses the kept key and makes none; a restore makes one.
enum BackupBenchmark {
    static func run(_ args: Arguments) throws {
        let sizes = (args.value("items") ?? "1000,10000").split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
        let withPDF = !args.flag("no-pdf")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("passbox-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let clock = SystemClock()
        let password = "benchmark vault password", backupPassword = "benchmark backup password"

        // The real derivation, median of three (the first also pays for touching 512 MiB).
        var times: [Double] = []
        var start = 0.0
        for _ in 0..<3 {
            start = clock.monotonic()
            _ = try BackupFile.deriveKey(password: VaultStore.passwordBytes(backupPassword), salt: SecureRandom.bytes(count: 16), parameters: BackupFile.parameters)
            times.append(clock.monotonic() - start)
        }
        let argon = times.sorted()[1]
        Console.out("Backup password derivation (\(Commands.describe(BackupFile.parameters))): \(seconds(argon)) median of 3 (\(times.map(seconds).joined(separator: ", "))) — once when the password is set, and once per restore; a backup uses the kept key.")
        Console.out("")
        Console.out(pad("ITEMS", 7) + pad("FILE", 10) + pad("BYTES/ITEM", 12) + pad("BACKUP", 9) + pad("RESTORE*", 10) + (withPDF ? pad("PDF", 9) + pad("CODES", 7) + pad("PAGES", 7) + pad("PDF MAKE", 10) + "PDF RESTORE* (render + read + restore)" : ""))
        for count in sizes {
            let data = root + "/\(count)"
            let service = VaultService(dataDirectory: data)
            _ = try service.create(password: password, parameters: Argon2Parameters(memoryKiB: 64, passes: 1, lanes: 1))
            guard let session = service.session else { throw CLIError.failure("the benchmark vault did not open", hint: "") }
            try session.update { vault in
                let now = Date()
                for n in 0..<count {
                    let item = Item(
                        category: .login, title: "Site \(n) account",
                        fields: [
                            Field(key: "username", label: "username", kind: .text, value: "user\(n)@example.com"),
                            Field(key: "password", label: "password", kind: .hidden, value: String(SecureRandom.bytes(count: 12).map { String(format: "%02x", $0) }.joined().prefix(20))),
                        ],
                        websites: ["https://login.site\(n).example.com/"], notes: n % 4 == 0 ? "Recovery questions are in the safe; PIN changed in spring." : "")
                    try vault.add(item, now: now)
                }
            }
            // The format's own cost, apart from Argon2id: a backup password at the cheapest derivation.
            service.backupParameters = Argon2Parameters(memoryKiB: 64, passes: 1, lanes: 1)
            _ = try service.perform(.backupPassword(BackupPasswordRequest(current: SecretText(password), password: SecretText(backupPassword))))

            let file = data + "/b.pbbackup"
            start = clock.monotonic()
            let made = try service.perform(.backupMake(BackupMakeRequest(format: "file", path: file))).backupMade()
            let backupTime = clock.monotonic() - start
            start = clock.monotonic()
            _ = try service.perform(.backupRestore(BackupRestoreRequest(password: SecretText(backupPassword), mode: "replace", path: file)))
            let restoreTime = clock.monotonic() - start
            var line = pad(String(count), 7) + pad(kib(made.bytes), 10) + pad(String(made.bytes / count), 12) + pad(seconds(backupTime), 9) + pad(seconds(restoreTime), 10)
            if withPDF {
                let pdf = data + "/b.pdf"
                start = clock.monotonic()
                let printed = try service.perform(.backupMake(BackupMakeRequest(format: "pdf", path: pdf))).backupMade()
                let pdfTime = clock.monotonic() - start
                let size = (try? FileManager.default.attributesOfItem(atPath: pdf)[.size] as? Int) ?? 0
                start = clock.monotonic()
                let codes = try Commands.codesFromPDF(pdf).codes
                _ = try service.perform(.backupRestore(BackupRestoreRequest(password: SecretText(backupPassword), mode: "replace", codes: codes)))
                let pdfRestore = clock.monotonic() - start
                line += pad(kib(size), 9) + pad(String(printed.codes), 7) + pad(String(printed.pages), 7) + pad(seconds(pdfTime), 10) + seconds(pdfRestore)
            }
            Console.out(line)
            service.lock()
        }
        Console.out("")
        Console.out("* besides the Argon2id share (\(seconds(argon)) per restore; measured with the cheapest derivation). PDF RESTORE renders every page at 300 dpi with pdftoppm (as JPEG) and reads it with libzbar. A saved backup is padded to 32 KiB, then doubling (G57), so BYTES/ITEM includes the padding.")
        Console.out("Anchors: KeePassXC prints an unencrypted HTML page; 1Password's 1PUX and Bitwarden's export are plain JSON (Bitwarden's encrypted JSON uses PBKDF2 or Argon2id at its account's cost). A Passbox backup is always encrypted, and the PDF restores from photos.")
    }

    static func seconds(_ s: Double) -> String { s < 1 ? String(format: "%.0f ms", s * 1000) : String(format: "%.2f s", s) }
    static func kib(_ bytes: Int) -> String { bytes >= 1 << 20 ? String(format: "%.1f MiB", Double(bytes) / 1_048_576) : "\(bytes / 1024) KiB" }
    static func pad(_ s: String, _ width: Int) -> String { s.count >= width ? s + " " : s + String(repeating: " ", count: width - s.count) }
}
