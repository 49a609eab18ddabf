import Foundation
import PassboxAgent
import PassboxProtocol
import PassboxStore

/// `passbox browser install|uninstall|status|pair|list|remove` and `passbox browser-host`.
extension Commands {
    static let browserUsage = "passbox browser install|uninstall|status [--browser chromium|chrome|firefox|all] | pair [--code CODE] [--wait SECONDS] | list [--json] | remove ID"

    /// The native messaging host's name and the extension's ids (Chromium's is fixed by the manifest's key).
    static let browserHostName = "dev.passbox.host"
    static let chromiumExtensionID = "bbcehchmcalipejkofghcfnglkhhoafk"
    static let firefoxExtensionID = "passbox@passbox.dev"

    struct HostTarget {
        let browser: String
        /// The folder, under the home folder, that holds the browser's native messaging host manifests.
        let folder: String
        /// The folder whose presence says the browser is used here.
        let marker: String
        let firefox: Bool
    }

    static let hostTargets = [
        HostTarget(browser: "chromium", folder: ".config/chromium/NativeMessagingHosts", marker: ".config/chromium", firefox: false),
        HostTarget(browser: "chrome", folder: ".config/google-chrome/NativeMessagingHosts", marker: ".config/google-chrome", firefox: false),
        HostTarget(browser: "firefox", folder: ".mozilla/native-messaging-hosts", marker: ".mozilla", firefox: true),
        HostTarget(browser: "chromium", folder: ".var/app/org.chromium.Chromium/config/chromium/NativeMessagingHosts", marker: ".var/app/org.chromium.Chromium", firefox: false),
        HostTarget(browser: "chrome", folder: ".var/app/com.google.Chrome/config/google-chrome/NativeMessagingHosts", marker: ".var/app/com.google.Chrome", firefox: false),
        HostTarget(browser: "firefox", folder: ".var/app/org.mozilla.firefox/.mozilla/native-messaging-hosts", marker: ".var/app/org.mozilla.firefox", firefox: true),
    ]

    static func homeDirectory() -> String {
        if let home = ProcessInfo.processInfo.environment["HOME"], home.hasPrefix("/") { return home }
        return FileManager.default.homeDirectoryForCurrentUser.path
    }

    /// The targets `--browser` names: one browser (its folders, made when missing), or by default every
    /// browser whose folder exists here.
    static func chosenTargets(_ c: Context, _ a: Arguments, home: String) throws -> [HostTarget] {
        let choice = a.value("browser") ?? "all"
        guard ["chromium", "chrome", "firefox", "all"].contains(choice) else {
            throw CLIError.usage(c.tr("browser.badBrowser", ["browser": choice]), hint: browserUsage)
        }
        if choice == "all" { return hostTargets.filter { FileManager.default.fileExists(atPath: home + "/" + $0.marker) } }
        // A named browser: its own folder always, the Flatpak one where that browser is installed.
        return hostTargets.filter { $0.browser == choice && (!$0.marker.hasPrefix(".var/") || FileManager.default.fileExists(atPath: home + "/" + $0.marker)) }
    }

    static func browser(_ c: Context, _ a: Arguments) throws {
        guard let action = a.positionals.first else { throw CLIError.usage("usage: \(browserUsage)") }
        switch action {
        case "install": try browserInstall(c, a)
        case "uninstall": try browserUninstall(c, a)
        case "status": try browserStatus(c, a)
        case "pair": try browserPair(c, a)
        case "list": try browserList(c, a)
        case "remove": try browserRemove(c, a)
        default: throw CLIError.usage("usage: \(browserUsage)")
        }
    }

    /// The script the manifests name: the browsers start it with arguments of their own (the extension's
    /// origin, a window id) that it ignores; it runs this binary as the host of this data directory.
    static func hostScript(dataDirectory: String) throws -> String {
        let binary = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        func quoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        return "#!/bin/sh\n# Written by passbox browser install: the browser extension's native messaging host.\nexec \(quoted(binary)) --data \(quoted(dataDirectory)) browser-host\n"
    }

