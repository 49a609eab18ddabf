import Foundation
import PassboxCore
import PassboxCrypto
import PassboxInterop
import PassboxProtocol
import PassboxService
import PassboxStore

/// `passbox bench import --file F [--runs N]` (the file's password on standard input): a KeePass file imported
/// into a new vault through the service, as `passbox import --yes` does, the median of N runs, with the file's
/// key derivation shown apart. scripts/bench-import.sh makes the 10,000-entry file with pykeepass and times
/// `keepassxc-cli export` of it in the same run (issue 16's anchor).
enum ImportBenchmark {
    static func run(_ args: Arguments, input: InputSource) throws {
        guard let file = args.value("file") else { throw CLIError.usage("passbox bench import needs --file F (scripts/bench-import.sh makes one)", hint: "passbox bench import --file big.kdbx < password.txt") }
        let path = Commands.absolute(file)
        let runs = max(1, Int(args.value("runs") ?? "3") ?? 3)
        let password = try input.secretText(prompt: "Password of \((path as NSString).lastPathComponent): ")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("passbox-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let clock = SystemClock()
        var totals: [Double] = [], kdfs: [Double] = []
        var phases: [ImportPhases] = []
        var last: ImportPreviewReply?
        for n in 0..<runs {
            let service = VaultService(dataDirectory: root + "/\(n)")
            _ = try service.create(password: "benchmark vault password", parameters: Argon2Parameters(memoryKiB: 64, passes: 1, lanes: 1))
            let start = clock.monotonic()
            let reply = try service.perform(.importItems(ItemsImportRequest(format: "kdbx", path: path, password: password, confirm: true))).importPreview()
            totals.append(clock.monotonic() - start)
            kdfs.append(reply.kdfSeconds)
            if let p = reply.phases { phases.append(p) }
            last = reply
            service.lock()
        }
        guard let last else { return }
        let besides = zip(totals, kdfs).map { $0 - $1 }.sorted()
        let median = besides[besides.count / 2]
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        Console.out("File: \(path) (\(BackupBenchmark.kib(size)); \(last.source))")
        Console.out("Imported \(last.items) items (\(last.trashed) trashed) into a new vault, \(runs) \(runs == 1 ? "run" : "runs").")
        Console.out("Passbox import besides the key derivation (read, decrypt, parse, map, check, save): \(BackupBenchmark.seconds(median)) median (\(besides.map(BackupBenchmark.seconds).joined(separator: ", "))); per item \(String(format: "%.1f µs", median / Double(max(1, last.items + last.trashed)) * 1e6))")
        Console.out("The file's key derivation: \(BackupBenchmark.seconds(kdfs.sorted()[kdfs.count / 2])) median")
        let whole = totals.sorted()[totals.count / 2]
        Console.out("The whole import, key derivation included: \(BackupBenchmark.seconds(whole)) median")
        if !phases.isEmpty {
            // Each phase's median over the runs (so they need not add up to the median whole exactly).
            func median(_ value: (ImportPhases) -> Double) -> String { BackupBenchmark.seconds(phases.map(value).sorted()[phases.count / 2]) }
            Console.out(
                "Phases (median): key derivation \(median { $0.kdf }), decrypt and decompress \(median { $0.decrypt }), parse the XML \(median { $0.parse }), map to items \(median { $0.map }), check and find duplicates \(median { $0.check }), save \(median { $0.save }); the rest is the file read and the parse child's start and answer"
            )
            let peak = phases.map(\.parsePeakKiB).max() ?? 0
            let text = phases.last?.textBytes ?? 0
            let start = baselineKiB(root: root)
            if peak > 0, text > 0, start > 0 {
                // The parse's own: the child's peak after the key derivation, less what a child reading a
                // one-line file holds (the process, its libraries, the job).
                let own = max(peak - start, 0)
                let ratio = Double(own) * 1024 / Double(text)
                Console.out(
                    String(
                        format: "Memory: the parse child peaks at %.1f MiB after the key derivation; a child reading a one-line file at %.1f MiB; the reading's own %.1f MiB for %.1f MiB of XML: %.1f× (target ≤ 3×: %@)",
                        Double(peak) / 1024, Double(start) / 1024, Double(own) / 1024, Double(text) / 1_048_576, ratio, ratio <= 3 ? "met" : "MISSED"))
            }
        }
        // scripts/bench-import.sh passes the median of keepassxc-cli merge of the same file into an empty database.
        if let text = args.value("merge-seconds") {
            guard let merge = Double(text), merge > 0 else { throw CLIError.usage("--merge-seconds takes a positive number of seconds") }
            let ratio = whole / merge
            Console.out(String(format: "Beside keepassxc-cli merge of the same file (%.2f s): %.2f× (target ≤ 0.50×: %@)", merge, ratio, ratio <= 0.5 ? "met" : "MISSED"))
        }
    }

    /// The peak of a parse child that reads a one-line CSV file (its start, libraries and warm-up): what the
    /// import's figure holds besides the parse itself; 0 when it cannot be measured.
    static func baselineKiB(root: String) -> Int {
        let service = VaultService(dataDirectory: root + "/baseline")
        let csv = root + "/baseline.csv"
        guard (try? Data("title,username,password\nBaseline,user,pass\n".utf8).write(to: URL(fileURLWithPath: csv))) != nil,
            (try? service.create(password: "benchmark vault password", parameters: Argon2Parameters(memoryKiB: 64, passes: 1, lanes: 1))) != nil,
            let reply = try? service.perform(.importItems(ItemsImportRequest(format: "csv", path: csv, password: nil, confirm: false))).importPreview()
        else { return 0 }
        service.lock()
        return reply.phases?.parsePeakKiB ?? 0
    }
}
