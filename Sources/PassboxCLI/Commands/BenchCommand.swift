import Foundation
import PassboxCore
import PassboxCrypto
import PassboxStore

extension Commands {
    static func bench(_ context: Context, _ args: Arguments) throws {
        let what = args.positionals.first ?? "vault"
        guard what == "vault" else { throw CLIError.usage("unknown benchmark \"\(what)\"", hint: "available: vault") }
        try VaultBenchmark.run(args)
    }
}
