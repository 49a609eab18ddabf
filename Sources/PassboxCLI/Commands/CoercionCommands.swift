import Foundation
import PassboxProtocol

/// Duress passwords, erasing after ten wrong passwords, and Delete All Data (docs/SECURITY.md, "Coercion").
/// What these print never depends on which vault is open or whether a duress vault exists.
extension Commands {
    static let duressUsage = "passbox duress set | change"

    /// `passbox duress set`: a new duress password for the open vault; it opens a separate, empty vault.
    static func duressSet(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: "passbox duress set")
        Console.err(
            "A duress password opens a vault of its own, empty at first, instead of this one. Setting one replaces any duress vault set from this vault before. Choose a password you have never used in Passbox."
        )
        let current = try context.input.secretText(prompt: "Current vault password: ")
        let duress = try newPassword(context, prompt: "New duress password: ")
        try context.send(.duressSet(DuressRequest(current: current, duress: SecretText(duress))))
        Console.out("Set the duress password.")
    }

    /// `passbox duress change`: a new password for the duress vault set from the open vault; what it holds stays.
    static func duressChange(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: "passbox duress change")
        let current = try context.input.secretText(prompt: "Current vault password: ")
        let duress = try context.input.secretText(prompt: "Current duress password: ")
        let new = try newPassword(context, prompt: "New duress password: ")
        try context.send(.duressChange(DuressRequest(current: current, duress: duress, new: SecretText(new))))
        Console.out("Changed the duress password.")
    }

    /// `passbox settings erase-after-failures on|off`, after the current password.
    static func eraseSetting(_ context: Context, on: Bool) throws {
        if on {
            Console.err(
                "With this on, the tenth wrong password in a row erases every vault in the vault file, without a word. Backups you saved are not erased."
            )
        }
        let current = try context.input.secretText(prompt: "Current vault password: ")
        try context.send(.eraseSetting(EraseSettingRequest(current: current, on: on)))
        Console.out(on ? "Ten wrong passwords in a row now erase every vault in the vault file." : "Wrong passwords no longer erase anything.")
    }

    /// `passbox delete-all-data`: asks for the password, then for DELETE; erases every vault of the file.
    static func deleteAllData(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: "passbox delete-all-data")
        guard context.store.exists else { throw ProtocolError(.noVault, ["path": context.store.vaultPath]) }
        Console.err(
            "This erases every vault in \(context.store.vaultPath) for good: every item, its history and trash, and every other vault the file holds. Backups you saved elsewhere are not touched."
        )
        let current = try context.input.secretText(prompt: "Vault password: ")
        if context.input.isTerminal { Console.err("Type DELETE to erase everything:") }
        guard context.input.readLine()?.trimmingCharacters(in: .whitespaces) == "DELETE" else {
            throw CLIError.failure("nothing was deleted: the confirmation was not DELETE", hint: "run passbox delete-all-data again and type DELETE")
        }
        try context.send(.deleteAllData(DeleteAllDataRequest(current: current)))
        Console.out("Deleted all data. passbox init makes a new vault.")
    }
}
