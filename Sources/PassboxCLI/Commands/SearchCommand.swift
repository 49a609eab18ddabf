import Foundation
import PassboxCore
import PassboxProtocol
import PassboxWording

extension Commands {
    /// `passbox search QUERY [--scope all|name|username|website|notes] [--limit N] [--json]`
    static func search(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...64, usage: "passbox search QUERY [--scope all|name|username|website|notes] [--limit N] [--json]")
        let query = args.positionals.joined(separator: " ")
        if let name = args.value("scope"), SearchScope(rawValue: name) == nil { throw ProtocolError(.unknownScope, ["name": name]) }
        let limit = try args.value("limit").map { text in
            guard let n = Int(text), n > 0 else { throw CLIError.usage("--limit takes a positive number") }
            return n
        } ?? 50
        let items = try context.send(.search(SearchRequest(query: query, scope: args.value("scope"), limit: limit))).items().items
        if args.flag("json") {
            try Output.json(items)
            return
        }
        guard !items.isEmpty else {
            Console.out(Console.visible(context.tr("search.none", ["query": query])))
            return
        }
        if query.trimmingCharacters(in: .whitespaces).isEmpty { Console.out(context.tr("search.recent")) }
        Console.write(Output.itemTable(items.map(ItemRow.init)), error: false)
    }
}