    static func hostManifest(_ target: HostTarget, script: String) throws -> [UInt8] {
        var manifest: [String: Any] = ["name": browserHostName, "description": "Passbox", "path": script, "type": "stdio"]
        if target.firefox {
            manifest["allowed_extensions"] = [firefoxExtensionID]
        } else {
            manifest["allowed_origins"] = ["chrome-extension://\(chromiumExtensionID)/"]
        }
        return Array(try JSONSerialization.data(withJSONObject: manifest, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) + [10]
    }

    static func writeFile(_ bytes: [UInt8], to path: String, mode: mode_t) throws {
        let temporary = path + ".tmp-\(getpid())"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes), attributes: [.posixPermissions: Int(mode)]) else {
            throw CLIError.failure("could not write \(temporary)")
        }
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw CLIError.failure("could not write \(path): \(String(cString: strerror(errno)))")
        }
    }

    static func browserInstall(_ c: Context, _ a: Arguments) throws {
        try a.expectPositionals(1...1, usage: browserUsage)
        let home = homeDirectory()
        let targets = try chosenTargets(c, a, home: home)
        guard !targets.isEmpty else { throw CLIError.failure(c.tr("browser.noBrowser"), hint: c.tr("browser.noBrowser.hint")) }
        try FileManager.default.createDirectory(atPath: c.dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let script = c.dataDirectory + "/browser-host"
        try writeFile(Array(try hostScript(dataDirectory: c.dataDirectory).utf8), to: script, mode: 0o700)
        for target in targets {
            let folder = home + "/" + target.folder
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let path = folder + "/" + browserHostName + ".json"
            try writeFile(try hostManifest(target, script: script), to: path, mode: 0o644)
            Console.out(c.tr("browser.installed", ["browser": target.browser, "path": path]))
        }
        Console.out(c.tr("browser.loadChromium", ["folder": "extension/"]))
        Console.out(c.tr("browser.loadFirefox", ["folder": "extension/"]))
        Console.out(c.tr("browser.thenPair"))
    }

    static func browserUninstall(_ c: Context, _ a: Arguments) throws {
        try a.expectPositionals(1...1, usage: browserUsage)
        let home = homeDirectory()
        var removed = 0
        for target in try chosenTargets(c, a, home: home) {
            let path = home + "/" + target.folder + "/" + browserHostName + ".json"
            if unlink(path) == 0 {
                removed += 1
                Console.out(c.tr("browser.uninstalled", ["path": path]))
            }
        }
        if a.value("browser") == nil || a.value("browser") == "all" { unlink(c.dataDirectory + "/browser-host") }
        if removed == 0 { Console.out(c.tr("browser.nothingInstalled")) }
    }

    static func browserStatus(_ c: Context, _ a: Arguments) throws {
        try a.expectPositionals(1...1, usage: browserUsage)
        let home = homeDirectory()
        let script = c.dataDirectory + "/browser-host"
        for target in hostTargets where FileManager.default.fileExists(atPath: home + "/" + target.marker) {
            let path = home + "/" + target.folder + "/" + browserHostName + ".json"
            let key: String
            if let data = FileManager.default.contents(atPath: path) {
                let named = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["path"] as? String
                key = named == script ? "browser.status.installed" : "browser.status.elsewhere"
            } else {
                key = "browser.status.missing"
            }
            Console.out(c.tr(key, ["browser": target.browser, "path": path]))
        }
        let paired = (try? PairedBrowsers.load(c.dataDirectory))?.browsers.count ?? 0
        Console.out(c.tr("browser.status.paired", ["count": String(paired)]))
    }

    static func requireAgent(_ c: Context) throws {
        guard c.endpoint.agentIsRunning else { throw ProtocolError(.agentUnavailable, ["socket": c.endpoint.socketPath]) }
    }

    /// Confirms a pairing the extension asked for: the code it shows is the one shown here.
    static func browserPair(_ c: Context, _ a: Arguments) throws {
        try a.expectPositionals(1...1, usage: browserUsage)
        try requireAgent(c)
        let wait = Double(a.value("wait") ?? "120") ?? 120
        let deadline = Date().addingTimeInterval(max(0, min(wait, 600)))
        var pending = try c.send(Request(Operations.browserPairings)).answer(BrowserPairingsReply.self).pending
        if pending.isEmpty { Console.err(c.tr("browser.pair.waiting")) }
        while pending.isEmpty, Date() < deadline {
            // A person is clicking in the browser: polled twice a second.
            usleep(500_000)
            pending = try c.send(Request(Operations.browserPairings)).answer(BrowserPairingsReply.self).pending
        }
        guard !pending.isEmpty else { throw CLIError.failure(c.tr("browser.pair.none"), hint: c.tr("browser.pair.none.hint")) }
        if let code = a.value("code") {
            let digits = code.filter(\.isNumber)
            // Two waiting pairings with the same code (one in a million, or a program that asked many times):
            // which is the user's cannot be told, so neither is confirmed.
            let matches = pending.filter { $0.code.filter(\.isNumber) == digits }
            guard matches.count == 1, let match = matches.first else { throw ProtocolError(.pairingCodeWrong) }
            try c.send(Request(Operations.browserPairConfirm, BrowserPairConfirmRequest(pairing: match.pairing, code: code)))
            Console.out(c.tr("browser.pair.done", ["browser": match.browser, "name": Console.visible(match.name)]))
            return
        }
        for request in pending.reversed() {
            Console.out(c.tr("browser.pair.asks", ["browser": request.browser, "name": Console.visible(request.name), "code": request.code]))
            Console.write(c.tr("browser.pair.question"), error: true)
            guard let answer = c.input.readLine(), ["y", "yes", "j", "ja"].contains(answer.lowercased()) else {
                _ = try? c.send(Request(Operations.browserRemove, BrowserRemoveRequest(pairing: request.pairing)))
                Console.out(c.tr("browser.pair.declined"))
                continue
            }
            try c.send(Request(Operations.browserPairConfirm, BrowserPairConfirmRequest(pairing: request.pairing, code: request.code)))
            Console.out(c.tr("browser.pair.done", ["browser": request.browser, "name": Console.visible(request.name)]))
            return
        }
    }

    static func pairings(_ c: Context) throws -> BrowserPairingsReply {
        if c.endpoint.agentIsRunning { return try c.send(Request(Operations.browserPairings)).answer(BrowserPairingsReply.self) }
        do {
            let file = try PairedBrowsers.load(c.dataDirectory)
            return BrowserPairingsReply(pending: [], paired: file.browsers.map { BrowserPairedView(pairing: $0.id, browser: $0.browser, name: $0.name, pairedAt: $0.pairedAt, lastUsed: $0.lastUsed) })
        } catch let e as PairedBrowsers.Damaged {
            throw ProtocolError(.browsersFileDamaged, ["path": e.path])
        }
    }

    static func browserList(_ c: Context, _ a: Arguments) throws {
        try a.expectPositionals(1...1, usage: browserUsage)
        let reply = try pairings(c)
        if a.flag("json") {
            try Output.json(reply)
            return
        }
        guard !reply.paired.isEmpty || !reply.pending.isEmpty else {
            Console.out(c.tr("browser.list.none"))
            return
        }
        let formatter = ISO8601DateFormatter()
        var rows = [["ID", "BROWSER", "NAME", "PAIRED", "LAST USED"]]
        for p in reply.paired {
            rows.append([p.pairing, p.browser, p.name, formatter.string(from: p.pairedAt), p.lastUsed.map(formatter.string) ?? "–"])
        }
        for p in reply.pending { rows.append([p.pairing, p.browser, p.name, c.tr("browser.list.pending", ["code": p.code]), "–"]) }
        Console.out(Output.table(rows))
    }

    static func browserRemove(_ c: Context, _ a: Arguments) throws {
        try a.expectPositionals(2...2, usage: browserUsage)
        let wanted = a.positionals[1].lowercased()
        let reply = try pairings(c)
        let ids = (reply.paired.map(\.pairing) + reply.pending.map(\.pairing)).filter { $0.hasPrefix(wanted) }
        guard ids.count == 1, let id = ids.first else { throw ProtocolError(.pairingNotFound, ["pairing": String(wanted.prefix(40))]) }
        if c.endpoint.agentIsRunning {
            _ = try c.send(Request(Operations.browserRemove, BrowserRemoveRequest(pairing: id))).answer(CountReply.self)
        } else {
            var file = try PairedBrowsers.load(c.dataDirectory)
            file.browsers.removeAll { $0.id == id }
            try file.save(c.dataDirectory)
        }
        Console.out(c.tr("browser.removed", ["id": id]))
    }

    /// `passbox browser-host`: started by the browser, never by a person.
    static func browserHost(_ c: Context, _ a: Arguments) throws {
        exit(BrowserHost.run(socketPath: AgentPaths.socketPath(dataDirectory: c.dataDirectory)))
    }
}
