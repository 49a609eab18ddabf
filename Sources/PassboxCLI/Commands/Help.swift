import Foundation

/// `passbox help [COMMAND]` and `--help` on every command: written from the command table.
enum Help {
    /// The sentences `--help` and the manual pages share.
    static let itemNote = "ITEM is an id, an id prefix of at least 4 characters, or a title."
    static let exitCodes = "0 ok, 1 failure, 2 usage, 3 wrong password or locked."
    static let agentNote = "Served by the agent when one runs; otherwise asks for the vault password."

    static func print(_ topic: [String]) throws {
        if topic.isEmpty {
            Console.out(overview())
            return
        }
        guard CommandTable.find(topic[0]) != nil else { throw CLIError.usage("unknown command \"\(topic[0])\"") }
        printCommand(topic)
    }

    static func overview() -> String {
        var lines = ["usage: passbox [--data DIR] COMMAND [OPTIONS]", "", "Commands:"]
        let listed = CommandTable.commands.filter(\.isListed)
        let width = listed.map { ($0.name + ($0.aliases.isEmpty ? "" : ", " + $0.aliases.joined(separator: ", "))).count }.max() ?? 0
        for spec in listed {
            let name = spec.name + (spec.aliases.isEmpty ? "" : ", " + spec.aliases.joined(separator: ", "))
            lines.append("  " + name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + spec.summary)
        }
        lines += [
            "",
            "Options of add and edit:",
            "  --title T  --username U  --url URL (repeatable)  --tag T (repeatable)  --favorite",
            "  --field LABEL=VALUE (visible fields only)  --secret-field LABEL (value from standard input)",
            "  --password-stdin | --generate [--length N]  --notes-stdin",
            "  edit also: --remove-field NAME  --no-favorite",
            "",
            itemNote,
            "\"passbox COMMAND --help\" shows a command's options. With an agent running (passbox unlock), the",
            "commands that need the vault ask it instead of asking for the vault password.",
            "Exit codes: " + exitCodes,
            "See man passbox (installed with the Debian package) or docs/CLI.md in the source for every command.",
        ]
        return lines.joined(separator: "\n")
    }

    static func printCommand(_ path: [String]) {
        guard var spec = CommandTable.find(path[0]) else { return }
        if path.count > 1, let sub = CommandTable.find(path[1], in: spec.subcommands) { spec = sub }
        var lines = ["usage: " + spec.usage.replacingOccurrences(of: "\n", with: "\n       "), "", spec.summary.prefix(1).uppercased() + spec.summary.dropFirst() + "."]
        if !spec.aliases.isEmpty { lines.append("Also called: " + spec.aliases.joined(separator: ", ") + ".") }
        let options = spec.valued.sorted().map { ($0.count == 1 ? "-" : "--") + $0 + " VALUE" } + spec.flags.sorted().map { ($0.count == 1 ? "-" : "--") + $0 }
        if !options.isEmpty { lines += ["", "Options: " + options.joined(separator: "  ")] }
        if !spec.subcommands.isEmpty {
            lines += ["", "Subcommands:"]
            for sub in spec.subcommands { lines.append("  " + sub.name.padding(toLength: 12, withPad: " ", startingAt: 0) + sub.summary) }
        }
        if spec.usesAgent { lines += ["", agentNote] }
        Console.out(lines.joined(separator: "\n"))
    }
}

/// `passbox completion bash|zsh|fish`: completion scripts written from the command table.
enum Completion {
    static func print(_ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: "passbox completion bash|zsh|fish")
        switch args.positionals[0] {
        case "bash": Console.out(bash())
        case "zsh": Console.out(zsh())
        case "fish": Console.out(fish())
        default: throw CLIError.usage("unknown shell \"\(args.positionals[0])\"", hint: "use bash, zsh or fish")
        }
    }

    static var listed: [CommandSpec] { CommandTable.commands.filter(\.isListed) }

    static func options(_ spec: CommandSpec) -> [String] {
        (spec.valued.sorted() + spec.flags.sorted()).filter { !$0.hasPrefix("test-") && $0 != "pam-service" && $0 != "insecure-test-kdf" }.map { ($0.count == 1 ? "-" : "--") + $0 }
            + ["--help"]
    }

    static func bash() -> String {
        var cases = [String]()
        for spec in listed {
            let names = ([spec.name] + spec.aliases).joined(separator: "|")
            var words = spec.subcommands.map(\.name) + options(spec)
            var subcases = [String]()
            for sub in spec.subcommands {
                subcases.append("            \(sub.name)) opts=\"\(options(sub).joined(separator: " "))\" ;;")
            }
            if spec.name == "help" { words += listed.map(\.name) }
            if spec.name == "completion" { words += ["bash", "zsh", "fish"] }
            if subcases.isEmpty {
                cases.append("        \(names)) opts=\"\(words.joined(separator: " "))\" ;;")
            } else {
                cases.append(
                    "        \(names))\n            case \"${COMP_WORDS[2]}\" in\n" + subcases.joined(separator: "\n")
                        + "\n            *) opts=\"\(words.joined(separator: " "))\" ;;\n            esac ;;")
            }
        }
        return """
            # bash completion for passbox (passbox completion bash)
            _passbox() {
                local cur="${COMP_WORDS[COMP_CWORD]}" opts
                if [ "$COMP_CWORD" -eq 1 ]; then
                    COMPREPLY=($(compgen -W "\(listed.flatMap { [$0.name] + $0.aliases }.joined(separator: " ")) --data --version --help" -- "$cur"))
                    return
                fi
                case "${COMP_WORDS[1]}" in
            \(cases.joined(separator: "\n"))
                    *) opts="" ;;
                esac
                COMPREPLY=($(compgen -W "$opts" -- "$cur"))
            }
            complete -o default -F _passbox passbox
            """
    }

    /// The zsh completion: the bash one through bashcompinit, as a file in `$fpath` (`_passbox`). zsh loads it
    /// as the function `_passbox` at the first Tab; it defines the bash completion, then answers that first Tab
    /// itself (only inside completion: sourced from a shell's start-up file it just defines the completion).
    static func zsh() -> String {
        "#compdef passbox\nautoload -U +X bashcompinit && bashcompinit\n" + bash()
            + "\nif [[ -n ${compstate[context]-} ]]; then _bash_complete -o default -F _passbox \"$@\"; fi\n"
    }

    static func fish() -> String {
        var lines = ["# fish completion for passbox (passbox completion fish)", "complete -c passbox -f"]
        let top = listed.map(\.name).joined(separator: " ")
        for spec in listed {
            lines.append("complete -c passbox -n \"not __fish_seen_subcommand_from \(top)\" -a \(spec.name) -d \(quoted(spec.summary))")
            for sub in spec.subcommands {
                lines.append("complete -c passbox -n \"__fish_seen_subcommand_from \(spec.name)\" -a \(sub.name) -d \(quoted(sub.summary))")
            }
            for option in options(spec) where option.hasPrefix("--") {
                lines.append("complete -c passbox -n \"__fish_seen_subcommand_from \(spec.name)\" -l \(option.dropFirst(2))")
            }
        }
        return lines.joined(separator: "\n")
    }

    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "\\'") + "'" }
}
