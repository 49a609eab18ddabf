import Foundation
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxKit
import PassboxProtocol
import PassboxService
import PassboxStore
import PassboxWording

/// `passbox kit`: the Emergency Kit.
extension Commands {
    static let kitUsage = "passbox kit --pdf FILE | --confirm"

    static func kit(_ c: Context, _ a: Arguments) throws {
        try a.expectPositionals(0...0, usage: kitUsage)
        _ = try AccountOperations.signedIn(c.dataDirectory)
        if a.flag("confirm") {
            let typed = try c.input.secretText(prompt: c.tr("kit.prompt.lastFour"))
            try AccountOperations.confirmKit(KitRequest(lastFour: typed), dataDirectory: c.dataDirectory)
            Console.out(c.tr("kit.confirmed"))
            return
        }
        guard let path = a.value("pdf") else { throw CLIError.usage("usage: \(kitUsage)") }
        // The master password first: the kit is for the person who knows it (a wrong one exits 3).
        let password = try c.input.secretText(prompt: c.tr("account.prompt.master"))
        let page = try AccountOperations.kitPage(password: password, language: c.language, dataDirectory: c.dataDirectory)
        // The file holds the Secret Key: it is the user's alone (0600).
        let previous = umask(0o077)
        defer { umask(previous) }
        do {
            try EmergencyKit.write(page, to: path)
        } catch {
            throw CLIError.failure(c.tr("kit.cannotWrite", ["path": Console.visibleLine(path), "reason": String(describing: error)]), hint: c.tr("kit.cannotWrite.hint"))
        }
        chmod(path, 0o600)
        Console.out(c.tr("kit.written", ["path": Console.visibleLine(path)]))
    }

    /// Until the kit is confirmed, every command says so (on standard error).
    static func remindOfTheKit(_ c: Context, command: String?) {
        // Every command passes here: without an account record (the common case) `brief`'s one access(2) call
        // decides, before Foundation's file APIs (whose first use costs a command milliseconds) are touched.
        guard command != "kit", command != "signout", AccountOperations.brief(c.dataDirectory)?.kitReminder == true else { return }
        Console.err("passbox: " + c.tr("kit.reminder"))
    }
}
