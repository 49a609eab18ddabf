import Foundation
import PassboxCore
import PassboxStore

/// The options `add` and `edit` share, applied to an item in the order secrets are read from standard input:
/// `--password-stdin`, then each `--secret-field`, then `--notes-stdin`.
enum ItemOptions {
    static let valued: Set<String> = ["title", "username", "url", "tag", "field", "secret-field"]
    static let flags: Set<String> = ["password-stdin", "generate", "notes-stdin", "favorite"]

    static func apply(_ args: Arguments, to item: inout Item, context: Context, isEdit: Bool) throws {
        if let title = args.value("title") { item.title = title }
        if let username = args.value("username") { item.setValue(username, for: "username") }
        if args.has("url") { item.websites = args.all("url") }
        if args.has("tag") { item.tags = args.all("tag") }
        if args.flag("favorite") { item.isFavorite = true }
        if args.flag("no-favorite") { item.isFavorite = false }
        for name in args.all("remove-field") {
            guard let index = item.fieldIndex(named: name) else { throw VaultError.itemNotFound("field \(name)") }
            if item.fields[index].isCustom { item.fields.remove(at: index) } else { item.fields[index].value = "" }
        }
        for assignment in args.all("field") {
            guard let eq = assignment.firstIndex(of: "="), eq != assignment.startIndex else {
                throw CLIError.usage("--field takes LABEL=VALUE, got \"\(assignment.prefix(40))\"")
            }
            let label = String(assignment[..<eq])
            let value = String(assignment[assignment.index(after: eq)...])
            if isConcealed(label, in: item) {
                // A concealed value on the command line would be visible in `ps` and shell history.
                throw CLIError.usage("\(label) is a concealed field, so its value must not be on the command line", hint: "use --secret-field \(label) and give the value as a line on standard input")
            }
            item.setValue(value, for: label)
        }
        if args.flag("password-stdin") && args.flag("generate") {
            throw CLIError.usage("--password-stdin and --generate cannot be used together")
        }
        if args.flag("password-stdin") {
            let password = try context.input.secret(prompt: "Item password: ")
            setSecret(password, for: "password", in: &item)
            warnIfWeak(password, item: item)
        }
        if args.flag("generate") {
            setSecret(try GeneratorOptions.generate(args).password, for: "password", in: &item)
        }
        for label in args.all("secret-field") {
            setSecret(try context.input.secret(prompt: "\(label): "), for: label, in: &item)
        }
        if args.flag("notes-stdin") {
            item.notes = context.input.isTerminal ? readNotesFromTerminal(context) : context.input.readRest()
        }
    }

    private static func isConcealed(_ label: String, in item: Item) -> Bool {
        if let field = item.field(named: label) { return field.kind.isConcealed }
        return item.category.fieldTemplates.first { $0.key == label || $0.label.caseInsensitiveCompare(label) == .orderedSame }?.kind.isConcealed ?? false
    }

    private static func setSecret(_ value: String, for label: String, in item: inout Item) {
        if item.fieldIndex(named: label) != nil || item.category.fieldTemplates.contains(where: { $0.key == label }) {
            item.setValue(value, for: label)
        } else {
            item.fields.append(Field(label: label, kind: .hidden, value: value))
        }
    }

    private static func readNotesFromTerminal(_ context: Context) -> String {
        Console.err("Notes (end with Ctrl-D on an empty line):")
        return context.input.readRest()
    }

    static func warnIfWeak(_ password: String, item: Item) {
        let strength = PasswordStrength.estimate(password, userInputs: [item.title, item.username ?? ""])
        if strength.score < 3 {
            Console.err("passbox: warning: the password is \(strength.label) (\(strength.score)/4). \(strength.warning ?? "")")
            Console.err("passbox: hint: use --generate for a strong random password")
        }
    }
}
