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
        case "add": try add(context, Arguments(words, valued: ItemOptions.valued, flags: ItemOptions.flags))
        case "edit": try edit(context, Arguments(words, valued: ItemOptions.valued.union(["remove-field"]), flags: ItemOptions.flags.union(["no-favorite"])))
        case "list", "ls": try list(context, Arguments(words, valued: ["category", "tag", "sort"], flags: ["favorites", "json"]))
        case "show", "get": try show(context, Arguments(words, valued: ["field"], flags: ["reveal", "json"]))
        case "rm", "delete": try remove(context, Arguments(words, valued: [], flags: []))
        case "trash": try trash(context, Arguments(words, valued: [], flags: ["json"]))
        case "history": try history(context, Arguments(words, valued: [], flags: ["reveal", "json"]))
        case "generate": try generate(context, Arguments(words, valued: ["length"], flags: ["no-upper", "no-lower", "no-digits", "no-symbols", "allow-similar"]))
        case "strength": try strength(context, Arguments(words, valued: [], flags: ["json"]))
        case "categories": categories()
        case "welcome": try welcome(context, Arguments(words, valued: [], flags: []))
        case "bench": try bench(context, Arguments(words, valued: ["items", "runs"], flags: ["json", "full-kdf"]))
        case "help": help(words.first)
        case "version": Console.out("passbox \(CommandLineTool.version)")
        default:
            throw CLIError.usage("unknown command \"\(name)\"")
        }
    }
}
