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
        // A terminal shows the best 50 and says when more matched; --json, read by programs, gets every hit up
        // to the agent's page maximum unless --limit says otherwise.
        let json = args.flag("json")
        let limit = try args.value("limit").map { text in
            guard let n = Int(text), n > 0 else { throw CLIError.usage("--limit takes a positive number") }
            return n
        } ?? (json ? ListRequest.maximumPage : 50)
        // A terminal asks for one more than it shows, to know whether the limit cut the hits.
        let asked = json ? limit : min(limit + 1, ListRequest.maximumPage)
        var items = try context.send(.search(SearchRequest(query: query, scope: args.value("scope"), limit: asked))).items().items
        let cut = !json && items.count > limit
        if cut { items.removeLast(items.count - limit) }
        if json {
            try Output.json(items)
            return
        }
        guard !items.isEmpty else {
            Console.out(Console.visible(context.tr("search.none", ["query": query])))
            return
        }
        let recent = query.trimmingCharacters(in: .whitespaces).isEmpty
        if recent { Console.out(context.tr("search.recent")) }
        Console.write(Output.itemTable(items.map(ItemRow.init)), error: false)
        if cut, !recent { Console.err(context.tr("search.limited", ["count": String(items.count), "more": String(min(limit * 4, ListRequest.maximumPage))])) }
    }
}
