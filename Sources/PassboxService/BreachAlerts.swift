import Foundation
import PassboxCore
import PassboxCrypto
import PassboxClient
import PassboxDomains
import PassboxProtocol
import PassboxStore

/// New breaches (SEC-14, SEC-15): the agent refreshes the breach catalogue through the account's own server
/// (never a third party: the server mirrors it), download only, whether the vault is open or not; matching the
/// vault needs it open, so it happens at unlock and after a refresh that changed the catalogue.
public enum BreachAlerts {
    /// How often the agent asks its server (about every 6 hours).
    public static let refreshSeconds: Double = 6 * 3600

    /// Asks the account's server for its catalogue when this data directory is signed in, or else the address
    /// the user opted in to (`Settings.breachCatalogueURL`); keeps it (parsed first: a damaged or hostile answer
    /// changes nothing) and answers true when the kept copy changed.
    public static func refresh(dataDirectory: String) throws -> Bool {
        guard access(AccountRecord.path(dataDirectory), F_OK) == 0 else { return try refreshLocal(dataDirectory: dataDirectory) }
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        guard let token = record.token else { return false }
        let kept = FileManager.default.contents(atPath: dataDirectory + "/" + Catalogues.breachesFile)
        let have = kept.map { Hash.sha256Hex(Array($0)) }
        guard let data = try client.breachCatalogue(token: token, have: have), data != kept else { return false }
        try Catalogues.replace(Catalogues.breachesFile, with: data, directory: dataDirectory)
        return true
    }

    /// A vault with no account: the catalogue from the address in the settings, when there is one (HIBP's
    /// list is about 1 MiB; at most 64 MiB is read). Nothing about the vault is sent: a GET of the whole list.
    static func refreshLocal(dataDirectory: String) throws -> Bool {
        guard let url = Settings.load(dataDirectory).breachCatalogueURL, PwnedPasswordsClient.isAllowed(url) else { return false }
        let answer: (status: Int, body: [UInt8])
        do {
            answer = try HTTPGet.get(url, headers: ["User-Agent: passbox", "Accept: application/json"], timeoutSeconds: 60, limit: 64 << 20)
        } catch let failure as HTTPGet.Failure {
            throw ProtocolError(.breachCheckFailed, ["reason": failure.description])
        }
        guard answer.status == 200 else { throw ProtocolError(.breachCheckFailed, ["reason": "HTTP \(answer.status)"]) }
        let data = Data(answer.body)
        guard data != FileManager.default.contents(atPath: dataDirectory + "/" + Catalogues.breachesFile) else { return false }
        try Catalogues.replace(Catalogues.breachesFile, with: data, directory: dataDirectory)
        return true
    }
}

extension VaultSession {
    /// The auto-backup's last problem as recorded (nil when the last one was written, or none is set up).
    public var autoBackupProblem: String? { vault.backup?.problem }

    /// The logins that breaches published since the last look put at risk (a site of theirs in a breach
    /// published after the password was set, not dismissed). The first look only marks where the catalogue
    /// stands: what it held before is Security Check's, not news. The mark moves to the newest breach.
    public func newBreachAlerts() throws -> Int {
        // A damaged settings file stays as it is (the strictest settings are in force until it is fixed).
        let loaded = Settings.loadChecked(dataDirectory)
        guard loaded.damagedPath == nil else { return 0 }
        var settings = loaded.settings
        let (catalog, twoFactor) = try Catalogues.load(directory: dataDirectory)
        guard let newest = catalog.snapshotDate else { return 0 }
        let mark = Int(newest.timeIntervalSince1970)
        guard let seen = settings.breachesSeenUntil else {
            settings.breachesSeenUntil = mark
            try settings.save(dataDirectory)
            return 0
        }
        let fresh = catalog.breaches.filter { Int($0.addedDate.timeIntervalSince1970) > seen }
        guard !fresh.isEmpty else { return 0 }
        try DomainRules.checkAvailability()
        let report = SecurityCheck.run(
            SecurityCheckInput(
                vault: vault, now: now(), breaches: BreachCatalog(breaches: fresh), twoFactor: twoFactor, domains: DomainRules.shared, breachCheckEnabled: false,
                strengthMemo: strengthMemo))
        settings.breachesSeenUntil = max(seen, mark)
        try settings.save(dataDirectory)
        return Set(report.findings.filter { $0.kind == .breachedWebsite && !$0.isDismissed }.map(\.itemID)).count
    }
}
