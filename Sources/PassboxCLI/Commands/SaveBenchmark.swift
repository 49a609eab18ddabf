import Foundation
import PassboxCore
import PassboxCrypto
import PassboxStore

/// `passbox bench save`: what one added item costs to save, in this process, for the two files a vault can
/// live in — a local vault's sixteen-slot file (journal, then the slot in place: its slot written twice) and
/// an account's one-slot file sized to its vault (written once, renamed over) — with the same items, the runs
/// of the two interleaved so that both see the same disk. The agent's `add` is this save plus its process and
/// the request (`bench agent`); the target is that add's, ≤ 150 ms p95 at 100,000 items (issue 30).
enum SaveBenchmark {
    static func run(_ args: Arguments) throws {
        let sizes = args.value("items").map { $0.split(separator: ",").compactMap { Int($0) } } ?? [10_000, 100_000]
        let runs = max(3, Int(args.value("runs") ?? "20") ?? 20)
        Console.out("Saving one added item (named to the save, as the agent's add does; fsync and read-back included), \(runs) runs a size,")
        Console.out("the two files' runs interleaved. Target: the agent's add ≤ 150 ms p95 at 100,000 items, of which this save is the most.")
        var rows = [["ITEMS", "FILE", "p50", "p95", "SPREAD", "SAVE p95 ≤ 150 ms (100k)", "FILE SIZE", "WRITTEN A SAVE"]]
        for count in sizes {
            let result = try measure(items: count, runs: runs)
            for (name, layout) in [("local, 16 slots", result.local), ("account, 1 slot", result.account)] {
                let p95 = SearchBenchmark.percentile(layout.times, 0.95)
                rows.append([
                    String(count), name, VaultBenchmark.ms(SearchBenchmark.percentile(layout.times, 0.5)), VaultBenchmark.ms(p95),
                    VaultBenchmark.ms((layout.times.max() ?? 0) - (layout.times.min() ?? 0)),
                    count >= 100_000 ? (p95 <= 0.150 ? "yes" : "NO") : "—", AgentBenchmark.mib(layout.fileSize / 1024), AgentBenchmark.mib(layout.written / 1024),
                ])
            }
        }
        Console.out(Output.table(rows))
    }

    struct Layout {
        var times = [Double]()
        var fileSize = 0
        var written = 0
    }

    static func measure(items count: Int, runs: Int) throws -> (local: Layout, account: Layout) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("passbox-bench-save-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let cheap = Argon2Parameters(memoryKiB: 64, passes: 1, lanes: 1)
        let localStore = VaultStore(directory: root + "/local")
        let localVault = try localStore.create(password: "correct horse battery staple", parameters: cheap)
        // An account's store needs only its key source to be an account's: the slot key is given, so the
        // record's keyset is never opened.
        let record = AccountRecord(
            server: "https://bench.invalid", email: "bench@example.com", accountID: "BENCH0", secretKey: "", deviceID: "", deviceName: "bench",
            salt: Data(SecureRandom.bytes(count: 16)), memoryKiB: cheap.memoryKiB, passes: cheap.passes, lanes: cheap.lanes, keyset: Data(), token: nil)
        let accountStore = VaultStore(directory: root + "/account", keySource: .account(AccountVaultKey(record)))
        let accountVault = try accountStore.create(slotKey: .generate(count: 32), parameters: cheap)
        let now = Date()
        var items = Vault()
        for i in 0..<count { try items.add(VaultBenchmark.sampleItem(i), now: now) }
        for opened in [localVault, accountVault] {
            var vault = opened.vault
            vault.items = items.items
            try opened.save(vault)
        }
        var local = Layout(), accountLayout = Layout()
        let clock = SystemClock()
        for run in 0..<runs {
            // Alternate which goes first, so neither always follows the other's writeback.
            for (which, opened) in (run % 2 == 0 ? [(0, localVault), (1, accountVault)] : [(1, accountVault), (0, localVault)]) {
                var vault = opened.vault
                let added = try vault.add(try VaultBenchmark.sampleItem(count + run), now: Date())
                let start = clock.monotonic()
                try opened.save(vault, changedItemIDs: [added.id])
                let seconds = clock.monotonic() - start
                if which == 0 { local.times.append(seconds) } else { accountLayout.times.append(seconds) }
            }
        }
        local.fileSize = fileSize(root + "/local/vault.pbx")
        local.written = 2 * localVault.slotSize  // the journal, then the slot in place
        accountLayout.fileSize = fileSize(root + "/account/vault.pbx")
        accountLayout.written = accountLayout.fileSize  // the whole file, once
        return (local, accountLayout)
    }

    static func fileSize(_ path: String) -> Int { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }
}
