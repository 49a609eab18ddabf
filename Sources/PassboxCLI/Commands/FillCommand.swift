import Foundation
import PassboxCore
import PassboxDomains

extension Commands {
    /// `passbox fill URL [--pick ITEM [--field NAME] [--confirm-other-site]] [--json]`: the logins for a site
    /// (no secrets), then the secret of the one picked. Picking a login saved for another site asks first.
    static func fill(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: "passbox fill URL [--pick ITEM [--field NAME] [--confirm-other-site]] [--json]")
        let requested = args.positionals[0]
        let domains = DomainRules.shared
        guard let host = CredentialMatcher.requestedHost(requested, domains: domains) else {
            throw CLIError.usage("\"\(requested)\" is not an address", hint: "give the page's address, such as https://example.com/login")
        }
        let opened = try context.unlock()
        var vault = opened.vault
        guard let pick = args.value("pick") else {
            let candidates = CredentialMatcher.candidates(for: requested, in: vault, domains: domains)
            let byID = Dictionary(uniqueKeysWithValues: vault.items.map { ($0.id, $0) })
            if args.flag("json") {
                Console.out(Format.json(candidates.map { c in
                    ["id": c.itemID, "title": byID[c.itemID]?.title ?? "" as Any, "username": (byID[c.itemID]?.username).map { $0 as Any } ?? NSNull(), "website": c.website, "match": c.match.rawValue]
                }))
                return
            }
            guard !candidates.isEmpty else {
                Console.out(Localization.tr("fill.none", context.language, ["host": domains.unicodeHost(host)]))
                return
            }
            Console.out(Format.table([["ID", "TITLE", "USERNAME", "WEBSITE", "MATCH"]] + candidates.map { c in
                [String(c.itemID.prefix(8)), byID[c.itemID]?.title ?? "", byID[c.itemID]?.username ?? "", c.website, c.match == .exactHost ? "this host" : "same site"]
            }))
            Console.out("Fill one with: passbox fill \(requested) --pick ID")
            return
        }
        let item = try vault.resolve(pick)
        guard item.category == .login || item.password != nil else {
            throw CLIError.failure("\"\(item.title)\" is not a login", hint: "pick one of the logins \"passbox fill \(requested)\" lists")
        }
        if !CredentialMatcher.fits(item, requested, domains: domains) {
            let saved = item.websites.first.flatMap { CredentialMatcher.requestedHost($0, domains: domains) }.map(domains.unicodeHost) ?? "no website"
            let warning = Localization.tr("fill.warning", context.language, ["saved": saved, "requested": domains.unicodeHost(host)])
            if context.input.isTerminal {
                Console.err(warning)
                Console.write("Fill anyway? [y/N] ", error: true)
                guard let answer = context.input.readLine(), ["y", "yes", "j", "ja"].contains(answer.lowercased()) else {
                    throw CLIError.failure("nothing was filled")
                }
            } else if !args.flag("confirm-other-site") {
                throw CLIError.failure(warning, hint: "if you trust it, add --confirm-other-site")
            }
        }
        let name = args.value("field") ?? "password"
        guard let value = item.value(of: name) else {
            throw CLIError.failure("\"\(item.title)\" has no field \"\(name)\"", hint: "run \"passbox show \(item.id.prefix(8))\" to see its fields")
        }
        try vault.markFilled(id: item.id, now: Date())
        try opened.save(vault)
        // Printing the secret is what a fill is for: the caller chose this login.
        Console.out(value)
    }
}
