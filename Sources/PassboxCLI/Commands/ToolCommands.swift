import Foundation
import PassboxCore
import PassboxStore

extension Commands {
    /// `passbox generate`: a random password, or a passphrase with `--words N`.
    static func generate(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: "passbox generate [--length N] [--no-upper] [--no-lower] [--no-digits] [--no-symbols] [--allow-similar] | --words N [--separator S] [--capitalize] [--digit] [--language en|de] [--json]")
        let (password, bits) = try GeneratorOptions.generate(args)
        if args.flag("json") {
            Console.out(Format.json(["password": password, "entropyBits": (bits * 10).rounded() / 10]))
            return
        }
        Console.out(password)
        Console.err(Localization.tr("generate.entropy", context.language, ["bits": String(format: "%.0f", bits)]))
    }

    /// `passbox strength`: reads a password from standard input and explains its score.
    static func strength(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: "passbox strength [--json] < password")
        let password = try context.input.secret(prompt: "Password to rate: ")
        let s = PasswordStrength.estimate(password)
        let language = context.language
        if args.flag("json") {
            Console.out(Format.json(["score": s.score, "label": s.label(language), "guessesLog10": (s.guessesLog10 * 10).rounded() / 10, "warning": s.warning(language) ?? NSNull(), "suggestions": s.suggestions(language)]))
            return
        }
        Console.out(Localization.tr("strength.summary", language, ["label": s.label(language), "score": String(s.score), "log10": String(Int(s.guessesLog10.rounded()))]))
        if let warning = s.warning(language) { Console.out("⚠ \(warning)") }
        for suggestion in s.suggestions(language) { Console.out("→ \(suggestion)") }
    }

    /// `passbox categories`: every category and its typed fields.
    static func categories() {
        var rows = [["CATEGORY", "NAME", "FIELDS"]]
        for c in Category.all {
            rows.append([c.rawValue, c.displayName, c.fieldTemplates.map { $0.kind.isConcealed ? "\($0.key)*" : $0.key }.joined(separator: ", ")])
        }
        Console.out(Format.table(rows))
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

    static func help(_ topic: String?) {
        Console.out("""
            usage: passbox [--data DIR] COMMAND [OPTIONS]

            Commands:
              init [--insecure-test-kdf]     create the local vault
              passwd                         change the vault password
              add CATEGORY [options]         add an item (categories: passbox categories)
              edit ITEM [options]            change an item; the previous version goes into its history
              list [--category C] [--tag T] [--favorites] [--sort newest|oldest|az|za|recent] [--json]
              show ITEM [--reveal] [--field NAME] [--json]
              rm ITEM                        move an item to the trash
              trash [list | restore ITEM | delete ITEM | empty]
              history ITEM [restore VERSION] [--reveal] [--json]
              search QUERY [--json]          ranked, accent- and typo-tolerant
              totp ITEM [--watch] ; totp add ITEM (--qr IMAGE | --uri-stdin) ; totp import --qr IMAGE [--all]
              check [--breaches] [--kind K] [--json] ; check breaches on|off ; check update-data
              fill URL                       logins for a site (registrable-domain matching)
              generate [--length N] [--no-upper] [--no-lower] [--no-digits] [--no-symbols] [--allow-similar]
              generate --words N [--language en|de] [--capitalize] [--digit]
              strength [--json]              rate a password read from standard input
              categories                     the categories and their fields

            The agent (unlock once; commands then need no password until it locks):
              unlock [--quick | --master]    start it and unlock (quick: your login password, through PAM)
              lock [--forget] [--stop]       lock now (forget: drop the quick-unlock key; stop: end the agent)
              status [--json]                locked or unlocked, until when, what else locks it (exit 3 when locked)
              read passbox://local/ITEM/FIELD
              run [--env-file F] -- COMMAND  environment values that are passbox:// references, resolved and masked
              inject -i TEMPLATE -o FILE     {{ passbox://… }} references filled in, the file 0600
              copy ITEM [FIELD]              to the clipboard, cleared after 90 s if unchanged
              show ITEM --large              the password in numbered boxes
              settings [auto-lock 0|1|5|15|30|60 | quick-unlock on|off | reminder 14|30|never]

              bench vault|search|check|agent [--items N] [--runs N]
              help, --version

            Options of add and edit:
              --title T  --username U  --url URL (repeatable)  --tag T (repeatable)  --favorite
              --field LABEL=VALUE (visible fields only)  --secret-field LABEL (value from standard input)
              --password-stdin | --generate [--length N]  --notes-stdin
              edit also: --remove-field NAME  --no-favorite

            ITEM is an id, an id prefix of at least 4 characters, or a title.
            Exit codes: 0 ok, 1 failure, 2 usage, 3 wrong password or locked.
            See docs/CLI.md for every command.
            """)
    }
}
