import Foundation
import PassboxCore
import PassboxProtocol

/// Files kept with items (docs/CLI.md "Attachments").
extension Commands {
    static let attachUsage = "passbox attach ITEM FILE [--name NAME] [--type MEDIA/TYPE] [--json]"
    static let attachmentsUsage = "passbox attachments ITEM [--json]"
    static let saveAttachmentUsage = "passbox save-attachment ITEM ATTACHMENT --out FILE"
    static let detachUsage = "passbox detach ITEM ATTACHMENT [--yes]"

    /// `passbox attach ITEM FILE`: the file encrypted under a key of its own and kept with the item.
    static func attach(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(2...2, usage: attachUsage)
        let path = absolute(args.positionals[1])
        try context.endpoint.prepare(.attach)
        let reply = try context.send(
            .attach(AttachRequest(item: args.positionals[0], path: path, name: args.value("name"), mediaType: args.value("type")))
        ).attachments()
        if args.flag("json") { return try Output.json(reply) }
        if let added = reply.changed {
            Console.out("Attached \(Console.visibleLine(added.name)) (\(size(added.size)), \(added.mediaType)) to \"\(Console.visibleLine(reply.title))\", encrypted.")
            Console.err("The original at \(path) is still there, not encrypted: remove it if it should not stay.")
        }
    }

    /// `passbox attachments ITEM`: its files, their sizes and ids.
    static func attachments(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: attachmentsUsage)
        try context.endpoint.prepare(.attachments)
        let reply = try context.send(.attachments(AttachmentsRequest(item: args.positionals[0]))).attachments()
        if args.flag("json") { return try Output.json(reply) }
        guard !reply.attachments.isEmpty else { return Console.out("\"\(Console.visibleLine(reply.title))\" has no attachments.") }
        var rows = [["NAME", "SIZE", "TYPE", "ADDED", "ID"]]
        for a in reply.attachments {
            rows.append([Console.visibleLine(a.name), size(a.size), a.mediaType, Output.date(a.added), a.id + (a.available ? "" : " (not on this device)")])
        }
        Console.out(Output.table(rows))
    }

    /// `passbox save-attachment ITEM ATTACHMENT --out FILE`: decrypted into a new file readable by you only.
    static func saveAttachment(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(2...2, usage: saveAttachmentUsage)
        guard let out = args.value("out") else { throw CLIError.usage("save-attachment needs --out FILE", hint: saveAttachmentUsage) }
        let path = absolute(out)
        guard !FileManager.default.fileExists(atPath: path) else { throw ProtocolError(.fileExists, ["path": path]) }
        try context.endpoint.prepare(.saveAttachment)
        let done = try context.send(.saveAttachment(SaveAttachmentRequest(item: args.positionals[0], attachment: args.positionals[1], path: path))).attachmentSaved()
        Console.out("Saved \(Console.visibleLine(done.name)) (\(size(done.size))) to \(path), readable by you only.")
        Console.err("That copy is outside the vault and not encrypted: remove it when you are done with it.")
    }

    /// `passbox detach ITEM ATTACHMENT`: removed from the item after a yes (earlier versions in its history
    /// keep it until they go).
    static func detach(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(2...2, usage: detachUsage)
        try context.endpoint.prepare(.detach)
        if !args.flag("yes") {
            Console.err("Remove the attachment \"\(Console.visibleLine(args.positionals[1]))\" from \"\(Console.visibleLine(args.positionals[0]))\"? Type yes to go on:")
            guard context.input.readLine()?.trimmingCharacters(in: .whitespaces).lowercased() == "yes" else {
                throw CLIError.failure("nothing was changed: the answer was not yes", hint: "run it again and type yes, or add --yes")
            }
        }
        let reply = try context.send(.detach(AttachmentsRequest(item: args.positionals[0], attachment: args.positionals[1]))).attachments()
        if let gone = reply.changed {
            Console.out("Removed \(Console.visibleLine(gone.name)) from \"\(Console.visibleLine(reply.title))\"; earlier versions in its history keep it until they go.")
        }
    }

    /// A size as people read it: bytes, KiB, MiB or GiB.
    static func size(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        if bytes < 1 << 20 { return String(format: "%.1f KiB", Double(bytes) / 1024) }
        if bytes < 1 << 30 { return String(format: "%.1f MiB", Double(bytes) / 1048576) }
        return String(format: "%.2f GiB", Double(bytes) / 1073741824)
    }
}
