import Foundation
import PassboxCore
import PassboxProtocol
import PassboxWording

extension Commands {
    /// `passbox fill URL [--pick ITEM [--field NAME] [--confirm-other-site]] [--json]`: the logins for a site
    /// (no secrets), then the secret of the one picked. Picking a login saved for another site asks first.
    static func fill(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: "passbox fill URL [--pick ITEM [--field NAME] [--confirm-other-site]] [--json]")
        let address = args.positionals[0]
        guard let pick = args.value("pick") else {
            let reply = try context.send(.fill(FillRequest(address: address))).fill()
            if args.flag("json") {
                try Output.json(reply.candidates)
                return
            }
            guard !reply.candidates.isEmpty else {
                Console.out(Console.visible(context.tr("fill.none", ["host": reply.host])))
                return
            }
            Console.out(Output.table([["ID", "TITLE", "USERNAME", "WEBSITE", "MATCH"]] + reply.candidates.map { c in
                // A login of a shared vault carries its badge beside its title (AF-8).
                [String(c.id.prefix(8)), c.shared.map { "\(c.title) [\($0)]" } ?? c.title, c.username ?? "", c.website, c.match == "exact-host" ? "this host" : "same site"]
            }))
            Console.out(Console.visible("Fill one with: passbox fill \(address) --pick ID"))
            return
        }
        var request = FillRequest(address: address, pick: pick, field: args.value("field"), confirmOtherSite: args.flag("confirm-other-site"))
        let value: ValueReply
        do {
            value = try context.send(.fill(request)).value()
        } catch let e as ProtocolError where e.code == .otherSite && context.input.isTerminal {
            // On a terminal the user decides here; a script must say --confirm-other-site.
            Console.err(Wording.error(e, context.language).message)
            Console.write("Fill anyway? [y/N] ", error: true)
            guard let answer = context.input.readLine(), ["y", "yes", "j", "ja"].contains(answer.lowercased()) else {
                throw CLIError.failure("nothing was filled")
            }
            request.confirmOtherSite = true
            value = try context.send(.fill(request)).value()
        }
        // Printing the secret is what a fill is for: the caller chose this login.
        Console.out(value.value)
    }
}
