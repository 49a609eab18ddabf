import Foundation
import PassboxCore
import PassboxProtocol
import PassboxWording

/// The options `add` and `edit` share, turned into `ItemChanges`. Secrets are read here, in the order they
/// come on standard input: `--password-stdin`, then each `--secret-field`, then `--notes-stdin`.
enum ItemOptions {
    static let valued: Set<String> = ["title", "username", "url", "tag", "field", "secret-field"]
    static let flags: Set<String> = ["password-stdin", "generate", "notes-stdin", "favorite", "killphrase-stdin", "search-passphrase-stdin", "item-password-stdin"]

    /// `beforeNotes` reads what comes after the item's own secrets and before `--notes-stdin` (which takes the
    /// rest of standard input): `add`'s item password.
    static func changes(_ args: Arguments, context: Context, beforeNotes: () throws -> Void = {}) throws -> ItemChanges {
        var changes = ItemChanges()
        changes.title = args.value("title")
        changes.username = args.value("username")
        if args.has("url") { changes.websites = args.all("url") }
        if args.has("tag") { changes.tags = args.all("tag") }
        if args.flag("favorite") { changes.favorite = true }
        if args.flag("no-favorite") { changes.favorite = false }
        changes.removeFields = args.all("remove-field")
        if args.has("remove-passkey") { changes.removePasskeys = args.all("remove-passkey") }
        for assignment in args.all("field") {
            guard let eq = assignment.firstIndex(of: "="), eq != assignment.startIndex else {
                throw CLIError.usage("--field takes LABEL=VALUE, got \"\(Console.visible(String(assignment.prefix(40))))\"")
            }
            changes.fieldsFromCommandLine.append(FieldAssignment(label: String(assignment[..<eq]), value: String(assignment[assignment.index(after: eq)...])))
        }
        if args.flag("password-stdin") && args.flag("generate") {
            throw CLIError.usage("--password-stdin and --generate cannot be used together")
        }
        if args.flag("password-stdin") {
            changes.secretFields.append(FieldAssignment(label: "password", value: try context.input.secret(prompt: "Item password: ")))
        }
        if args.flag("generate") { changes.generatePassword = try GeneratorOptions.request(args) }
        for label in args.all("secret-field") {
            changes.secretFields.append(FieldAssignment(label: label, value: try context.input.secret(prompt: "\(label): ")))
        }
        // Phrases are secrets too: read like passwords, never from argv. An empty one takes the item's off.
        if args.flag("killphrase-stdin") { changes.killphrase = try context.input.secret(prompt: "Killphrase (searching for it deletes the item): ") }
        if args.flag("search-passphrase-stdin") {
            changes.searchPassphrase = try context.input.secret(prompt: "Search passphrase (the item shows only when you search for it): ")
        }
        try beforeNotes()
        if args.flag("notes-stdin") {
            if context.input.isTerminal { Console.err("Notes (end with Ctrl-D on an empty line):") }
            changes.notes = try context.input.readRest()
        }
        return changes
    }

    /// Says so when the password the user typed is weak.
    static func warnIfWeak(_ saved: SavedReply, _ context: Context) {
        guard let s = saved.weakPassword else { return }
        let label = context.tr("strength.label.\(s.score)")
        Console.err("passbox: warning: the password is \(label) (\(s.score)/4). \(s.warning.map { context.tr($0) } ?? "")")
        Console.err("passbox: hint: use --generate for a strong random password")
    }
}

/// The generator settings shared by `generate`, `add --generate` and `edit --generate`.
enum GeneratorOptions {
    static let valued: Set<String> = ["length", "words", "separator", "language"]
    static let flags: Set<String> = ["no-upper", "no-lower", "no-digits", "no-symbols", "allow-similar", "capitalize", "digit"]

    static func request(_ args: Arguments) throws -> GeneratorRequest {
        var r = GeneratorRequest()
        // A passphrase's options and a character password's do not mix: one of them would be ignored.
        let characterOptions = ["length", "no-upper", "no-lower", "no-digits", "no-symbols", "allow-similar"].filter { args.has($0) }
        let wordOptions = ["separator", "capitalize", "digit", "language"].filter { args.has($0) }
        if args.has("words"), let first = characterOptions.first {
            throw ProtocolError(.conflictingOptions, ["first": "--words", "second": "--" + first])
        }
        if !args.has("words"), let first = wordOptions.first {
            throw ProtocolError(.conflictingOptions, ["first": "--" + first, "second": "a character password (it needs --words N)"])
        }
        if let words = args.value("words") {
            guard let n = Int(words) else { throw CLIError.usage("--words takes a number") }
            r.words = n
            r.separator = args.value("separator")
            r.capitalize = args.flag("capitalize")
            r.includeDigit = args.flag("digit")
            r.language = args.value("language")
            return r
        }
        if let length = args.value("length") {
            guard let n = Int(length) else { throw CLIError.usage("--length takes a number") }
            r.length = n
        }
        r.uppercase = !args.flag("no-upper")
        r.lowercase = !args.flag("no-lower")
        r.digits = !args.flag("no-digits")
        r.symbols = !args.flag("no-symbols")
        r.allowSimilar = args.flag("allow-similar")
        return r
    }
}
