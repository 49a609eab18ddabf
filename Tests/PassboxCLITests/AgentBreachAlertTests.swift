import Foundation
import PassboxAgent
import PassboxClient
import PassboxCore
import PassboxProtocol
import PassboxService
import PassboxStore
import PassboxTestKit
import Testing

/// New breaches (issue 34, SEC-14, SEC-15, SEC-18): the agent refreshes the breach catalogue through the
/// account's own server, matches the open vault against the breaches published since the last look, says so
/// once as a desktop notification (a notification server of the test's own on a private session bus) and in
/// `status` until Security Check is asked for.
@Suite struct AgentBreachAlertTests {
    static let canRun = LogindPeer.isAvailable && FileManager.default.isExecutableFile(atPath: "/usr/bin/notify-send")

    /// A breach of `domain` published at `added`, as the catalogue writes it.
    static func breach(_ name: String, domain: String, added: Date) -> [String: Any] {
        let iso = ISO8601DateFormatter()
        return [
            "Name": name, "Title": name, "Domain": domain, "BreachDate": "2024-01-01", "AddedDate": iso.string(from: added), "ModifiedDate": iso.string(from: added),
            "PwnCount": 12345, "Description": "", "DataClasses": ["Email addresses", "Passwords"], "IsVerified": true, "IsFabricated": false, "IsSensitive": false,
            "IsRetired": false, "IsSpamList": false, "IsMalware": false, "IsSubscriptionFree": false, "IsStealerLog": false, "LogoPath": "",
        ]
    }

