import Foundation
import PassboxProtocol
import PassboxService
import PassboxStore
import PassboxWording

/// What the agent keeps for new breaches (SEC-14, SEC-18), on its queue.
struct BreachWatch {
    /// Seconds between asking the account's server for its catalogue (6 hours; tests shorten it).
    var interval = BreachAlerts.refreshSeconds
    var nextFetch = Date.distantPast
    var fetching = false
    var wasUnlocked = false
    /// The vault is to be matched against the catalogue once it is open (at unlock, after a changed catalogue).
    var matchPending = false
    /// Logins new breaches put at risk, until Security Check is next asked for.
    var alerts = 0
    /// The auto-backup's problem as last seen (SEC-18): a new one is said once.
    var backupProblem: String?
}

extension AgentDaemon {
    /// On the agent's timer: the catalogue is fetched through the account's server every `interval` (also while
    /// locked: download only), off the queue; the open vault is matched at unlock and after a catalogue that
    /// changed, and what is new is said once, as a desktop notification.
    func watchBreaches(queue: DispatchQueue) {
        let unlocked = service.isUnlocked
        if unlocked && !breaches.wasUnlocked { breaches.matchPending = true }
        if !unlocked { breaches.alerts = 0 }
        noteBackupProblem(wasOpen: true)
        breaches.wasUnlocked = unlocked
        let now = Date()
        if !breaches.fetching, now >= breaches.nextFetch {
            breaches.fetching = true
            breaches.nextFetch = now.addingTimeInterval(breaches.interval)
            let data = dataDirectory
            DispatchQueue.global(qos: .utility).async { [self] in
                let changed = (try? BreachAlerts.refresh(dataDirectory: data)) ?? false
                queue.async { [self] in
                    breaches.fetching = false
                    if changed { breaches.matchPending = true }
                }
            }
        }
        guard unlocked, breaches.matchPending, let session = service.session else { return }
        breaches.matchPending = false
        guard let found = try? session.newBreachAlerts(), found > 0 else { return }
        breaches.alerts += found
        Notifier.breaches(found, dataDirectory: dataDirectory)
    }

    /// SEC-18: a failed auto-backup while the vault is open is said once. One already recorded when the vault
    /// opens (`wasOpen` false: the request that opened it) is the Backups page's and Security Check's to say.
    /// Called after each request and on the timer (saves deferred past a request's answer).
    func noteBackupProblem(wasOpen: Bool) {
        let problem = service.isUnlocked ? service.session?.autoBackupProblem : nil
        if wasOpen, let problem, problem != breaches.backupProblem { Notifier.backupFailed(dataDirectory: dataDirectory) }
        breaches.backupProblem = problem
    }

    /// Security Check was asked for (not in the background): the alerts are seen.
    func breachAlertsSeen(_ request: Request) {
        if let r = request.body(Operations.check), r.background != true { breaches.alerts = 0 }
    }
}

/// Desktop notifications (org.freedesktop.Notifications, through libnotify's notify-send) from the agent. The
/// text names no site: a notification can show on a locked screen.
enum Notifier {
    static let tool = "/usr/bin/notify-send"

    /// The language the user chose for the web UI, else the environment's.
    static func language(_ dataDirectory: String) -> Language {
        let settings = Settings.load(dataDirectory)
        return settings.webLanguage == "de" || (settings.webLanguage == nil && Language.fromEnvironment() == .german) ? .german : .english
    }

    static func backupFailed(dataDirectory: String) {
        let language = language(dataDirectory)
        send(summary: Localization.tr("notify.backup.title", language), body: Localization.tr("notify.backup.body", language))
    }

    static func breaches(_ count: Int, dataDirectory: String) {
        let language = language(dataDirectory)
        send(summary: Localization.tr("notify.breach.title", language), body: Localization.tr("notify.breach.body", language, ["count": String(count)]))
    }

    static func send(summary: String, body: String) {
        guard FileManager.default.isExecutableFile(atPath: tool) else { return }
        // Detached: a notification server that does not answer holds up nothing.
        DispatchQueue.global(qos: .utility).async {
            _ = Clipboard.runTool(["/usr/bin/timeout", "10", tool, "--app-name=Passbox", "--icon=dialog-warning", "--", summary, body], input: nil, environment: nil)
        }
    }
}
