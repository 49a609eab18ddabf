import Foundation
import PassboxCore
import PassboxCrypto
import PassboxStore

extension Commands {
    static func bench(_ context: Context, _ args: Arguments) throws {
        let what = args.positionals.first ?? "vault"
        switch what {
        case "vault": try VaultBenchmark.run(args)
        case "search": try SearchBenchmark.run(args)
        case "check": try CheckBenchmark.run(args, dataDirectory: context.dataDirectory)
        case "agent": try AgentBenchmark.run(args)
        case "list": try ListBenchmark.run(args)
        case "server": try ServerBenchmark.run(args, context)
        case "sync": try SyncBenchmark.run(args, context)
        case "ui": try UIBenchmark.run(args)
        case "duress": try CoercionBenchmark.run(args)
        case "backup": try BackupBenchmark.run(args)
        case "import": try ImportBenchmark.run(args, input: context.input)
        case "attach": try AttachBenchmark.run(args)
        case "save": try SaveBenchmark.run(args)
        case "browser": try BrowserBenchmark.run(args)
        case "sharing": try SharingBenchmark.run(args)
        case "link": try LinkBenchmark.run(args)
        default: throw CLIError.usage("unknown benchmark \"\(what)\"", hint: "available: vault, search, check, agent, list, save, browser, sharing, link, server, sync, ui, duress, backup, import, attach")
        }
    }
}
