import Foundation
import PassboxAgent
import PassboxCore
import PassboxStore

extension Commands {
    /// `passbox read passbox://VAULT/ITEM/FIELD [--no-newline] [--mark-used]`
    static func read(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: "passbox read passbox://VAULT/ITEM/FIELD [--no-newline]")
        let reference = try SecretReference.parse(args.positionals[0])
        let opened = try context.unlock()
        let (item, value) = try reference.resolve(in: opened.vault)
        if args.flag("mark-used") {
            var vault = opened.vault
            try vault.markUsed(id: item.id, now: Date())
            try opened.save(vault)
        }
        // Printing the value is what read is for.
        Console.write(value + (args.flag("no-newline") ? "" : "\n"), error: false)
    }
}

/// Resolves references for `run`, `inject` and `copy`: through the agent when one runs, else by unlocking
/// here once.
final class ReferenceResolver {
    let context: Context
    private var local: OpenVault?

    init(_ context: Context) { self.context = context }

    func value(_ text: String, markUsed: Bool = false) throws -> String {
        let reference = try SecretReference.parse(text)
        if UnixSocket.connect(to: AgentCommands.socketPath(context)).map({ close($0); return true }) ?? false {
            var argv = ["read", text, "--no-newline"]
            if markUsed { argv.append("--mark-used") }
            guard let reply = try AgentClient.send(["op": "run", "argv": argv, "stdin": [String]()], socketPath: AgentCommands.socketPath(context), input: { _, _ in nil }) else {
                throw CLIError.failure("the agent stopped", hint: "run \"passbox unlock\" again")
            }
            let code = Int32(reply["exit"] as? Int ?? 1)
            guard code == 0 else {
                let stderr = (reply["stderr"] as? String ?? "").split(separator: "\n")
                let message = stderr.first.map { String($0.replacingOccurrences(of: "passbox: error: ", with: "")) } ?? "the reference could not be read"
                let hint = stderr.dropFirst().first.map { String($0.replacingOccurrences(of: "passbox: hint: ", with: "")) }
                throw CLIError(message: message, hint: hint, code: CLIError.Code(rawValue: code) ?? .failure)
            }
            return reply["stdout"] as? String ?? ""
        }
        if local == nil { local = try context.unlock() }
        let (item, value) = try reference.resolve(in: local!.vault)
        if markUsed {
            var vault = local!.vault
            try vault.markUsed(id: item.id, now: Date())
            try local!.save(vault)
        }
        return value
    }
}
