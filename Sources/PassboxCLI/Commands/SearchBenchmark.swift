import Foundation
import PassboxCore
import PassboxStore

/// `passbox bench search`: one query in-process over 1,000 / 10,000 / 100,000 items, with and without
/// typos. Target (issue 4): p95 under 5 ms at 10,000 items and under 50 ms at 100,000.
enum SearchBenchmark {
    static func run(_ args: Arguments) throws {
        let queries = Int(args.value("queries") ?? "200") ?? 200
        Console.out("One search in-process, \(queries) queries per row; the index is built once per unlock (its build time is shown).")
        Console.out("Target: p95 under 5 ms at 10,000 items and under 50 ms at 100,000.")
        var rows = [["ITEMS", "INDEX BUILD", "EXACT p50", "EXACT p95", "TYPO p50", "TYPO p95"]]
        for count in [1000, 10000, 100_000] {
            var vault = Vault()
            let now = Date()
            for i in 0..<count { try vault.add(try VaultBenchmark.sampleItem(i), now: now) }
            let clock = SystemClock()
            var t = clock.monotonic()
            let index = SearchIndex(vault: vault)
            let build = clock.monotonic() - t
            var exact = [Double](), typo = [Double]()
            for q in 0..<queries {
                let n = Int.random(in: 0..<count)
                let words = ["service \(n)", "user\(n)@", "service\(n).example", "acc", "note number \(n)"]
                let query = words[q % words.count]
                t = clock.monotonic()
                _ = index.search(query)
                exact.append(clock.monotonic() - t)
                // A transposition and a wrong letter: "sevrice", "acocunt", "exampel".
                let typos = ["sevrice", "acocunt", "persnal", "exampel", "nmuber \(n)"]
                t = clock.monotonic()
                _ = index.search(typos[q % typos.count])
                typo.append(clock.monotonic() - t)
            }
            rows.append([String(count), ms(build), ms(percentile(exact, 0.5)), ms(percentile(exact, 0.95)), ms(percentile(typo, 0.5)), ms(percentile(typo, 0.95))])
        }
        Console.out(Output.table(rows))
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }

    static func ms(_ s: Double) -> String { String(format: "%.2f ms", s * 1000) }
}
