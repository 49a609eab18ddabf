import Foundation
import PassboxCore
import PassboxProtocol
import PassboxService
import PassboxStore
import PassboxWording

extension Commands {
    /// `passbox generate`: a random password, or a passphrase with `--words N` (in this process: no vault).
    static func generate(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: "passbox generate [--length N] [--no-upper] [--no-lower] [--no-digits] [--no-symbols] [--allow-similar] | --words N [--separator S] [--capitalize] [--digit] [--language en|de] [--json]")
        // Every refusal of the generator's options is a usage error (exit 2), like an option it cannot read.
        var generated: GeneratedReply
        do {
            generated = try Tools.generate(try GeneratorOptions.request(args))
        } catch let error as ValidationError {
            let (message, hint) = Wording.error(ProtocolError.from(error), context.language)
            throw CLIError(message: message, hint: hint, code: .usage)
        }
        if args.flag("json") {
            generated.entropyBits = (generated.entropyBits * 10).rounded() / 10
            try Output.json(generated)
            return
        }
        Console.out(generated.password)
        Console.err(context.tr("generate.entropy", ["bits": String(format: "%.0f", generated.entropyBits)]))
    }

    /// `passbox strength`: reads a password from standard input and explains its score.
    static func strength(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: "passbox strength [--json] < password")
        let password = try context.input.secret(prompt: "Password to rate: ")
        var s = try Tools.strength(password)
        let label = context.tr("strength.label.\(s.score)")
        if args.flag("json") {
            s.guessesLog10 = (s.guessesLog10 * 10).rounded() / 10
            try Output.json(s)
            return
        }
        Console.out(context.tr("strength.summary", ["label": label, "score": String(s.score), "log10": String(Int(s.guessesLog10.rounded()))]))
        if let warning = s.warning { Console.out("⚠ \(context.tr(warning))") }
        for suggestion in s.suggestions { Console.out("→ \(context.tr(suggestion))") }
    }

    /// `passbox categories`: every category and its typed fields.
    static func categories() {
        var rows = [["CATEGORY", "NAME", "FIELDS"]]
        for c in Category.all {
            rows.append([c.rawValue, c.displayName, c.fieldTemplates.map { $0.kind.isConcealed ? "\($0.key)*" : $0.key }.joined(separator: ", ")])
        }
        Console.out(Output.table(rows))
        Console.out("* concealed: give its value with --secret-field NAME on standard input, never on the command line")
    }

    /// `passbox welcome` (what `make run` starts): where the vault is and what to do next.
    static func welcome(_ context: Context, _ args: Arguments) throws {
        Console.out("Passbox \(CommandLineTool.version) — a local, end-to-end encrypted password vault.")
        Console.out("Data directory: \(context.dataDirectory)")
        if context.store.exists {
            Console.out("Vault: \(context.store.vaultPath) (locked; every command asks for its password)")
        } else {
            Console.out("Vault: none yet. Create it with:  passbox init")
        }
        Console.out("")
        Console.out(tour)
    }

    static let tour = """
        A short tour:
          passbox init                                   create the vault (asks for a password)
          passbox add login --title GitHub --username me --url github.com --generate
          passbox add card --title Visa --field cardholder="A. Person" --secret-field number --secret-field cvc
          passbox list [--category login] [--tag work] [--favorites] [--sort recent] [--json]
          passbox show GitHub [--reveal] [--field password] [--json]
          passbox edit GitHub --generate                 (the old password stays in history)
          passbox history GitHub [restore VERSION]
          passbox rm GitHub ; passbox trash [list | restore ITEM | delete ITEM | empty]
          passbox passwd                                 change the vault password
          passbox search gihtub ; passbox totp add GitHub --qr shot.png ; passbox totp GitHub --watch
          passbox check [--breaches] ; passbox fill https://github.com/login
          passbox unlock ; passbox read passbox://local/GitHub/password ; passbox copy GitHub ; passbox lock
          passbox generate [--length 24 | --words 5] ; passbox strength < file ; passbox categories
        Secrets are never taken from the command line: the vault password is asked with echo off, or read
        from the first line of standard input; --password-stdin, --secret-field and --notes-stdin read the
        next lines. Use --data DIR (or PASSBOX_DATA_DIR) for another data directory.
        """

}
