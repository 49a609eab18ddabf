import Foundation
import PassboxCore

extension Commands {
    /// `passbox search QUERY [--scope all|name|username|website|notes] [--limit N] [--json]`
    static func search(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...64, usage: "passbox search QUERY [--scope all|name|username|website|notes] [--limit N] [--json]")
        let query = args.positionals.joined(separator: " ")
        let scope = try args.value("scope").map { name in
            guard let s = SearchScope(rawValue: name) else { throw CLIError.usage("unknown scope \"\(name)\"", hint: "use all, name, username, website or notes") }
            return s
        } ?? .all
        let limit = try args.value("limit").map { text in
            guard let n = Int(text), n > 0 else { throw CLIError.usage("--limit takes a positive number") }
            return n
        } ?? 50
        let vault = try context.unlock().vault
        let hits = SearchIndex(vault: vault).search(query, scope: scope, limit: limit)
        let byID = Dictionary(uniqueKeysWithValues: vault.items.map { ($0.id, $0) })
        let items = hits.compactMap { byID[$0.itemID] }
        if args.flag("json") {
            Console.out(Format.json(zip(hits, items).map { hit, item in
                var entry = Format.listEntry(item)
                entry["match"] = ["title-prefix", "title-word", "title", "field", "near"][hit.tier.rawValue]
                return entry
            }))
            return
        }
        guard !items.isEmpty else {
            Console.out(Localization.tr("search.none", context.language, ["query": query]))
            return
        }
        if query.trimmingCharacters(in: .whitespaces).isEmpty { Console.out(Localization.tr("search.recent", context.language)) }
        Console.out(Format.table([["ID", "TITLE", "CATEGORY", "DETAILS"]] + items.map { [String($0.id.prefix(8)), ($0.isFavorite ? "★ " : "") + $0.title, $0.category.displayName, $0.summary] }))
    }
}
