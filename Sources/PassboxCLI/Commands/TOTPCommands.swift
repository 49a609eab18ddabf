import Foundation
import PassboxCore
import PassboxImaging
import PassboxStore

extension Commands {
    static let totpUsage = """
        passbox totp ITEM [--watch] [--json]
        passbox totp add ITEM (--qr IMAGE | --uri-stdin)
        passbox totp import (--qr IMAGE | --uri-stdin) [--all | --select 1,3] [--to-logins]
        """

    /// `passbox totp …`: one-time codes.
    static func totp(_ context: Context, _ words: [String]) throws {
        switch words.first {
        case "add": try totpAdd(context, Arguments(Array(words.dropFirst()), valued: ["qr"], flags: ["uri-stdin"]))
        case "import": try totpImport(context, Arguments(Array(words.dropFirst()), valued: ["qr", "select"], flags: ["uri-stdin", "all", "to-logins"]))
        default: try totpShow(context, Arguments(words, valued: [], flags: ["watch", "json"]))
        }
    }

    /// The one-time-password settings of an item: its first non-empty `otp` field.
    static func otpParameters(of item: Item) throws -> (index: Int, parameters: OTPParameters) {
        guard let index = item.fields.firstIndex(where: { $0.kind == .otp && !$0.value.isEmpty }) else {
            throw CLIError.failure("\"\(item.title)\" has no one-time password", hint: "add one with \"passbox totp add \(item.id.prefix(8)) --qr IMAGE\" or --uri-stdin")
        }
        return (index, try OTPInput.parse(item.fields[index].value, issuer: item.title))
    }

    /// The current code (TOTP) or the next code (HOTP, which advances and saves the counter).
    static func currentCode(_ item: Item, in opened: OpenVault) throws -> (code: String, secondsLeft: Int?, period: UInt64) {
        let (index, p) = try otpParameters(of: item)
        let result = try p.currentCode(at: Date())
        if p.kind == .hotp {
            var vault = opened.vault
            var next = p
            next.counter += 1
            try vault.update(id: item.id, now: Date()) { $0.fields[index].value = next.uri }
            try opened.save(vault)
        }
        return (result.code, result.secondsLeft, p.period)
    }

