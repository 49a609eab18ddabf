import Foundation
import PassboxClient
import PassboxCore
import PassboxDomains
import PassboxStore


extension Commands {
    static let checkUsage = """
        passbox check [--json] [--kind KIND] [--breaches]
        passbox check dismiss ITEM KIND | undismiss ITEM KIND
        passbox check fix-https (ITEM | --all)
        passbox check breaches on [--yes] | off
        passbox check settings range-url URL
        passbox check update-data [--breaches-file F | --breaches-url URL] [--2fa-file F | --2fa-url URL]
        """

    static func check(_ context: Context, _ words: [String]) throws {
        switch words.first {
        case "dismiss", "undismiss": try checkDismiss(context, Arguments(Array(words.dropFirst()), valued: [], flags: []), dismiss: words.first == "dismiss")
        case "fix-https": try checkFixHTTPS(context, Arguments(Array(words.dropFirst()), valued: [], flags: ["all"]))
        case "breaches": try checkBreachesSetting(context, Arguments(Array(words.dropFirst()), valued: [], flags: ["yes"]))
        case "settings": try checkSettings(context, Arguments(Array(words.dropFirst()), valued: [], flags: []))
        case "update-data": try checkUpdateData(context, Arguments(Array(words.dropFirst()), valued: ["breaches-file", "breaches-url", "2fa-file", "2fa-url"], flags: []))
        default: try checkReport(context, Arguments(words, valued: ["kind"], flags: ["json", "breaches"]))
        }
    }

