import Foundation
import PassboxCore
import PassboxCrypto
import PassboxStore

extension Commands {
    static let addUsage = "passbox add CATEGORY --title T [--username U] [--url URL ...] [--tag T ...] [--field LABEL=VALUE ...] [--secret-field LABEL ...] [--password-stdin | --generate [--length N]] [--notes-stdin] [--favorite]"

    /// `passbox add CATEGORY …`
    static func add(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: addUsage)
        guard let category = Category.named(args.positionals[0]) else {
            throw CLIError.usage("unknown category \"\(args.positionals[0])\"", hint: "run \"passbox categories\" to see them")
        }
        let opened = try context.unlock()
        var item = Item(category: category)
        try ItemOptions.apply(args, to: &item, context: context, isEdit: false)
        var vault = opened.vault
        let saved = try vault.add(item, now: Date())
        try opened.save(vault)
        Console.out("Added \"\(saved.title)\" (\(saved.category.displayName)) \(saved.id)")
    }

    /// `passbox edit ITEM …`
    static func edit(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: "passbox edit ITEM [options of add] [--remove-field NAME] [--no-favorite]")
        let opened = try context.unlock()
        var vault = opened.vault
        let target = try vault.resolve(args.positionals[0])
        let before = target.history.count
        let saved = try vault.update(id: target.id, now: Date()) { item in
            try ItemOptions.apply(args, to: &item, context: context, isEdit: true)
        }
        guard saved.history.count != before || saved != target else {
            Console.out("No change to \"\(target.title)\".")
            return
        }
        try opened.save(vault)
        Console.out("Saved \"\(saved.title)\" \(saved.id) (the previous version is in its history)")
    }

    /// `passbox list`
    static func list(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: "passbox list [--category C] [--tag T] [--favorites] [--sort newest|oldest|az|za|recent] [--json]")
        var category: Category?
        if let name = args.value("category") {
            guard let c = Category.named(name) else { throw CLIError.usage("unknown category \"\(name)\"", hint: "run \"passbox categories\" to see them") }
            category = c
        }
        let sort = try args.value("sort").map { name in
            guard let s = ItemSort(rawValue: name) else { throw CLIError.usage("unknown sort \"\(name)\"", hint: "use newest, oldest, az, za or recent") }
            return s
        } ?? .az
        let opened = try context.unlock()
        let items = opened.vault.list(category: category, tag: args.value("tag"), favoritesOnly: args.flag("favorites"), sort: sort)
        if args.flag("json") {
            Console.out(Format.json(items.map(Format.listEntry)))
            return
        }
        guard !items.isEmpty else {
            Console.out(opened.vault.activeItems.isEmpty ? "The vault is empty. Add an item with \"passbox add login --title …\"." : "No items match.")
            return
        }
        let rows = [["ID", "TITLE", "CATEGORY", "DETAILS"]] + items.map { item in
            [String(item.id.prefix(8)), (item.isFavorite ? "★ " : "") + item.title, item.category.displayName, item.summary]
        }
        Console.out(Format.table(rows))
    }

    /// `passbox show ITEM`
    static func show(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: "passbox show ITEM [--reveal] [--field NAME] [--json]")
        let opened = try context.unlock()
        let item = try opened.vault.resolve(args.positionals[0])
        if let name = args.value("field"), ["code", "totp"].contains(name.lowercased()) {
            Console.out(try currentCode(item, in: opened).code)
            return
        }
        if let name = args.value("field") {
            // Printing one value on request is the point of --field (scripts); it is the caller's choice to reveal.
            let value: String? =
                switch name.lowercased() {
                case "title": item.title
                case "notes": item.notes
                case "website", "url": item.websites.first
                default: item.field(named: name)?.value
                }
            guard let value, !value.isEmpty else {
                throw CLIError.failure("\"\(item.title)\" has no field \"\(name)\"", hint: "run \"passbox show \(item.id.prefix(8))\" to see its fields")
            }
            Console.out(value)
            return
        }
        if args.flag("large") {
            // Showing the password in large type is the point of --large.
            guard let password = item.password else { throw CLIError.failure("\"\(item.title)\" has no password") }
            Console.out(largeType(password, colors: Console.colors))
            return
        }
        let reveal = args.flag("reveal")
        if args.flag("json") {
            Console.out(Format.json(Format.detail(item, reveal: reveal)))
            return
        }
        var rows: [[String]] = [["Title:", item.title], ["Category:", item.category.displayName], ["ID:", item.id]]
        for field in item.fields where !field.value.isEmpty {
            if field.kind == .otp, let p = try? OTPInput.parse(field.value), let now = try? p.currentCode(at: Date()) {
                // The code is what the user needs; the secret behind it is shown only with --reveal.
                // An HOTP code is only shown when it is used, since showing it must advance the counter.
                rows.append(["\(field.label):", now.secondsLeft.map { "\(now.code) (\($0) s left)" } ?? "HOTP counter \(p.counter) (passbox totp \(item.id.prefix(8)) gives the next code)"])
                if reveal { rows.append(["", field.value]) }
                continue
            }
            let shown = field.kind.isConcealed && !reveal ? Format.mask : field.value
            rows.append(["\(field.label):", shown.replacingOccurrences(of: "\n", with: "\n    ")])
        }
        for site in item.websites { rows.append(["Website:", site]) }
        if !item.tags.isEmpty { rows.append(["Tags:", item.tags.joined(separator: ", ")]) }
        if item.isFavorite { rows.append(["Favorite:", "yes"]) }
        if item.created != nil { rows.append(["Created:", Format.date(item.created)]) }
        if item.lastChanged != nil { rows.append(["Last changed:", Format.date(item.lastChanged)]) }
        if item.lastUsed != nil { rows.append(["Last used:", Format.date(item.lastUsed)]) }
        if item.lastFilled != nil { rows.append(["Last filled:", Format.date(item.lastFilled)]) }
        if !item.history.isEmpty { rows.append(["History:", "\(item.history.count) earlier version\(item.history.count == 1 ? "" : "s") (passbox history \(item.id.prefix(8)))"]) }
        Console.out(Format.table(rows))
        if !item.notes.isEmpty {
            Console.out("Notes:")
            Console.out(item.notes.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n"))
        }
        if !reveal && item.fields.contains(where: { $0.kind.isConcealed && $0.kind != .otp && !$0.value.isEmpty }) {
            Console.err("(concealed values are masked; add --reveal to show them)")
        }
    }

    /// `passbox rm ITEM`: moves the item to the trash.
    static func remove(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: "passbox rm ITEM")
        let opened = try context.unlock()
        var vault = opened.vault
        let item = try vault.resolve(args.positionals[0])
        try vault.trash(id: item.id, now: Date())
        try opened.save(vault)
        Console.out("Moved \"\(item.title)\" to the trash. Undo with: passbox trash restore \(item.id.prefix(8))")
    }

    /// `passbox trash [list | restore ITEM | delete ITEM | empty]`
    static func trash(_ context: Context, _ args: Arguments) throws {
        let usage = "passbox trash [list | restore ITEM | delete ITEM | empty]"
        let action = args.positionals.first ?? "list"
        switch action {
        case "list":
            try args.expectPositionals(0...1, usage: usage)
            let items = try context.unlock().vault.trashedItems
            if args.flag("json") {
                Console.out(Format.json(items.map { var e = Format.listEntry($0); e["trashedAt"] = Format.iso($0.trashedAt); return e }))
            } else if items.isEmpty {
                Console.out("The trash is empty.")
            } else {
                Console.out(Format.table([["ID", "TITLE", "CATEGORY", "TRASHED"]] + items.map { [String($0.id.prefix(8)), $0.title, $0.category.displayName, Format.date($0.trashedAt)] }))
                Console.out("Items are deleted for good 30 days after they were trashed.")
            }
        case "restore", "delete":
            try args.expectPositionals(2...2, usage: usage)
            let opened = try context.unlock()
            var vault = opened.vault
            let item = try vault.resolve(args.positionals[1], inTrash: true)
            if action == "restore" {
                try vault.restoreFromTrash(id: item.id)
            } else {
                try vault.deleteForever(id: item.id)
            }
            try opened.save(vault)
            Console.out(action == "restore" ? "Restored \"\(item.title)\"." : "Deleted \"\(item.title)\" for good.")
        case "empty":
            try args.expectPositionals(1...1, usage: usage)
            let opened = try context.unlock()
            var vault = opened.vault
            let count = vault.emptyTrash()
            if count > 0 { try opened.save(vault) }
            Console.out("Deleted \(count) item\(count == 1 ? "" : "s") for good.")
        default:
            throw CLIError.usage("unknown trash action \"\(action)\"", hint: "usage: \(usage)")
        }
    }

    /// `passbox history ITEM [restore VERSION]`
    static func history(_ context: Context, _ args: Arguments) throws {
        let usage = "passbox history ITEM [restore VERSION] [--reveal] [--json]"
        try args.expectPositionals(1...3, usage: usage)
        let opened = try context.unlock()
        var vault = opened.vault
        let item = try vault.resolve(args.positionals[0])
        if args.positionals.count > 1 {
            guard args.positionals[1] == "restore", args.positionals.count == 3 else { throw CLIError.usage("usage: \(usage)") }
            let restored = try vault.restoreVersion(itemID: item.id, versionID: args.positionals[2], now: Date())
            try opened.save(vault)
            Console.out("Restored version \(args.positionals[2]) of \"\(restored.title)\"; the replaced version is in its history.")
            return
        }
        let reveal = args.flag("reveal")
        let versions = item.history.reversed()
        if args.flag("json") {
            Console.out(Format.json([
                "versions": versions.map { ["id": $0.id, "replacedAt": Format.iso($0.replacedAt), "item": Format.detail($0.item, reveal: reveal)] },
                "previousPasswords": item.previousPasswords.map { ["value": reveal ? $0.value : Format.mask, "replacedAt": Format.iso($0.replacedAt)] },
            ]))
            return
        }
        guard !versions.isEmpty else {
            Console.out("\"\(item.title)\" has no earlier versions.")
            return
        }
        Console.out("Earlier versions of \"\(item.title)\", newest first:")
        var newer = item
        var rows = [["VERSION", "REPLACED", "CHANGES"]]
        for version in versions {
            rows.append([version.id, Format.date(version.replacedAt), changes(from: version.item, to: newer, reveal: reveal)])
            newer = version.item
        }
        Console.out(Format.table(rows))
        let previous = item.previousPasswords
        if !previous.isEmpty {
            Console.out("\nPrevious passwords:")
            Console.out(Format.table(previous.map { [reveal ? $0.value : Format.mask, "until " + Format.date($0.replacedAt)] }))
        }
        Console.out("\nRestore one with: passbox history \(item.id.prefix(8)) restore VERSION")
    }

    /// A short description of what changed between two versions; concealed values are never shown unless `reveal`.
    static func changes(from old: Item, to new: Item, reveal: Bool) -> String {
        var parts = [String]()
        if old.title != new.title { parts.append("title \"\(old.title)\" → \"\(new.title)\"") }
        let labels = Set(old.fields.map(\.label) + new.fields.map(\.label))
        for label in labels.sorted() {
            let a = old.fields.first { $0.label == label }
            let b = new.fields.first { $0.label == label }
            guard a?.value != b?.value else { continue }
            let concealed = (a?.kind.isConcealed ?? false) || (b?.kind.isConcealed ?? false)
            if concealed && !reveal {
                parts.append("\(label.lowercased()) changed")
            } else {
                parts.append("\(label.lowercased()) \"\(a?.value ?? "")\" → \"\(b?.value ?? "")\"")
            }
        }
        if old.websites != new.websites { parts.append("websites changed") }
        if old.notes != new.notes { parts.append("notes changed") }
        if old.tags != new.tags { parts.append("tags changed") }
        if old.isFavorite != new.isFavorite { parts.append(new.isFavorite ? "made favorite" : "no longer favorite") }
        return parts.isEmpty ? "no visible change" : parts.joined(separator: "; ")
    }
}