    static func totpShow(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: totpUsage)
        let opened = try context.unlock()
        let item = try opened.vault.resolve(args.positionals[0])
        var (code, left, period) = try currentCode(item, in: opened)
        if args.flag("json") {
            Console.out(Format.json(["code": code, "secondsLeft": left.map { $0 as Any } ?? NSNull(), "period": left == nil ? NSNull() : period as Any]))
            return
        }
        guard args.flag("watch"), left != nil else {
            Console.out(left.map { Localization.tr("otp.code", context.language, ["code": code, "seconds": String($0)]) } ?? code)
            return
        }
        // Refresh every second until interrupted; the countdown turns red in the last five seconds.
        let (_, parameters) = try otpParameters(of: item)
        while true {
            let now = Date()
            let current = try parameters.currentCode(at: now)
            code = current.code
            let seconds = current.secondsLeft ?? 0
            let text = Localization.tr("otp.code", context.language, ["code": code, "seconds": String(format: "%2d", seconds)])
            let colored = Console.colors ? (seconds <= 5 ? "\u{1b}[31m\(text)\u{1b}[0m" : text) : text
            FileHandle.standardOutput.write(Data((Console.colors ? "\r\(colored)\u{1b}[K" : "\(colored)\n").utf8))
            usleep(useconds_t(max(0.05, 1 - now.timeIntervalSince1970.truncatingRemainder(dividingBy: 1)) * 1_000_000))
        }
    }

    /// Reads the setup from a QR image or a line of standard input (never argv: it holds the secret).
    static func readSetups(_ context: Context, _ args: Arguments) throws -> [String] {
        if let path = args.value("qr") {
            do {
                return try QRCodeReader.decode(file: path)
            } catch let e as QRCodeReader.ReadError {
                throw CLIError.failure(e.message, hint: e.hint)
            }
        }
        guard args.flag("uri-stdin") else { throw CLIError.usage("give --qr IMAGE or --uri-stdin", hint: "usage:\n\(totpUsage)") }
        return [try context.input.secret(prompt: "Setup key or otpauth link: ")]
    }

    /// `passbox totp add ITEM`: sets an item's one-time password from a QR image or a key/link.
    static func totpAdd(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: totpUsage)
        let opened = try context.unlock()
        let item = try opened.vault.resolve(args.positionals[0])
        let setups = try readSetups(context, args)
        guard let setup = setups.first(where: { $0.lowercased().hasPrefix("otpauth") }) ?? setups.first else {
            throw CLIError.failure("nothing to add")
        }
        let parameters = try OTPInput.parse(setup, issuer: item.title)
        var vault = opened.vault
        try vault.update(id: item.id, now: Date()) { edited in
            if let i = edited.fields.firstIndex(where: { $0.kind == .otp }) {
                edited.fields[i].value = parameters.uri
            } else {
                edited.fields.append(Field(key: "otp", label: "One-time password", kind: .otp, value: parameters.uri))
            }
        }
        try opened.save(vault)
        let now = try parameters.currentCode(at: Date())
        Console.out("Added a one-time password to \"\(item.title)\"; the current code is \(now.code).")
    }

    /// `passbox totp import`: the accounts of a Google Authenticator export, listed, then imported.
    static func totpImport(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: totpUsage)
        let opened = try context.unlock()
        let setups = try readSetups(context, args)
        var accounts = [OTPParameters]()
        for setup in setups {
            if setup.lowercased().hasPrefix("otpauth-migration:") {
                accounts += try MigrationPayload.decode(link: setup).accounts
            } else {
                accounts.append(try OTPInput.parse(setup))
            }
        }
        let listing = accounts.enumerated().map { i, a in
            ["\(i + 1)", a.issuer.isEmpty ? "—" : a.issuer, a.account, a.kind == .totp ? "TOTP \(a.period)s" : "HOTP", "\(a.digits) digits", a.algorithm.rawValue]
        }
        var chosen: [Int]
        if args.flag("all") {
            chosen = Array(accounts.indices)
        } else if let selection = args.value("select") {
            chosen = try selection.split(separator: ",").map { part in
                guard let n = Int(part.trimmingCharacters(in: .whitespaces)), (1...accounts.count).contains(n) else {
                    throw CLIError.usage("--select takes numbers from 1 to \(accounts.count), like 1,3")
                }
                return n - 1
            }
        } else {
            Console.out(Format.table([["#", "ISSUER", "ACCOUNT", "TYPE", "DIGITS", "ALGORITHM"]] + listing))
            Console.out("Import them with --all, or some with --select 1,3 (add --to-logins to put codes on matching logins).")
            return
        }
        var vault = opened.vault
        let now = Date()
        for index in chosen {
            let account = accounts[index]
            let issuer = TextFolding.fold(account.issuer)
            let login = args.flag("to-logins") && !issuer.isEmpty
                ? vault.activeItems.first { item in
                    item.category == .login && item.fields.allSatisfy { $0.kind != .otp || $0.value.isEmpty }
                        && (TextFolding.fold(item.title) == issuer || item.websites.contains { Validation.host(of: $0).map { TextFolding.fold($0).contains(issuer) } ?? false })
                } : nil
            if let login {
                try vault.update(id: login.id, now: now) { item in
                    if let i = item.fields.firstIndex(where: { $0.kind == .otp }) { item.fields[i].value = account.uri } else {
                        item.fields.append(Field(key: "otp", label: "One-time password", kind: .otp, value: account.uri))
                    }
                }
                Console.out("Added the code for \(account.issuer) \(account.account) to the login \"\(login.title)\".")
            } else {
                var item = Item(category: .oneTimePassword, title: account.issuer.isEmpty ? account.account : account.issuer)
                item.setValue(account.uri, for: "otp")
                if !account.account.isEmpty { item.fields.append(Field(label: "Account", kind: .text, value: account.account)) }
                let saved = try vault.add(item, now: now)
                Console.out("Added \"\(saved.title)\" (One-Time Password) \(saved.id)")
            }
        }
        try opened.save(vault)
    }
}