    static func checkReport(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: checkUsage)
        let kind = try args.value("kind").map { name in
            guard let k = FindingKind(rawValue: name) else {
                throw CLIError.usage("unknown kind \"\(name)\"", hint: "kinds: " + FindingKind.allCases.map(\.rawValue).joined(separator: ", "))
            }
            return k
        }
        let settings = Settings.load(context.dataDirectory)
        let (breaches, twoFactor) = try CheckData.catalogs(directory: context.dataDirectory)
        let opened = try context.unlock()
        var vault = opened.vault
        if args.flag("breaches") {
            guard settings.breachCheck else {
                throw CLIError.failure("the breached-password check is off", hint: "read what it sends with \"passbox check breaches on\", then turn it on with --yes")
            }
            try runBreachCheck(&vault, settings: settings)
            try opened.save(vault)
        }
        let report = SecurityCheck.run(
            SecurityCheckInput(vault: vault, now: Date(), breaches: breaches, twoFactor: twoFactor, domains: DomainRules.shared, breachCheckEnabled: settings.breachCheck))
        let titles = Dictionary(uniqueKeysWithValues: vault.items.map { ($0.id, $0.title) })
        let language = context.language
        let findings = report.findings.filter { kind == nil || $0.kind == kind }
        func advice(_ f: Finding) -> String {
            var arguments = f.details
            arguments["item"] = String(f.itemID.prefix(8))
            if let reason = f.details["reason"] { arguments["reason"] = Localization.tr("check.reason.\(reason)", language) }
            return Localization.tr("check.kind.\(f.kind.rawValue).advice", language, arguments)
        }
        if args.flag("json") {
            Console.out(Format.json([
                "score": report.score, "rating": report.rating.rawValue, "logins": report.loginCount, "secureLogins": report.secureLoginCount,
                "tiles": ["atRisk": report.tiles.atRisk, "reused": report.tiles.reused, "weak": report.tiles.weak, "secure": report.tiles.secure],
                "deductions": Dictionary(uniqueKeysWithValues: report.deductions.map { ($0.key.rawValue, $0.value) }),
                "fixFirst": report.fixFirst.map { ["item": $0.itemID, "title": titles[$0.itemID] ?? "", "kinds": $0.kinds.map(\.rawValue), "points": $0.points] },
                "findings": findings.map { f -> [String: Any] in
                    ["kind": f.kind.rawValue, "item": f.itemID, "title": titles[f.itemID] ?? "", "details": f.details, "dismissed": f.isDismissed,
                     "group": f.group.map { $0 as Any } ?? NSNull(), "advice": advice(f)]
                },
                "breachCheck": ["enabled": settings.breachCheck, "lastCheck": Format.iso(vault.lastBreachCheck)],
                "source": "Have I Been Pwned (haveibeenpwned.com), CC BY 4.0; 2FA Directory (2fa.directory), MIT",
            ]))
            return
        }
        if kind == nil {
            Console.out(Localization.tr("check.score", language, ["score": String(report.score), "rating": Localization.tr("check.rating.\(report.rating.rawValue)", language)]))
            Console.out(Localization.tr("check.secure", language, ["secure": String(report.secureLoginCount), "logins": String(report.loginCount)]))
            Console.out(Localization.tr("check.tiles", language, ["atRisk": String(report.tiles.atRisk), "reused": String(report.tiles.reused), "weak": String(report.tiles.weak), "secure": String(report.tiles.secure)]))
            let costs = report.deductions.sorted { $0.value == $1.value ? $0.key < $1.key : $0.value > $1.value }
            if !costs.isEmpty {
                Console.out(costs.map { String(format: "−%.1f %@", $0.value, Localization.tr("check.kind.\($0.key.rawValue).title", language).lowercased()) }.joined(separator: " · "))
            }
            if settings.breachCheck {
                Console.out(vault.lastBreachCheck.map { Localization.tr("check.breaches.last", language, ["date": Format.date($0)]) } ?? Localization.tr("check.breaches.never", language))
            } else {
                Console.out(Localization.tr("check.breaches.off", language))
            }
            if !report.fixFirst.isEmpty {
                Console.out("\n" + Localization.tr("check.fixFirst", language))
                for (i, fix) in report.fixFirst.enumerated() {
                    Console.out(String(format: "  %d. %@ (%@): %@, +%.1f", i + 1, titles[fix.itemID] ?? "", String(fix.itemID.prefix(8)), fix.kinds.map(\.rawValue).joined(separator: ", "), fix.points))
                }
            }
        }
        for k in FindingKind.allCases where kind == nil || k == kind {
            let list = findings.filter { $0.kind == k && (kind != nil || !$0.isDismissed) }
            guard !list.isEmpty else { continue }
            Console.out("\n\(Localization.tr("check.kind.\(k.rawValue).title", language)) (\(list.count))")
            var shownGroups = Set<Int>()
            for f in list.sorted(by: { ($0.group ?? 0, titles[$0.itemID] ?? "") < ($1.group ?? 0, titles[$1.itemID] ?? "") }) {
                if let g = f.group, shownGroups.insert(g).inserted {
                    Console.out("  group \(g):")
                }
                let indent = f.group == nil ? "  " : "    "
                Console.out("\(indent)\(titles[f.itemID] ?? "") (\(f.itemID.prefix(8)))\(f.isDismissed ? " [dismissed]" : "") — \(advice(f))")
            }
        }
        let dismissed = report.findings.filter(\.isDismissed).count
        if kind == nil && dismissed > 0 { Console.out("\n\(dismissed) dismissed finding\(dismissed == 1 ? " is" : "s are") not counted (passbox check --kind KIND shows them).") }
        Console.out("\n" + Localization.tr("check.source", language, ["date": breaches.snapshotDate.map { SecurityCheckFormat.day($0) } ?? "?"]))
    }

    /// Queries the range service for every distinct login password and stores the results in the items.
    static func runBreachCheck(_ vault: inout Vault, settings: Settings) throws {
        let logins = vault.activeItems.filter { $0.category == .login && $0.password != nil }
        let client = PwnedPasswordsClient(rangeURL: settings.rangeURL ?? PwnedPasswordsClient.defaultRangeURL)
        let counts: [String: Int]
        do {
            counts = try client.occurrences(of: Array(Set(logins.compactMap(\.password))))
        } catch let e as PwnedPasswordsClient.CheckError {
            throw CLIError.failure(e.message, hint: e.hint)
        }
        let now = Date()
        for login in logins {
            guard let p = login.password else { continue }
            let index = vault.items.firstIndex { $0.id == login.id }!
            vault.items[index].passwordBreach = PasswordBreachMark(checkedAt: now.storedPrecision, occurrences: counts[p] ?? 0, fingerprint: SecurityCheck.fingerprint(p))
        }
        vault.lastBreachCheck = now.storedPrecision
        let found = Set(logins.filter { (counts[$0.password ?? ""] ?? 0) > 0 }.compactMap(\.password)).count
        Console.err(found == 0 ? "No breached passwords found." : "\(found) password\(found == 1 ? "" : "s") found in data breaches.")
    }

    static func checkDismiss(_ context: Context, _ args: Arguments, dismiss: Bool) throws {
        try args.expectPositionals(2...2, usage: checkUsage)
        guard let kind = FindingKind(rawValue: args.positionals[1]) else {
            throw CLIError.usage("unknown kind \"\(args.positionals[1])\"", hint: "kinds: " + FindingKind.allCases.map(\.rawValue).joined(separator: ", "))
        }
        let opened = try context.unlock()
        var vault = opened.vault
        let item = try vault.resolve(args.positionals[0])
        try vault.setDismissed(kind.rawValue, dismiss, itemID: item.id)
        try opened.save(vault)
        Console.out(dismiss ? "Dismissed \(kind.rawValue) for \"\(item.title)\"; it no longer counts." : "\(kind.rawValue) for \"\(item.title)\" counts again.")
    }

    static func checkFixHTTPS(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(args.flag("all") ? 0...0 : 1...1, usage: checkUsage)
        let opened = try context.unlock()
        var vault = opened.vault
        let targets = args.flag("all") ? vault.activeItems : [try vault.resolve(args.positionals[0])]
        var changed = 0
        for item in targets where item.websites.contains(where: { $0.lowercased().hasPrefix("http://") }) {
            try vault.update(id: item.id, now: Date()) { edited in
                edited.websites = edited.websites.map { $0.lowercased().hasPrefix("http://") ? "https://" + $0.dropFirst(7) : $0 }
            }
            changed += 1
            Console.out("Switched \"\(item.title)\" to https://")
        }
        if changed > 0 { try opened.save(vault) } else { Console.out("No http:// addresses to switch.") }
    }

    static func checkBreachesSetting(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: checkUsage)
        var settings = Settings.load(context.dataDirectory)
        switch args.positionals[0] {
        case "on":
            Console.out(Localization.tr("check.optin", context.language))
            guard args.flag("yes") else {
                Console.out("\nTo turn it on: passbox check breaches on --yes")
                return
            }
            settings.breachCheck = true
            try settings.save(context.dataDirectory)
            Console.out("\nThe breached-password check is on. Run it with: passbox check --breaches")
        case "off":
            settings.breachCheck = false
            try settings.save(context.dataDirectory)
            Console.out("The breached-password check is off.")
        default: throw CLIError.usage("usage: passbox check breaches on [--yes] | off")
        }
    }

    static func checkSettings(_ context: Context, _ args: Arguments) throws {
        var settings = Settings.load(context.dataDirectory)
        if args.positionals.isEmpty {
            Console.out("breach check: \(settings.breachCheck ? "on" : "off")")
            Console.out("range-url: \(settings.rangeURL ?? PwnedPasswordsClient.defaultRangeURL)")
            return
        }
        try args.expectPositionals(2...2, usage: checkUsage)
        guard args.positionals[0] == "range-url" else { throw CLIError.usage("unknown setting \"\(args.positionals[0])\"", hint: "settings: range-url") }
        guard let url = URL(string: args.positionals[1]), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw CLIError.usage("\"\(args.positionals[1])\" is not an http(s) address")
        }
        settings.rangeURL = args.positionals[1]
        try settings.save(context.dataDirectory)
        Console.out("The range service is now \(args.positionals[1]).")
    }

    /// Replaces the catalogues from a file or URL the user names; the new data is parsed before it is kept.
    static func checkUpdateData(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: checkUsage)
        var updated = 0
        for (fileOption, urlOption, name) in [("breaches-file", "breaches-url", CheckData.breachesFile), ("2fa-file", "2fa-url", CheckData.twoFactorFile)] {
            let data: Data
            if let path = args.value(fileOption) {
                guard let d = FileManager.default.contents(atPath: path) else { throw CLIError.failure("cannot read \(path)") }
                data = d
            } else if let address = args.value(urlOption) {
                data = try download(address)
            } else {
                continue
            }
            if name == CheckData.breachesFile { _ = try BreachCatalog.parse(data) } else { _ = try TwoFactorDirectory.parse(data) }
            try StoreFiles.writeAtomically(Array(data), to: context.dataDirectory + "/" + name, directory: context.dataDirectory)
            updated += 1
            Console.out("Updated \(name) (\(data.count) bytes).")
        }
        if updated == 0 {
            throw CLIError.usage("name a source", hint: "for example --breaches-url https://haveibeenpwned.com/api/v3/breaches --2fa-url https://api.2fa.directory/v3/totp.json")
        }
    }

    static func download(_ address: String) throws -> Data {
        guard let url = URL(string: address), ["http", "https"].contains(url.scheme ?? "") else { throw CLIError.usage("\"\(address)\" is not an http(s) address") }
        let answer: (status: Int, body: [UInt8])
        do {
            answer = try HTTPGet.get(url.absoluteString, headers: ["User-Agent: Passbox"], timeoutSeconds: 30)
        } catch let e as HTTPGet.Failure {
            throw CLIError.failure("could not download \(address): \(e.description)", hint: "check the network connection and try again")
        }
        guard answer.status == 200 else { throw CLIError.failure("\(address) answered \(answer.status)") }
        let data = Data(answer.body)
        return data
    }
}

enum SecurityCheckFormat {
    static func day(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd"
        return f.string(from: date)
    }
}
