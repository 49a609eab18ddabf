import Foundation
import PassboxCore
import PassboxProtocol

/// `passbox item protect|unprotect ITEM`: a password of the item's own (docs/SECURITY.md, "Items with their
/// own password"). It is never stored; forgetting it loses the item's content.
extension Commands {
    static let itemUsage = "passbox item protect ITEM | unprotect ITEM"

    /// Reads a new item password: twice on a terminal, at least 8 characters, never the vault password's place.
    static func newItemPassword(_ context: Context) throws -> String {
        let password = try context.input.secret(prompt: "Item password (it locks this item; it is never stored): ")
        guard password.count >= ItemSeal.minimumPasswordLength else {
            throw ProtocolError(.itemPasswordTooShort, ["minimum": String(ItemSeal.minimumPasswordLength)])
        }
        if context.input.isTerminal {
            guard try context.input.secret(prompt: "Repeat it: ") == password else {
                throw CLIError.failure("the two passwords differ", hint: "run the command again")
            }
        }
        return password
    }

    static func itemProtect(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: "passbox item protect ITEM")
        try context.endpoint.prepare(.itemProtect)
        let password = try newItemPassword(context)
        Console.err("Locking it (Argon2id, 256 MiB; a second or two)…")
        let saved = try context.send(.itemProtect(ProtectItemRequest(item: args.positionals[0], password: SecretText(password)))).saved()
        Console.out(Console.visible("Locked \"\(Console.visibleLine(saved.title))\" with its own password. Its earlier versions were deleted; without this password its content is lost."))
    }

    static func itemUnprotect(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: "passbox item unprotect ITEM")
        try context.endpoint.prepare(.itemUnprotect)
        let password = try context.input.secretText(prompt: "Item password: ")
        let saved = try context.send(.itemUnprotect(ProtectItemRequest(item: args.positionals[0], password: password))).saved()
        Console.out(Console.visible("\"\(Console.visibleLine(saved.title))\" no longer has a password of its own."))
    }
}
