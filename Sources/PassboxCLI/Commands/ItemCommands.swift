import Foundation
import PassboxCore
import PassboxProtocol
import PassboxWording

extension Commands {
    static let addUsage = "passbox add CATEGORY --title T [--username U] [--url URL ...] [--tag T ...] [--field LABEL=VALUE ...] [--secret-field LABEL ...] [--password-stdin | --generate [--length N]] [--notes-stdin] [--killphrase-stdin] [--search-passphrase-stdin] [--item-password-stdin] [--favorite] [--vault VAULT]"

    /// `passbox add CATEGORY …`
    static func add(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: addUsage)
        guard let category = Category.named(args.positionals[0]) else { throw ProtocolError(.unknownCategory, ["name": args.positionals[0]]) }
        try context.endpoint.prepare(.add)
        // A recovery phrase or private key is always locked with a password of its own; a note or an SSH key is
        // when asked (--item-password-stdin). It is read after the item's own secrets, before the notes.
        var itemPassword: SecretText?
        let changes = try ItemOptions.changes(args, context: context) {
            if ItemSeal.alwaysProtected.contains(category) || args.flag("item-password-stdin") {
                itemPassword = SecretText(try newItemPassword(context))
            }
        }
        let saved = try context.send(.add(AddRequest(category: category.rawValue, changes: changes, vault: args.value("vault"), itemPassword: itemPassword))).saved()
        ItemOptions.warnIfWeak(saved, context)
        if let key = saved.keyCheck { Console.err("passbox: warning: \(context.tr(key))") }
        Console.out(Console.visible("Added \"\(Console.visibleLine(saved.title))\" (\(saved.categoryName)) \(saved.id)"))
    }

    /// `passbox edit ITEM …`
    static func edit(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: "passbox edit ITEM [options of add] [--remove-field NAME] [--remove-passkey CREDENTIAL] [--no-favorite]")
        if args.flag("item-password-stdin") { throw CLIError.usage("an existing item gets its own password with passbox item protect ITEM") }
        try context.endpoint.prepare(.edit)
        let changes = try ItemOptions.changes(args, context: context)
        let saved = try context.send(.edit(EditRequest(item: args.positionals[0], changes: changes))).saved()
        ItemOptions.warnIfWeak(saved, context)
        guard saved.changed else {
            Console.out(Console.visible("No change to \"\(Console.visibleLine(saved.title))\"."))
            return
        }
        Console.out(Console.visible("Saved \"\(Console.visibleLine(saved.title))\" \(saved.id) (the previous version is in its history)"))
    }

    /// `passbox list`: pages through the agent's answer, so any number of items can be listed.
    static func list(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: "passbox list [--category C] [--tag T] [--favorites] [--codes] [--sort newest|oldest|az|za|recent] [--vault VAULT] [--json]")
        if let name = args.value("category"), Category.named(name) == nil { throw ProtocolError(.unknownCategory, ["name": name]) }
        if let name = args.value("sort"), ItemSort(rawValue: name) == nil { throw ProtocolError(.unknownSort, ["name": name]) }
        var request = ListRequest(
            category: args.value("category"), tag: args.value("tag"), favoritesOnly: args.flag("favorites"), sort: args.value("sort"), vault: args.value("vault"),
            withCode: args.flag("codes") ? true : nil)
        if request.withCode == true {
            // An agent before generation 16 ignores the filter and would list every item as if it had a code.
            let agent = try context.send(.hello(HelloRequest(operations: []))).hello().version
            if agent < 16 { throw ProtocolError(.unsupported, ["agent": String(agent), "operation": "list --codes"]) }
        }
        if args.flag("json") {
            // --json gives every field of every item.
            var items = [ItemSummary]()
            var page = try context.send(.list(request)).items()
            items += page.items
            while items.count < page.total, !page.items.isEmpty {
                request.offset = items.count
                page = try context.send(.list(request)).items()
                items += page.items
            }
            try Output.json(items)
            return
        }
        // A table needs the rows only (`ItemRows`). With the column widths of the whole listing (an agent that
        // measures sends them), each page is printed as it comes; without, the rows are held for one padding pass.
        request.rows = true
        var rows = [ItemRow]()
        var printed = 0
        var widths: ItemTableWidths?
        var page: ItemListReply
        repeat {
            request.offset = printed + rows.count
            page = try context.send(.list(request)).items()
            guard let more = page.itemRows() else { throw ProtocolError(.badRequest, ["reason": "damaged rows in the list reply"]) }
            if more.isEmpty { break }
            if request.offset == 0 { widths = ItemTableWidths(sent: page.widths) }
            if let widths {
                Console.write(Output.itemTable(more, widths: widths, header: printed == 0), error: false)
                printed += more.count
            } else {
                rows += more
            }
        } while printed + rows.count < page.total
        guard printed + rows.count > 0 else {
            Console.out(page.vaultIsEmpty ? "The vault is empty. Add an item with \"passbox add login --title …\"." : "No items match.")
            return
        }
        if !rows.isEmpty { Console.write(Output.itemTable(rows), error: false) }
    }

    /// `passbox show ITEM`
    static func show(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: "passbox show ITEM [--reveal] [--field NAME] [--large] [--json]")
        let reference = args.positionals[0]
        if let name = args.value("field") {
            // Printing one value on request is the point of --field (scripts); it is the caller's choice to reveal.
            let value = try context.send(.field(FieldRequest(item: reference, field: name))).value()
            Console.out(value.value)
            return
        }
        if args.flag("large") {
            // Showing the password in large type is the point of --large.
            let item = try context.send(.show(ShowRequest(item: reference, reveal: true))).item()
            guard let password = item.fields.first(where: { $0.key == "password" })?.value, !password.isEmpty else {
                throw ProtocolError(.noPassword, ["title": item.summary.title, "id": item.summary.id])
            }
            Console.out(largeType(password, colors: Console.colors))
            return
        }
        let reveal = args.flag("reveal")
        var item = try context.send(.show(ShowRequest(item: reference, reveal: reveal))).item()
        if reveal, item.summary.category == Category.recoveryPhrase.rawValue, isatty(STDOUT_FILENO) != 1 {
            // G41: a recovery phrase is shown to a person at a terminal, never into a pipe or a file.
            throw ProtocolError(.neverCopied, ["title": item.summary.title])
        }
        if reveal, item.summary.locked == true {
            let password = try context.input.secretText(prompt: "Item password: ")
            item = try context.send(.itemOpen(ProtectItemRequest(item: item.summary.id, password: password))).item()
        }
        if args.flag("json") {
            try Output.json(item)
            return
        }
        let s = item.summary
        var rows: [[String]] = [["Title:", Console.visibleLine(s.title)], ["Category:", s.categoryName], ["ID:", s.id]]
        for field in item.fields {
            if let code = field.code {
                // The code is what the user needs; the secret behind it is shown only with --reveal.
                // An HOTP code is only shown when it is used, since showing it must advance the counter.
                if code.kind == "hotp" {
                    rows.append(["\(field.label):", "HOTP counter \(code.counter ?? 0) (passbox totp \(s.id.prefix(8)) gives the next code)"])
                } else if let value = code.code {
                    rows.append(["\(field.label):", "\(value) (\(code.secondsLeft ?? 0) s left)"])
                }
                if reveal { rows.append(["", Console.visibleLine(field.value)]) }
                continue
            }
            let shown = field.masked ? Output.mask : field.value
            rows.append(["\(field.label):", shown.replacingOccurrences(of: "\n", with: "\n    ")])
        }
        for site in s.websites { rows.append(["Website:", Console.visibleLine(site)]) }
        if !s.tags.isEmpty { rows.append(["Tags:", Console.visibleLine(s.tags.joined(separator: ", "))]) }
        for key in item.passkeys ?? [] {
            let user = key.userName.isEmpty ? key.displayName : key.userName
            let used = key.lastUsed.map { ", last used " + Output.date($0) } ?? ""
            rows.append(["Passkey:", Console.visibleLine("\(key.rp) · \(user) (made \(Output.date(key.created))\(used))")])
        }
        if s.favorite { rows.append(["Favorite:", "yes"]) }
        if let badge = s.shared { rows.append(["Shared:", Console.visibleLine(badge) + (s.viewOnly == true ? " (view only)" : "")]) }
        if let seen = item.seenBy, !seen.isEmpty { rows.append(["Who can see it:", Console.visibleLine(seen.joined(separator: ", "))]) }
        if s.created != nil { rows.append(["Created:", Output.date(s.created)]) }
        if s.lastChanged != nil { rows.append(["Last changed:", Output.date(s.lastChanged)]) }
        if s.lastUsed != nil { rows.append(["Last used:", Output.date(s.lastUsed)]) }
        if item.lastFilled != nil { rows.append(["Last filled:", Output.date(item.lastFilled)]) }
        if item.historyCount > 0 {
            rows.append(["History:", "\(item.historyCount) earlier version\(item.historyCount == 1 ? "" : "s") (passbox history \(s.id.prefix(8)))"])
        }
        Console.out(Output.table(rows, multilineValues: true))
        if !item.notes.isEmpty {
            Console.out("Notes:")
            Console.out(Console.visible(item.notes.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n")))
        }
        if item.fields.contains(where: { $0.masked && $0.kind != "otp" }) {
            Console.err("(concealed values are masked; add --reveal to show them)")
        }
        if item.summary.locked == true, !reveal {
            Console.err("(locked with its own password: add --reveal to open it; it asks for the item password)")
        }
    }

    /// `passbox rm ITEM`: moves the item to the trash.
    static func remove(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: "passbox rm ITEM")
        let saved = try context.send(.delete(ItemRequest(item: args.positionals[0]))).saved()
        Console.out(Console.visible("Moved \"\(Console.visibleLine(saved.title))\" to the trash. Undo with: passbox trash restore \(saved.id.prefix(8))"))
    }

    static let trashUsage = "passbox trash [list | restore ITEM | delete ITEM | empty]"

    static func trashList(_ context: Context, _ args: Arguments) throws {
        guard args.positionals.isEmpty else {
            throw CLIError.usage("unknown trash action \"\(Console.visible(args.positionals[0]))\"", hint: "usage: \(trashUsage)")
        }
        let items = try context.send(.trashList(ListRequest())).items().items
        if args.flag("json") {
            try Output.json(items)
        } else if items.isEmpty {
            Console.out("The trash is empty.")
        } else {
            Console.out(Output.table([["ID", "TITLE", "CATEGORY", "TRASHED"]] + items.map { [String($0.id.prefix(8)), $0.title, $0.categoryName, Output.date($0.trashedAt)] }))
            Console.out("Items are deleted for good 30 days after they were trashed.")
        }
    }

    static func trashRestore(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: trashUsage)
        let saved = try context.send(.trashRestore(ItemRequest(item: args.positionals[0]))).saved()
        Console.out(Console.visible("Restored \"\(Console.visibleLine(saved.title))\"."))
    }

    static func trashDelete(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: trashUsage)
        let saved = try context.send(.trashDelete(ItemRequest(item: args.positionals[0]))).saved()
        Console.out(Console.visible("Deleted \"\(Console.visibleLine(saved.title))\" for good."))
    }

    static func trashEmpty(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: trashUsage)
        let count = try context.send(.trashEmpty).count().count
        Console.out("Deleted \(count) item\(count == 1 ? "" : "s") for good.")
    }

    /// `passbox history ITEM [restore VERSION]`
    static func history(_ context: Context, _ args: Arguments) throws {
        let usage = "passbox history ITEM [restore VERSION] [--reveal] [--json]"
        try args.expectPositionals(1...3, usage: usage)
        if args.positionals.count > 1 {
            guard args.positionals[1] == "restore", args.positionals.count == 3 else { throw CLIError.usage("usage: \(usage)") }
            let saved = try context.send(.restoreVersion(RestoreVersionRequest(item: args.positionals[0], version: args.positionals[2]))).saved()
            Console.out(Console.visible("Restored version \(args.positionals[2]) of \"\(Console.visibleLine(saved.title))\"; the replaced version is in its history."))
            return
        }
        let reveal = args.flag("reveal")
        let history = try context.send(.history(ShowRequest(item: args.positionals[0], reveal: reveal))).history()
        if args.flag("json") {
            try Output.json(history)
            return
        }
        guard !history.versions.isEmpty else {
            Console.out(Console.visible("\"\(Console.visibleLine(history.title))\" has no earlier versions."))
            return
        }
        Console.out(Console.visible("Earlier versions of \"\(Console.visibleLine(history.title))\", newest first:"))
        var rows = [["VERSION", "REPLACED", "CHANGES"]]
        for version in history.versions {
            rows.append([version.id, Output.date(version.replacedAt), describe(version.changes)])
        }
        Console.out(Output.table(rows))
        if !history.previousPasswords.isEmpty {
            Console.out("\nPrevious passwords:")
            Console.out(Output.table(history.previousPasswords.map { [$0.masked ? Output.mask : $0.value, "until " + Output.date($0.replacedAt)] }))
        }
        Console.out("\nRestore one with: passbox history \(history.id.prefix(8)) restore VERSION")
    }

    /// A short description of what changed between two versions.
    static func describe(_ changes: [ChangeView]) -> String {
        let parts = changes.map { c -> String in
            switch c.what {
            case "title": "title \"\(c.old ?? "")\" → \"\(c.new ?? "")\""
            case "field":
                c.old == nil && c.new == nil
                    ? "\((c.label ?? "").lowercased()) changed" : "\((c.label ?? "").lowercased()) \"\(c.old ?? "")\" → \"\(c.new ?? "")\""
            case "favorite": "made favorite"
            case "unfavorite": "no longer favorite"
            default: "\(c.what) changed"
            }
        }
        return parts.isEmpty ? "no visible change" : parts.joined(separator: "; ")
    }
}
