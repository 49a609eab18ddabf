import Foundation
import PassboxProcess
import PassboxStore

/// `passbox bench list`: `passbox list` through an unlocked agent holding 10,000 and 100,000 items, its whole
/// table read from a pipe as a script or `less` would (process start included), beside `keepassxc-cli ls` of a
/// KeePass file with the same entries, which prints every title too (and pays its key derivation each call).
enum ListBenchmark {
    static func run(_ args: Arguments) throws {
        let sizes = args.value("items").map { $0.split(separator: ",").compactMap { Int($0) } } ?? [10_000, 100_000]
        let runs = max(3, Int(args.value("runs") ?? "10") ?? 10)
        let keepassCLI = FileManager.default.isExecutableFile(atPath: "/usr/bin/keepassxc-cli")
        Console.out("passbox list through an unlocked agent, every item read from a pipe, \(runs) runs a size (process start included).")
        Console.out("Targets (p95): ≤ 100 ms at 10,000 items, ≤ 1 s at 100,000. FIRST ROWS: until the first page's rows reach the pipe (pages print as they come).")
        var rows = [["ITEMS", "p50", "p95", "SPREAD", "TARGET p95", "MET", "FIRST ROWS p50", "BYTES", "keepassxc-cli ls p50"]]
        for count in sizes {
            var times = [Double](), firsts = [Double]()
            var bytes = 0
            try AgentBenchmark.withAgent(items: count) { base, _, _ in
                for _ in 0...runs {
                    let (seconds, read, first) = try timed(base + ["list"])
                    times.append(seconds)
                    firsts.append(first)
                    bytes = read
                }
                times.removeFirst()  // the first run fills the agent's kept listing
                firsts.removeFirst()
            }
            let target = count >= 100_000 ? 1.0 : (count >= 10_000 ? 0.1 : .infinity)
            let p95 = SearchBenchmark.percentile(times, 0.95)
            var peer = "—"
            if keepassCLI { peer = VaultBenchmark.ms(try keePassList(items: count, runs: max(3, runs / 3))) }
            rows.append([
                String(count), VaultBenchmark.ms(SearchBenchmark.percentile(times, 0.5)), VaultBenchmark.ms(p95),
                VaultBenchmark.ms((times.max() ?? 0) - (times.min() ?? 0)), target.isFinite ? VaultBenchmark.ms(target) : "—",
                target.isFinite ? (p95 <= target ? "yes" : "NO") : "", VaultBenchmark.ms(SearchBenchmark.percentile(firsts, 0.5)), String(bytes), peer,
            ])
        }
        Console.out(Output.table(rows))
        if !keepassCLI { Console.out("keepassxc-cli is not installed: no side-by-side figures (apt-get install keepassxc, then run again).") }
    }

    /// Runs `command` with its output on a pipe this process reads to the end; the seconds until it exited,
    /// the bytes it wrote, and the seconds until its first bytes arrived (the first page of rows).
    static func timed(_ command: [String]) throws -> (seconds: Double, bytes: Int, firstBytes: Double) {
        let clock = SystemClock()
        let start = clock.monotonic()
        let (pid, output) = try AgentBenchmark.spawnPiped(command, input: false)
        var total = 0
        var first = 0.0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = read(output, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            if total == 0 { first = clock.monotonic() - start }
            total += n
        }
        close(output)
        let status = ChildProcess.wait(pid)
        guard status == 0 else { throw CLIError.failure("\(command.dropFirst(3).joined(separator: " ")) failed with exit code \(status) during the benchmark") }
        return (clock.monotonic() - start, total, first)
    }

    /// `keepassxc-cli ls` of a KeePass file with the same entries: its median seconds.
    static func keePassList(items count: Int, runs: Int) throws -> Double {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("passbox-bench-kpxc-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try AgentBenchmark.keePassDatabase(items: count, in: directory)
        let clock = SystemClock()
        var times = [Double]()
        for _ in 0..<runs {
            let t = clock.monotonic()
            _ = try AgentBenchmark.runWithInput(["/usr/bin/keepassxc-cli", "ls", "-q", database], input: AgentBenchmark.password + "\n")
            times.append(clock.monotonic() - t)
        }
        return SearchBenchmark.percentile(times, 0.5)
    }
}