    @Test(.enabled(if: canRun, "skipped: needs dbus-daemon, python3-dbus, python3-gi and notify-send (make test installs them)"))
    func aNewBreachComesThroughTheServerAndIsNotifiedOnce() throws {
        let dir = try TemporaryDirectory("passbox-breach-alerts")
        // `passbox --data D server` keeps its data in D/server: the operator's catalogue goes there.
        let serverData = dir.path + "/srv/server"
        try FileManager.default.createDirectory(atPath: serverData, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // The server's catalogue (its operator's copy): an old breach and one of example.org published after the
        // login's password was set.
        let old = Self.breach("OldLeak", domain: "old.example", added: Date(timeIntervalSince1970: 1_400_000_000))
        let fresh = Self.breach("ExampleLeak", domain: "example.org", added: Date().addingTimeInterval(3600))
        let catalogue = try JSONSerialization.data(withJSONObject: [old, fresh])
        try catalogue.write(to: URL(fileURLWithPath: serverData + "/" + Catalogues.breachesFile))
        let server = try ServerProcess(dataDirectory: dir.path + "/srv", in: dir)
        let data = try SharingIntegrationTests.signUp("ann", server: server.origin, in: dir)
        let added = try SharingIntegrationTests.passbox(
            data, ["add", "login", "--title", "Example", "--username", "ann", "--url", "https://www.example.org/login", "--password-stdin"],
            [SharingIntegrationTests.password, "a long and unbreached passphrase 42"])
        #expect(added.status == 0, "\(added.stderr)")
        _ = try? SharingIntegrationTests.passbox(data, ["lock", "--stop"])
        // An earlier look at the catalogue: what was published until a day ago is not news.
        var settings = Settings.load(data)
        settings.breachesSeenUntil = Int(Date().timeIntervalSince1970) - 86_400
        try settings.save(data)

        let bus = try PrivateBus(.session)
        let peer = try NotifyPeer(bus: bus)

        let socket = data + "/run/agent.sock"
        let agent = try Transcript.startBackground(
            try Transcript.executablePath(), ["--data", data, "agent", "--test-catalogue-seconds", "1"],
            environment: ["XDG_RUNTIME_DIR": "", "DBUS_SESSION_BUS_ADDRESS": bus.address, "PASSBOX_LANG": "en"])
        defer { Transcript.stop(agent) }
        func send(_ request: Request) throws -> Reply { try #require(try AgentClient.send(request, socketPath: socket)) }
        for _ in 0..<500 where (try? AgentClient.send(.status, socketPath: socket)) == nil { usleep(10_000) }
        #expect(try send(.unlock(UnlockRequest(password: SecretText(SharingIntegrationTests.password)))) == .done)

        // A guard, not a timing: the agent asks its server every second here.
        var alerts: Int?
        for _ in 0..<600 where alerts == nil {
            alerts = try send(.status).status().breachAlerts
            if alerts == nil { usleep(50_000) }
        }
        #expect(alerts == 1, "one login is in the new breach")
        #expect(FileManager.default.contents(atPath: data + "/" + Catalogues.breachesFile) == catalogue, "the device keeps the server's catalogue")
        // notify-send runs beside the agent's queue: waited for (a guard).
        for _ in 0..<200 where peer.notifications.isEmpty { Thread.sleep(forTimeInterval: 0.05) }
        #expect(peer.notifications.count == 1, "\(peer.notifications)")
        let note = try #require(peer.notifications.first)
        #expect(note["app"] == "Passbox" && note["summary"] == "Passbox: a new data breach")
        #expect(note["body"]?.contains("affects 1 login in your vault") == true)
        #expect(note["body"]?.contains("example") == false && note["body"]?.contains("Example") == false, "no site in a notification: \(note)")
        // A check asked in the background (the web list's risk shields) leaves the alert; Security Check shows it,
        // and asking for it is seeing the alert.
        _ = try send(.check(CheckRequest(runBreachCheck: false, background: true))).check()
        #expect(try send(.status).status().breachAlerts == 1)
        let report = try send(.check(CheckRequest(runBreachCheck: false))).check()
        #expect(report.findings.contains { $0.kind == "breached-website" && $0.title == "Example" && $0.details["breach"] == "ExampleLeak" })
        #expect(try send(.status).status().breachAlerts == nil)
        // Seen once: the mark moved to the newest breach, so the same catalogue is no news at the next unlock.
        #expect(Settings.load(data).breachesSeenUntil.map { $0 >= Int(Date().timeIntervalSince1970) } == true, "the mark moved to the newest breach")
        #expect(peer.notifications.count == 1)
    }

    /// SEC-14 without an account: a local vault's agent fetches nothing on its own until the user opts in
    /// (`breach-catalogue`: on for Have I Been Pwned's list, or an address of their own); then it fetches the
    /// list (a plain GET, nothing about the vault in it), keeps it, and matches the vault against what is new.
    /// An address that is neither https nor on this machine is refused; off stops it.
    @Test func aLocalVaultsCatalogueIsRefreshedOnlyOnceOptedIn() throws {
        let dir = try TemporaryDirectory("passbox-local-catalogue")
        let old = Self.breach("OldLeak", domain: "old.example", added: Date(timeIntervalSince1970: 1_400_000_000))
        let fresh = Self.breach("ExampleLeak", domain: "example.org", added: Date().addingTimeInterval(3600))
        let catalogue = try JSONSerialization.data(withJSONObject: [old, fresh])
        try FileManager.default.createDirectory(atPath: dir.path + "/www", withIntermediateDirectories: true)
        try catalogue.write(to: URL(fileURLWithPath: dir.path + "/www/breaches.json"))
        // A plain HTTP server on a free loopback port, logging each request it gets to a file.
        let served = try Transcript.startBackground(
            "/usr/bin/python3",
            [
                "-c",
                """
                import http.server, functools, sys
                class H(http.server.SimpleHTTPRequestHandler):
                    def log_message(self, *a):
                        open(sys.argv[2], "a").write(self.path + "\\n")
                s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(H, directory=sys.argv[1]))
                open(sys.argv[3], "w").write(str(s.server_address[1]))
                s.serve_forever()
                """, dir.path + "/www", dir.path + "/requests", dir.path + "/port",
            ], environment: [:])
        defer { Transcript.stop(served) }
        var port = ""
        for _ in 0..<400 where port.isEmpty {
            port = (try? String(contentsOfFile: dir.path + "/port", encoding: .utf8)) ?? ""
            if port.isEmpty { usleep(25_000) }
        }
        #expect(!port.isEmpty, "the test's HTTP server started")

        let agent = try RealAgent(agentArguments: ["--insecure-test-kdf", "--test-catalogue-seconds", "1"], environment: ["PASSBOX_LANG": "en"])
        try agent.unlock()
        _ = try agent.add(
            "login", ItemChanges(title: "Example", username: "ann", websites: ["https://www.example.org/login"], secretFields: [FieldAssignment(label: "password", value: "a long and unbreached passphrase 42")]))
        var settings = Settings.load(agent.session.data)
        settings.breachesSeenUntil = Int(Date().timeIntervalSince1970) - 86_400
        try settings.save(agent.session.data)
        #expect(try agent.send(.settings).settings().breachCatalogueURL == nil, "off unless opted in")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/requests"), "nothing was fetched before the user opted in")

        let refused = try agent.failure(.changeSetting(SettingRequest(name: "breach-catalogue", value: "http://example.org/breaches.json")))
        #expect(refused.code == .invalidSetting)
        let url = "http://127.0.0.1:\(port)/breaches.json"
        #expect(try agent.send(.changeSetting(SettingRequest(name: "breach-catalogue", value: url))).settings().breachCatalogueURL == url)
        // A guard, not a timing: the agent fetches at its next tick (every second here).
        var alerts: Int?
        for _ in 0..<600 where alerts == nil {
            alerts = try agent.send(.status).status().breachAlerts
            if alerts == nil { usleep(50_000) }
        }
        #expect(alerts == 1, "one login is in the new breach")
        #expect(FileManager.default.contents(atPath: agent.session.data + "/" + Catalogues.breachesFile) == catalogue, "the list was kept")
        #expect(((try? String(contentsOfFile: dir.path + "/requests", encoding: .utf8)) ?? "").split(separator: "\n").allSatisfy { $0 == "/breaches.json" })
        #expect(try agent.send(.changeSetting(SettingRequest(name: "breach-catalogue", value: "on"))).settings().breachCatalogueURL == Settings.defaultBreachCatalogueURL)
        #expect(try agent.send(.changeSetting(SettingRequest(name: "breach-catalogue", value: "off"))).settings().breachCatalogueURL == nil)
    }

    /// SEC-18: an automatic backup that fails while the vault is open is said once as a desktop notification
    /// (naming no folder); the change itself is kept.
    @Test(.enabled(if: canRun, "skipped: needs dbus-daemon, python3-dbus, python3-gi and notify-send (make test installs them)"))
    func aFailedAutoBackupIsNotified() throws {
        let bus = try PrivateBus(.session)
        let peer = try NotifyPeer(bus: bus)
        let agent = try RealAgent(agentArguments: ["--insecure-test-kdf"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "PASSBOX_LANG": "en"])
        try agent.unlock()
        let dir = try TemporaryDirectory()
        let folder = dir.path + "/auto"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        _ = try agent.send(.backupPassword(BackupPasswordRequest(current: SecretText(RealAgent.password), password: SecretText("a backup password of its own"))))
        _ = try agent.send(.backupAuto(BackupAutoRequest(folder: folder, retentionDays: 14)))
        _ = try agent.add("login", ItemChanges(title: "Backed up"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == 1)
        // The folder gone: the next change's backup fails.
        try FileManager.default.removeItem(atPath: folder)
        _ = try agent.add("login", ItemChanges(title: "Not backed up"))
        #expect(try agent.send(.backupView).backup().problem?.code == .backupFolderInvalid)
        for _ in 0..<200 where peer.notifications.isEmpty { Thread.sleep(forTimeInterval: 0.05) }
        let note = try #require(peer.notifications.first, "the failed backup was notified")
        #expect(note["app"] == "Passbox" && note["summary"] == "Passbox: an automatic backup failed")
        #expect(note["body"]?.contains(dir.path) == false, "no folder in a notification")
        #expect(try agent.send(.list(ListRequest())).items().items.contains { $0.title == "Not backed up" })
    }
}
