import Foundation
import PassboxCore
import PassboxCrypto
import PassboxStore

/// `passbox bench duress`: unlock time for the real vault, a duress vault twelve levels deep and a wrong
/// password, side by side at this machine's calibrated cost (issue 14: they must not be told apart), and
/// the time to open an item with its own password (Argon2id 256 MiB × 4 passes × 4 lanes).
enum CoercionBenchmark {
    static func run(_ args: Arguments) throws {
        let runs = max(1, Int(args.value("runs") ?? "5") ?? 5)
        let depth = 12
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("passbox-bench-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let parameters = try Argon2Calibration.calibrate().parameters
        Console.out("Key derivation: \(Commands.describe(parameters)) (calibrated here). Making a vault and \(depth) nested duress vaults…")
        let store = VaultStore(directory: directory)
        let password = "benchmark real password"
        func duress(_ level: Int) -> String { level == 0 ? password : "benchmark duress password \(level)" }
        var current = try store.create(password: password, parameters: parameters)
        for level in 1...depth {
            try current.setDuressPassword(current: VaultStore.passwordBytes(duress(level - 1)), duress: VaultStore.passwordBytes(duress(level)))
            current = try store.unlock(password: duress(level))
        }

        // Interleaved (a right password after each wrong one, so no wait ever starts), median of `runs`.
        let kinds = [("real vault", password), ("duress vault, depth \(depth)", duress(depth)), ("wrong password", "benchmark wrong password")]
        var wall = [[Double]](repeating: [], count: kinds.count)
        var work = [[Double]](repeating: [], count: kinds.count)
        var counted = [UnlockWork](repeating: UnlockWork(), count: kinds.count)
        for _ in 0..<runs {
            for (k, kind) in kinds.enumerated() {
                let start = SystemClock().monotonic()
                _ = try? store.unlock(password: kind.1)
                wall[k].append(SystemClock().monotonic() - start)
                work[k].append(store.lastWork.workSeconds)
                counted[k] = store.lastWork
            }
        }
        Console.out("Median of \(runs) runs. ANSWERED is when the unlock answers (held to the deadline); WORK is the derivation, the 16 slot trials and the body before the wait.")
        Console.out(Output.table([["PASSWORD", "ANSWERED", "SPREAD", "WORK", "DERIVATIONS", "SLOT TRIALS", "BODIES"]] + kinds.indices.map { k in
            [kinds[k].0, ms(median(wall[k])), "\(ms(wall[k].min() ?? 0))–\(ms(wall[k].max() ?? 0))", ms(median(work[k])),
             String(counted[k].derivations), String(counted[k].slotTrials), String(counted[k].bodyOpens)]
        }))
        let answered = kinds.indices.map { median(wall[$0]) }
        Console.out("Largest difference between the three medians: \(ms((answered.max() ?? 0) - (answered.min() ?? 0))) (anchor: 1Password, Bitwarden, KeePassXC and Proton Pass have no duress vaults)")

        // An item with its own password: seal once, then open `runs` times.
        try ItemSeal.checkMemory()
        var item = Item(category: .secureNote, title: "Benchmark note")
        item.notes = String(repeating: "a protected line\n", count: 100)
        let itemPassword = VaultStore.passwordBytes("benchmark item password")
        try ItemSeal.seal(&item, password: itemPassword)
        var opens = [Double]()
        for _ in 0..<runs {
            let start = SystemClock().monotonic()
            _ = try ItemSeal.open(item, password: itemPassword)
            opens.append(SystemClock().monotonic() - start)
        }
        Console.out("Opening an item with its own password (\(Commands.describe(ItemSeal.parameters))): \(ms(median(opens))) median (\(ms(opens.min() ?? 0))–\(ms(opens.max() ?? 0))), beside the vault's derivation \(ms(median(work[0])))")
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func ms(_ seconds: Double) -> String { String(format: "%.0f ms", seconds * 1000) }
}
