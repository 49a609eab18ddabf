import Foundation
import PassboxAgent
import PassboxCore
import PassboxCrypto
import PassboxStore

/// The `passbox` command line: parses the global options, runs one command, maps errors to exit codes
/// (0 ok, 1 failure, 2 usage, 3 wrong password or locked).
public enum CommandLineTool {
    public static let version = "0.1.0"

    public static func main(_ arguments: [String]) -> Int32 {
        // Nothing secret is in memory yet, but every path below may unlock a vault.
        ProcessHardening.disableCoreDumps()
        var words = Array(arguments.dropFirst())
        do {
            var dataOption: String?
            while let first = words.first, first.hasPrefix("--") {
                if first == "--data" {
                    guard words.count >= 2 else { throw CLIError.usage("--data needs a directory") }
                    dataOption = words[1]
                    words.removeFirst(2)
                } else if first.hasPrefix("--data=") {
                    dataOption = String(first.dropFirst(7))
                    words.removeFirst()
                } else if first == "--version" {
                    Console.out("passbox \(version)")
                    return 0
                } else if first == "--help" || first == "-h" {
                    words = ["help"]
                } else {
                    break
                }
            }
            let context = Context(dataDirectory: dataOption ?? defaultDataDirectory())
            guard let command = words.first else {
                try Commands.welcome(context, Arguments([], valued: [], flags: []))
                return 0
            }
            let rest = Array(words.dropFirst())
            switch command {
            case "agent":
                let args = try Arguments(rest, valued: ["test-auto-lock-seconds", "pam-service"], flags: [])
                try AgentService(
                    dataDirectory: context.dataDirectory, testAutoLockSeconds: args.value("test-auto-lock-seconds").flatMap(Double.init),
                    pamService: args.value("pam-service") ?? SystemAuthentication.defaultService
                ).run()
            case "unlock": try AgentCommands.unlock(context, Arguments(rest, valued: ["test-auto-lock-seconds", "pam-service"], flags: ["quick", "master"]))
            case "lock": try AgentCommands.lock(context, Arguments(rest, valued: [], flags: ["stop", "forget"]))
            case "status": try AgentCommands.status(context, Arguments(rest, valued: [], flags: ["json"]))
            default:
                // `totp --watch` loops here, asking the agent (or the vault) for each code.
                if AgentCommands.served.contains(command), !(command == "totp" && rest.contains("--watch")),
                    let code = try AgentCommands.forward(words, context)
                {
                    return code
                }
                try Commands.run(command, rest, context)
            }
            return 0
        } catch let exit as ExitCode {
            return exit.code
        } catch {
            let e = CLIError.from(error)
            Console.err("passbox: error: \(e.message)")
            if let hint = e.hint { Console.err("passbox: hint: \(hint)") }
            return e.code.rawValue
        }
    }

    /// `PASSBOX_DATA_DIR`, else `$XDG_DATA_HOME/passbox`, else `~/.local/share/passbox`.
    static func defaultDataDirectory() -> String {
        let env = ProcessInfo.processInfo.environment
        if let dir = env["PASSBOX_DATA_DIR"], !dir.isEmpty { return dir }
        if let xdg = env["XDG_DATA_HOME"], xdg.hasPrefix("/") { return xdg + "/passbox" }
        return NSHomeDirectory() + "/.local/share/passbox"
    }
}

/// What every command shares: where the data is, the input, and how to unlock.
final class Context {
    let dataDirectory: String
    let input: InputSource
    /// English or German for the texts that come from the shared tables (PASSBOX_LANG, LC_ALL, LANG).
    let language: Language
    lazy var store = VaultStore(directory: dataDirectory)
    /// In the agent: the unlocked vault (or a "locked" error) instead of asking for the password.
    let agentVault: (() throws -> OpenVault)?
    /// In the agent: told the new password after `passwd`, so the agent stays unlocked with the new keys
    /// (and keeps a new quick-unlock key) instead of holding stale ones.
    var passwordChanged: ((String) throws -> Void)?

    init(dataDirectory: String, input: InputSource = SecretInput(), language: Language = Language.fromEnvironment(), agentVault: (() throws -> OpenVault)? = nil) {
        self.dataDirectory = dataDirectory
        self.input = input
        self.language = language
        self.agentVault = agentVault
    }

    /// The open vault: the agent's, or asks for the vault password and unlocks. Purges trash older than 30 days.
    func unlock() throws -> OpenVault {
        let opened: OpenVault
        if let agentVault {
            opened = try agentVault()
        } else {
            guard store.exists else { throw StoreError.noVault(path: store.vaultPath) }
            let password = try input.secret(prompt: "Vault password: ")
            opened = try store.unlock(password: password)
        }
        let cutoff = Date().addingTimeInterval(-Double(Vault.trashRetentionDays) * 86_400)
        if opened.vault.items.contains(where: { ($0.trashedAt.map { $0 < cutoff }) ?? false }) {
            var vault = opened.vault
            vault.purgeTrash(now: Date())
            try opened.save(vault)
        }
        return opened
    }
}
