import Foundation
import PassboxClient
import PassboxCore
import PassboxProtocol
import PassboxService
import PassboxStore
import PassboxWording

extension Commands {
    static let checkUsage = """
        passbox check [--json] [--kind KIND] [--breaches]
        passbox check dismiss ITEM KIND | undismiss ITEM KIND
        passbox check fix-https (ITEM | --all)
        passbox check breaches on [--yes] | off
        passbox check settings [range-url URL]
        passbox check update-data [--breaches-file F | --breaches-url URL] [--2fa-file F | --2fa-url URL] [--passkeys-file F | --passkeys-url URL]
        """

    static func checkReport(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: checkUsage)
        let kind = try args.value("kind").map { name in
            guard FindingKind(rawValue: name) != nil else { throw ProtocolError(.unknownFindingKind, ["name": name]) }
            return name
        }
        var ranges: [String: String]?
        if args.flag("breaches") {
            // The vault gives the prefixes; this process asks the range service (padded with random prefixes)
            // and hands the answers back. The agent never goes on the network.
            let prefixes = try context.send(.breachPrefixes).prefixes().prefixes
            let rangeURL = try context.send(.settings).settings().rangeURL
            do {
                ranges = try PwnedPasswordsClient(rangeURL: rangeURL).ranges(for: Set(prefixes))
            } catch let e as PwnedPasswordsClient.CheckError {
                throw ProtocolError(.breachCheckFailed, e.facts.merging(["problem": e.reason]) { _, problem in problem })
            }
        }
        let report = try context.send(.check(CheckRequest(runBreachCheck: args.flag("breaches"), ranges: ranges))).check()
        if let found = report.breachedPasswordsFound {
            Console.err(found == 0 ? "No breached passwords found." : "\(found) password\(found == 1 ? "" : "s") found in data breaches.")
        }
        let findings = report.findings.filter { kind == nil || $0.kind == kind }
        if args.flag("json") {
            var filtered = report
            filtered.findings = findings
            try Output.json(filtered)
            return
        }
        render(report, findings: findings, kind: kind, context)
    }

    static func advice(_ f: FindingView, _ context: Context) -> String {
        var arguments = f.details
        arguments["item"] = String(f.itemID.prefix(8))
        if let reason = f.details["reason"] { arguments["reason"] = context.tr("check.reason.\(reason)") }
        return context.tr("check.kind.\(f.kind).advice", arguments)
    }

    static func render(_ report: CheckReply, findings: [FindingView], kind: String?, _ context: Context) {
        if kind == nil {
            Console.out(context.tr("check.score", ["score": String(report.score), "rating": context.tr("check.rating.\(report.rating)")]))
            Console.out(context.tr("check.secure", ["secure": String(report.secureLogins), "logins": String(report.logins)]))
            let t = report.tiles
            Console.out(context.tr("check.tiles", ["atRisk": String(t["atRisk"] ?? 0), "reused": String(t["reused"] ?? 0), "weak": String(t["weak"] ?? 0), "secure": String(t["secure"] ?? 0)]))
            let order = Dictionary(uniqueKeysWithValues: FindingKind.allCases.map { ($0.rawValue, $0.order) })
            let costs = report.deductions.sorted { $0.value == $1.value ? (order[$0.key] ?? 0) < (order[$1.key] ?? 0) : $0.value > $1.value }
            if !costs.isEmpty {
                Console.out(costs.map { String(format: "−%.1f %@", $0.value, kindName($0.key, context)) }.joined(separator: " · "))
            }
            if report.breachCheckEnabled {
                Console.out(report.lastBreachCheck.map { context.tr("check.breaches.last", ["date": Output.date($0)]) } ?? context.tr("check.breaches.never"))
            } else {
                Console.out(context.tr("check.breaches.off"))
            }
            switch report.backupReminder {
            case "noPassword": Console.out(context.tr("backup.check.noPassword"))
            case "failing": Console.out(context.tr("backup.check.failing"))
            case "never": Console.out(context.tr("backup.check.never"))
            case "old": Console.out(context.tr("backup.check.old", ["date": Output.date(report.lastBackup)]))
            default: break
            }
            if !report.fixFirst.isEmpty {
                Console.out("\n" + context.tr("check.fixFirst"))
                for (i, fix) in report.fixFirst.enumerated() {
                    Console.out(Console.visible(String(format: "  %d. %@ (%@): %@, +%.1f", i + 1, Console.visibleLine(fix.title), String(fix.itemID.prefix(8)), fix.kinds.map { kindName($0, context) }.joined(separator: ", "), fix.points)))
                }
            }
        }
        for k in FindingKind.allCases where kind == nil || k.rawValue == kind {
            let list = findings.filter { $0.kind == k.rawValue && (kind != nil || !$0.dismissed) }
            guard !list.isEmpty else { continue }
            Console.out("\n\(context.tr("check.kind.\(k.rawValue).title")) (\(list.count))")
            var shownGroups = Set<Int>()
            for f in list.sorted(by: { ($0.group ?? 0, $0.title) < ($1.group ?? 0, $1.title) }) {
                if let g = f.group, shownGroups.insert(g).inserted {
                    Console.out("  group \(g):")
                }
                let indent = f.group == nil ? "  " : "    "
                Console.out(Console.visible("\(indent)\(Console.visibleLine(f.title)) (\(f.itemID.prefix(8)))\(f.dismissed ? " [dismissed]" : "") — \(advice(f, context))"))
            }
        }
        let dismissed = report.findings.filter(\.dismissed).count
        if kind == nil && dismissed > 0 { Console.out("\n\(dismissed) dismissed finding\(dismissed == 1 ? " is" : "s are") not counted (passbox check --kind KIND shows them).") }
        Console.out("\n" + context.tr("check.source", ["date": report.catalogueDate.map(Output.day) ?? "?"]))
    }

    static func checkDismiss(_ context: Context, _ args: Arguments, dismiss: Bool) throws {
        try args.expectPositionals(2...2, usage: checkUsage)
        let kind = args.positionals[1]
        guard FindingKind(rawValue: kind) != nil else { throw ProtocolError(.unknownFindingKind, ["name": kind]) }
        let saved = try context.send(.dismiss(DismissRequest(item: args.positionals[0], kind: kind, dismissed: dismiss))).saved()
        Console.out(Console.visible(dismiss ? "Dismissed \(kind) for \"\(Console.visibleLine(saved.title))\"; it no longer counts." : "\(kind) for \"\(Console.visibleLine(saved.title))\" counts again."))
    }

    static func checkFixHTTPS(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(args.flag("all") ? 0...0 : 1...1, usage: checkUsage)
        let reply = try context.send(.fixHTTPS(FixHTTPSRequest(item: args.flag("all") ? nil : args.positionals[0]))).count()
        for item in reply.items { Console.out(Console.visible("Switched \"\(Console.visibleLine(item.title))\" to https://")) }
        if reply.count == 0 { Console.out("No http:// addresses to switch.") }
    }

    static func checkBreachesSetting(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(1...1, usage: checkUsage)
        switch args.positionals[0] {
        case "on":
            Console.out(context.tr("check.optin"))
            guard args.flag("yes") else {
                Console.out("\n" + context.tr("check.optin.confirm"))
                return
            }
            try context.send(.changeSetting(SettingRequest(name: "breach-check", value: "on")))
            Console.out("\n" + context.tr("check.optin.on"))
        case "off":
            try context.send(.changeSetting(SettingRequest(name: "breach-check", value: "off")))
            Console.out("The breached-password check is off.")
        default: throw CLIError.usage("usage: passbox check breaches on [--yes] | off")
        }
    }

    static func checkSettings(_ context: Context, _ args: Arguments) throws {
        if args.positionals.isEmpty {
            let settings = try context.send(.settings).settings()
            Console.out("breach check: \(settings.breachCheck ? "on" : "off")")
            Console.out("range-url: \(settings.rangeURL)")
            return
        }
        try args.expectPositionals(2...2, usage: checkUsage)
        guard args.positionals[0] == "range-url" else { throw CLIError.usage("unknown setting \"\(Console.visible(args.positionals[0]))\"", hint: "settings: range-url") }
        guard PwnedPasswordsClient.isAllowed(args.positionals[1]) else {
            throw CLIError.usage("\"\(Console.visible(args.positionals[1]))\" is not an https address (plain http only to this machine)")
        }
        try context.send(.changeSetting(SettingRequest(name: "range-url", value: args.positionals[1])))
        Console.out("The range service is now \(args.positionals[1]).")
    }

    /// Replaces the catalogues from a file or URL the user names; the new data is parsed before it is kept.
    /// Downloads run here, in the command's process, never in the agent.
    static func checkUpdateData(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: checkUsage)
        var updated = 0
        for (fileOption, urlOption, name) in [
            ("breaches-file", "breaches-url", Catalogues.breachesFile), ("2fa-file", "2fa-url", Catalogues.twoFactorFile), ("passkeys-file", "passkeys-url", Catalogues.passkeysFile),
        ] {
            let data: Data
            if let path = args.value(fileOption) {
                guard let d = FileManager.default.contents(atPath: path) else { throw CLIError.failure("cannot read \(path)") }
                data = d
            } else if let address = args.value(urlOption) {
                data = try download(address)
            } else {
                continue
            }
            try Catalogues.replace(name, with: data, directory: context.dataDirectory)
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
        return Data(answer.body)
    }

    /// A finding kind's name inside a sentence: lower case in English, as written in German (nouns keep
    /// their capital); an unknown kind as its key.
    static func kindName(_ kind: String, _ context: Context) -> String {
        let key = "check.kind.\(kind).title"
        let name = context.tr(key)
        if name == key { return Console.visibleLine(kind) }
        return context.language == .german ? name : name.lowercased()
    }
}
