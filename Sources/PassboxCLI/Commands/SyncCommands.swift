import Foundation
import PassboxCore
import PassboxProtocol
import PassboxWording

extension Commands {
    /// `passbox sync`: pull, merge and push now; says what was merged and what could not be opened.
    static func sync(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: "passbox sync [--json]")
        try context.endpoint.prepare(.sync)
        let reply = try context.send(.sync(SyncRequest())).synced()
        if args.flag("json") {
            try Output.json(reply)
            return
        }
        Console.out(context.tr("sync.done", ["pulled": String(reply.pulled), "pushed": String(reply.pushed)]))
        // What is still queued and when the last sync was, as `status` says it.
        for line in syncStatusLines(reply.status, context) { Console.out(line) }
        printSyncDetails(reply.status, context)
    }

    static func printSyncDetails(_ status: SyncStatusView, _ context: Context) {
        for notice in status.notices {
            let title = Console.visibleLine(notice.title)
            Console.out(context.tr("sync.notice.\(notice.kind)", ["title": title, "fields": notice.fields.map(Console.visibleLine).joined(separator: ", ")]))
        }
        if !status.undecryptable.isEmpty {
            Console.out(context.tr("sync.undecryptable", ["count": String(status.undecryptable.count)]))
            for entry in status.undecryptable {
                Console.out("  \(Console.visibleLine(entry.vault)) \(entry.itemID): \(Console.visibleLine(entry.reason))")
            }
        }
    }

    /// The lines `status` adds for an account's vault.
    static func syncStatusLines(_ status: SyncStatusView, _ context: Context) -> [String] {
        var lines: [String] = []
        let last = status.lastSync.map { ago($0, context) } ?? context.tr("sync.never")
        lines.append(context.tr("sync.status", ["queued": String(status.queued), "last": last]))
        if let failure = status.lastFailure { lines.append(context.tr("sync.lastFailure", ["reason": context.tr("error.\(failure)")])) }
        if let live = status.live { lines.append(context.tr(live ? "sync.live.on" : "sync.live.off")) }
        return lines
    }

    /// "12 s ago", "3 min ago", "2 h ago", "4 days ago".
    static func ago(_ date: Date, _ context: Context) -> String {
        let seconds = max(0, Int(Date().timeIntervalSince(date)))
        let (value, unit) = seconds < 60 ? (seconds, "s") : seconds < 3600 ? (seconds / 60, "min") : seconds < 86_400 ? (seconds / 3600, "h") : (seconds / 86_400, "d")
        return context.tr("sync.ago.\(unit)", ["n": String(value)])
    }

    static func vaultList(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: "passbox vault list [--json]")
        try context.endpoint.prepare(.vaultList)
        let reply = try context.send(.vaultList).vaults()
        if args.flag("json") {
            try Output.json(reply)
            return
        }
        if let account = reply.account { Console.out(context.tr("vault.list.account", ["email": Console.visibleLine(account)])) } else {
            Console.out(context.tr("vault.list.local", ["path": context.store.vaultPath]))
        }
        let rows = reply.vaults.map { v in
            [v.isDefault ? "*" : " ", v.name, "\(v.icon), \(v.colour)", context.tr("vault.items", ["count": String(v.items)]), v.id]
        }
        Console.out(Output.table(rows))
        if let other = reply.other { Console.out(context.tr("vault.list.other", ["path": other])) }
    }

    static func vaultCreate(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: "passbox vault create NAME [--icon ICON] [--colour COLOUR]")
        try context.endpoint.prepare(.vaultCreate)
        let view = try context.send(.vaultCreate(VaultCreateRequest(name: args.positionals[0], icon: args.value("icon"), colour: args.value("colour")))).vault()
        Console.out(context.tr("vault.created", ["name": Console.visibleLine(view.name), "id": view.id]))
    }

    static func vaultEdit(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...2, usage: "passbox vault edit VAULT [--name NAME] [--icon ICON] [--colour COLOUR]")
        // `vault rename OLD NEW` reads as it is said.
        let name = args.value("name") ?? (args.positionals.count == 2 ? args.positionals[1] : nil)
        guard name != nil || args.value("icon") != nil || args.value("colour") != nil else {
            throw CLIError.failure(context.tr("vault.edit.nothing"), hint: "passbox vault edit VAULT --name NAME | --icon ICON | --colour COLOUR")
        }
        try context.endpoint.prepare(.vaultEdit)
        let view = try context.send(.vaultEdit(VaultEditRequest(vault: args.positionals[0], name: name, icon: args.value("icon"), colour: args.value("colour")))).vault()
        Console.out(context.tr("vault.edited", ["name": Console.visibleLine(view.name), "icon": view.icon, "colour": view.colour]))
    }

    /// LB-2: asks first (saying how many items it holds), then its items go to the trash of the first vault left.
    static func vaultDelete(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: "passbox vault delete VAULT [--yes]")
        try context.endpoint.prepare(.vaultDelete)
        let preview = try context.send(.vaultDelete(VaultDeleteRequest(vault: args.positionals[0], confirm: false))).vaultDeleted()
        let facts = ["name": Console.visibleLine(preview.name), "items": String(preview.items), "trashed": String(preview.trashed), "home": Console.visibleLine(preview.home)]
        if !args.flag("yes") {
            Console.err(context.tr("vault.delete.ask", facts))
            guard context.input.readLine()?.trimmingCharacters(in: .whitespaces).lowercased() == "yes" else {
                throw CLIError.failure(context.tr("vault.delete.notYes"), hint: context.tr("vault.delete.notYes.hint"))
            }
        }
        // By its id: the name asked about is the vault deleted, even if another was renamed to it meanwhile.
        let done = try context.send(.vaultDelete(VaultDeleteRequest(vault: preview.id, confirm: true))).vaultDeleted()
        Console.out(context.tr("vault.deleted", ["name": Console.visibleLine(done.name), "items": String(done.items), "home": Console.visibleLine(done.home)]))
    }

    static func move(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1000, usage: "passbox move ITEM... --to VAULT [--copy]")
        guard let target = args.value("to") else { throw CLIError.failure(context.tr("move.noTarget"), hint: "passbox move ITEM... --to VAULT") }
        try context.endpoint.prepare(.move)
        let reply = try context.send(.move(MoveRequest(items: args.positionals, vault: target, copy: args.flag("copy")))).count()
        Console.out(context.tr(args.flag("copy") ? "move.copied" : "move.moved", ["count": String(reply.count), "vault": Console.visibleLine(target)]))
        // Into a shared vault: who will see them there (VLT-7).
        if let seen = reply.seenBy {
            Console.out(context.tr("move.seenBy", ["vault": Console.visibleLine(target), "who": Console.visibleLine(seen.joined(separator: ", "))]))
        }
    }
}
