import Foundation
import PassboxCore
import PassboxCrypto
import PassboxStore

/// Dispatches a command name to its implementation.
enum Commands {
    static func run(_ name: String, _ words: [String], _ context: Context) throws {
        switch name {
        case "init": try initVault(context, Arguments(words, valued: [], flags: ["insecure-test-kdf"]))
        case "passwd": try changePassword(context, Arguments(words, valued: [], flags: []))
        case "add": try add(context, Arguments(words, valued: ItemOptions.valued.union(GeneratorOptions.valued), flags: ItemOptions.flags.union(GeneratorOptions.flags)))
        case "edit":
            try edit(context, Arguments(words, valued: ItemOptions.valued.union(GeneratorOptions.valued).union(["remove-field"]), flags: ItemOptions.flags.union(GeneratorOptions.flags).union(["no-favorite"])))
        case "list", "ls": try list(context, Arguments(words, valued: ["category", "tag", "sort"], flags: ["favorites", "json"]))
        case "show", "get": try show(context, Arguments(words, valued: ["field"], flags: ["reveal", "json", "large"]))
        case "rm", "delete": try remove(context, Arguments(words, valued: [], flags: []))
        case "trash": try trash(context, Arguments(words, valued: [], flags: ["json"]))
        case "history": try history(context, Arguments(words, valued: [], flags: ["reveal", "json"]))
        case "generate": try generate(context, Arguments(words, valued: GeneratorOptions.valued, flags: GeneratorOptions.flags.union(["json"])))
        case "search", "find": try search(context, Arguments(words, valued: ["scope", "limit"], flags: ["json"]))
        case "totp", "otp": try totp(context, words)
        case "check": try check(context, words)
        case "read": try read(context, Arguments(words, valued: [], flags: ["no-newline", "mark-used"]))
        case "run": try runCommand(context, words)
        case "inject": try inject(context, Arguments(words, valued: ["i", "o", "in-file", "out-file"], flags: []))
        case "copy": try copy(context, Arguments(words, valued: ["clear-after"], flags: []))
        case "clipboard-clear": try clipboardClear(context, Arguments(words, valued: ["after", "tool"], flags: []))
        case "clipboard-serve": try clipboardServe(context, Arguments(words, valued: ["after"], flags: []))
        case "settings": try settings(context, Arguments(words, valued: [], flags: []))
        case "fill": try fill(context, Arguments(words, valued: ["pick", "field"], flags: ["confirm-other-site", "json"]))
        case "strength": try strength(context, Arguments(words, valued: [], flags: ["json"]))
        case "categories": categories()
        case "welcome": try welcome(context, Arguments(words, valued: [], flags: []))
        case "bench": try bench(context, Arguments(words, valued: ["items", "runs", "queries"], flags: ["json", "full-kdf"]))
        case "help": help(words.first)
        case "version": Console.out("passbox \(CommandLineTool.version)")
        default:
            throw CLIError.usage("unknown command \"\(name)\"")
        }
    }
}
