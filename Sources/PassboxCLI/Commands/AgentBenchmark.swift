import Foundation
import PassboxAgent
import PassboxCore
import PassboxCrypto
import PassboxProtocol
import PassboxStore

/// `passbox bench agent`: whole-process wall time of `passbox read` and `passbox show --field password`
/// against an unlocked agent holding 1,000 / 10,000 / 100,000 items (process start included), and the
/// agent's resident memory. Target (issue 3): p95 under 20 ms at 10,000 items.
enum AgentBenchmark {
    static func run(_ args: Arguments) throws {
        let runs = max(1, Int(args.value("runs") ?? "50") ?? 50)
        let sizes = args.value("items").map { $0.split(separator: ",").compactMap { Int($0) } } ?? [1000, 10000, 100_000]
        Console.out("Whole-process wall time of one command against an unlocked agent, \(runs) runs each (process start included).")
        Console.out("Target: p95 under 20 ms at 10,000 items. Anchors: `bw get item` takes seconds per call (it decrypts the whole vault in Node.js);")
        Console.out("`keepassxc-cli show` pays the key derivation on every call (about 1 s at KeePassXC's default Argon2 cost).")
        var rows = [["ITEMS", "READ p50", "READ p95", "SHOW p50", "SHOW p95", "AGENT RSS LOCKED", "UNLOCKED", "PER 10K ITEMS"]]
        for count in sizes {
            rows.append(try measure(items: count, runs: runs))
        }
        Console.out(Output.table(rows))
    }

    static func measure(items count: Int, runs: Int) throws -> [String] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("passbox-bench-agent-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = VaultStore(directory: directory)
        let password = "correct horse battery staple"
        let opened = try store.create(password: password, parameters: Argon2Parameters(memoryKiB: 64, passes: 1, lanes: 1))
        var vault = opened.vault
        let now = Date()
        for i in 0..<count { try vault.add(VaultBenchmark.sampleItem(i), now: now) }
        try opened.save(vault)

        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let socket = AgentPaths.socketPath(dataDirectory: directory)
        let agent = try spawn([executable, "--data", directory, "agent"], wait: false).pid
        defer {
            kill(agent, SIGTERM)
            ChildProcess.wait(agent)
        }
        for _ in 0..<500 where UnixSocket.connect(to: socket).map({ close($0) }) == nil { usleep(10_000) }
        usleep(100_000)
        let lockedKiB = residentKiB(agent)
        guard case .done = try AgentClient.send(.unlock(UnlockRequest(password: password)), socketPath: socket) ?? .failure(ProtocolError(.locked)) else {
            throw CLIError.failure("the benchmark agent did not unlock")
        }
        let unlockedKiB = residentKiB(agent)

        let title = VaultBenchmark.sampleTitle(count / 2 + 1)
        let encoded = title.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? title
        let read = [executable, "--data", directory, "read", "passbox://local/\(encoded)/password"]
        let show = [executable, "--data", directory, "show", title, "--field", "password"]
        // Check once that both commands answer through the agent, then time them.
        for command in [read, show] {
            let status = try spawn(command, wait: true).status
            guard status == 0 else { throw CLIError.failure("\(command[3]) failed with exit code \(status) during the benchmark") }
        }
        var readTimes = [Double](), showTimes = [Double]()
        let clock = SystemClock()
        for _ in 0..<runs {
            var t = clock.monotonic()
            _ = try spawn(read, wait: true)
            readTimes.append(clock.monotonic() - t)
            t = clock.monotonic()
            _ = try spawn(show, wait: true)
            showTimes.append(clock.monotonic() - t)
        }
        let perTenThousand = Double(unlockedKiB - lockedKiB) / Double(count) * 10000 / 1024
        return [
            String(count),
            VaultBenchmark.ms(SearchBenchmark.percentile(readTimes, 0.5)), VaultBenchmark.ms(SearchBenchmark.percentile(readTimes, 0.95)),
            VaultBenchmark.ms(SearchBenchmark.percentile(showTimes, 0.5)), VaultBenchmark.ms(SearchBenchmark.percentile(showTimes, 0.95)),
            // Below 10,000 items the allocator's fixed overhead dominates the difference; no per-item figure.
            mib(lockedKiB), mib(unlockedKiB), count >= 10000 ? String(format: "%.1f MiB", perTenThousand) : "—",
        ]
    }

    static func mib(_ kib: Int) -> String { String(format: "%.1f MiB", Double(kib) / 1024) }

    /// VmRSS of a process, from /proc.
    static func residentKiB(_ pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
        }
        return 0
    }

    /// Spawns with every standard stream on /dev/null; waits for the exit status when asked.
    static func spawn(_ command: [String], wait: Bool) throws -> (pid: pid_t, status: Int32) {
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn(command)
        } catch let e as ChildProcess.Failure {
            throw CLIError.failure(e.description)
        }
        return (pid, wait ? ChildProcess.wait(pid) : 0)
    }
}
