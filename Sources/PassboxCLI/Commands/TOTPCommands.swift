import Foundation
import PassboxCore
import PassboxImaging
import PassboxProtocol
import PassboxService
import PassboxWording

extension Commands {
    static let totpUsage = """
        passbox totp ITEM [--watch] [--json]
        passbox totp add ITEM (--qr IMAGE | --uri-stdin)
        passbox totp import (--qr IMAGE | --uri-stdin) [--all | --select 1,3] [--to-logins]
        """

    /// `passbox totp ITEM`: the current code (TOTP) or the next one (HOTP, whose counter is saved).
    static func totpShow(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: totpUsage)
        let reference = args.positionals[0]
        let code = try context.send(.code(ItemRequest(item: reference))).code()
        if args.flag("json") {
            try Output.json(code)
            return
        }
        guard args.flag("watch"), code.kind == "totp" else {
            Console.out(code.secondsLeft.map { context.tr("otp.code", ["code": code.code ?? "", "seconds": String($0)]) } ?? code.code ?? "")
            return
        }
        // Refresh every second until interrupted, asking for each code (the agent may lock meanwhile); the
        // countdown turns red in the last five seconds.
        let colors = Console.colors
        while true {
            let now = Date()
            let current = try context.send(.code(ItemRequest(item: code.itemID))).code()
            let seconds = current.secondsLeft ?? 0
            let text = context.tr("otp.code", ["code": current.code ?? "", "seconds": String(format: "%2d", seconds)])
            let colored = colors ? (seconds <= 5 ? "\u{1b}[31m\(text)\u{1b}[0m" : text) : text
            Console.write(colors ? "\r\(colored)\u{1b}[K" : "\(colored)\n", error: false)
            usleep(useconds_t(max(0.05, 1 - now.timeIntervalSince1970.truncatingRemainder(dividingBy: 1)) * 1_000_000))
        }
    }

    /// Reads setups from a QR image (decoded here, in the client, never in the agent) or a line of standard
    /// input (never argv: it holds the secret).
    static func readSetups(_ context: Context, _ args: Arguments) throws -> [String] {
        if let path = args.value("qr") {
            do {
                return try ParseChild.qrCodes(file: path)
            } catch let e as QRCodeReader.ReadError {
                let (message, hint) = Wording.qr(e, context.language)
                throw CLIError.failure(message, hint: hint)
            }
        }
        guard args.flag("uri-stdin") else { throw CLIError.usage("give --qr IMAGE or --uri-stdin", hint: "usage:\n\(totpUsage)") }
        return [try context.input.secret(prompt: "Setup key or otpauth link: ")]
    }

    /// `passbox totp add ITEM`: sets an item's one-time password from a QR image or a key/link.
    static func totpAdd(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: totpUsage)
        try context.endpoint.prepare(.setOneTimePassword)
        let setups = try readSetups(context, args)
        let code = try context.send(.setOneTimePassword(SetOneTimePasswordRequest(item: args.positionals[0], setups: setups))).code()
        if code.kind == "hotp" {
            Console.out(Console.visible("Added a one-time password (HOTP, counter \(code.counter ?? 0)) to \"\(Console.visibleLine(code.title))\"."))
        } else {
            Console.out(Console.visible("Added a one-time password to \"\(Console.visibleLine(code.title))\"; the current code is \(code.code ?? "")."))
        }
    }

    /// `passbox totp import`: the accounts of a Google Authenticator export, listed, then imported.
    static func totpImport(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: totpUsage)
        try context.endpoint.prepare(.importOneTimePasswords)
        let setups = try readSetups(context, args)
        var select: [Int]?
        if let selection = args.value("select") {
            // An empty selection is sent as one: the service says there is nothing to import.
            select = selection.trimmingCharacters(in: .whitespaces).isEmpty ? [] : try selection.split(separator: ",", omittingEmptySubsequences: false).map { part in
                guard let n = Int(part.trimmingCharacters(in: .whitespaces)) else { throw CLIError.usage("--select takes numbers like 1,3") }
                return n
            }
        }
        let reply = try context.send(.importOneTimePasswords(ImportRequest(setups: setups, select: select, all: args.flag("all"), toLogins: args.flag("to-logins")))).imported()
        if !args.flag("all") && select == nil {
            let listing = reply.accounts.enumerated().map { i, a in
                ["\(i + 1)", a.issuer.isEmpty ? "—" : a.issuer, a.account, a.kind == "totp" ? "TOTP \(a.period)s" : "HOTP", "\(a.digits) digits", a.algorithm]
            }
            Console.out(Output.table([["#", "ISSUER", "ACCOUNT", "TYPE", "DIGITS", "ALGORITHM"]] + listing))
            Console.out("Import them with --all, or some with --select 1,3 (add --to-logins to put codes on matching logins).")
            return
        }
        for imported in reply.imported {
            if imported.toLogin {
                Console.out(Console.visible("Added the code for \(Console.visibleLine(imported.issuer)) \(Console.visibleLine(imported.account)) to the login \"\(Console.visibleLine(imported.title))\"."))
            } else {
                Console.out(Console.visible("Added \"\(Console.visibleLine(imported.title))\" (One-Time Password) \(imported.itemID)"))
            }
        }
        if reply.skippedDuplicates > 0 {
            Console.out("Skipped \(reply.skippedDuplicates) account\(reply.skippedDuplicates == 1 ? "" : "s") already in the vault (or chosen twice).")
        }
    }
}
