import Foundation
import PassboxClient
import PassboxCrypto
import PassboxProtocol
import PassboxStore

/// The service behind every surface for one data directory: answers `PassboxProtocol` requests, holding
/// the `VaultSession` while the vault is unlocked. The agent runs one for as long as it lives; the CLI
/// without an agent runs one for a single command. Used by one caller at a time.
public final class VaultService: @unchecked Sendable {
    // @unchecked: used from one thread at a time (the agent's serial queue, or the CLI's main thread).
    public let dataDirectory: String
    /// The vault served: the account's when this device is signed in to one, else the local vault. Chosen
    /// again whenever it is locked, so an agent started before a sign-in (or a sign-out) serves what the data
    /// directory holds now.
    public private(set) var store: VaultStore
    private let storeGiven: Bool
    public private(set) var session: VaultSession? { didSet { generation &+= 1 } }
    /// Whether a sync of this service checked that the server holds this device's signed record (issue 33; syncs
    /// run one at a time).
    var checkedOwnRecord = false
    /// A blob the agent downloaded off its queue for the request it is answering (`fetchBlob` installs it).
    public var prefetchedBlob: (id: String, bytes: [UInt8])?
    /// Changes whenever the session does (unlock, lock, sign-in): a sync's step that finds another one than
    /// the sync began with was overtaken by a lock, and drops what it carries.
    public private(set) var generation: UInt64 = 0
    /// What one sync may pull (pages, records, bytes, time); tests lower them.
    public var syncLimits = SyncLimits()
    let now: () -> Date
    /// Why quick unlock cannot be turned on here (no PAM service), asked when the setting is changed.
    public var quickUnlockUnavailable: () -> String? = { nil }

    public init(dataDirectory: String, store: VaultStore? = nil, now: @escaping () -> Date = Date.init) {
        self.dataDirectory = dataDirectory
        self.store = store ?? VaultStore.serving(dataDirectory)
        storeGiven = store != nil
        self.now = now
    }

    /// Chooses the vault served again while locked (see `store`).
    public func refreshStore() {
        guard session == nil, !storeGiven else { return }
        store = VaultStore.serving(dataDirectory)
    }

    public var isUnlocked: Bool { session != nil }

    /// Answers a request; every error becomes a `.failure` with its code and facts.
    public func handle(_ request: Request) -> Reply {
        do {
            return try perform(request)
        } catch {
            return .failure(ProtocolError.from(error))
        }
    }

    /// Build the search index as part of unlocking (the agent: its first search is as fast as the next, and
    /// the memory it holds while unlocked is known from the start). A single command in process leaves it
    /// to the first search, which most commands never make.
    public var buildsSearchIndexAtUnlock = false

    func openSession(_ opened: OpenVault) throws -> VaultSession {
        let session = try VaultSession(opened: opened, dataDirectory: dataDirectory, now: now)
        if buildsSearchIndexAtUnlock { session.prepareSearchIndex() }
        if opened.isAccountVault { session.blobFetcher = { [weak self] in try self?.fetchBlob($0) } }
        return session
    }

    public func perform(_ request: Request) throws -> Reply {
        refreshStore()
        guard let reply = try Self.operations.answer(self, request) else {
            throw ProtocolError(.badRequest, ["reason": "\(request.operation.rawValue) is answered by the agent only"])
        }
        return reply
    }

    /// Every operation the service answers (the agent adds its own): one lookup.
    static let operations: OperationTable<VaultService> = {
        var t = OperationTable<VaultService>()
        t.on(Operations.status) { v, _ in v.status() }
        t.on(Operations.unlock) { v, r in
            _ = try v.unlock(password: r.password)
            return Done()
        }
        t.on(Operations.quickUnlock) { _, _ in throw ProtocolError(.quickUnlockNotOffered, ["reason": "quickUnlock.noAgent"]) }
        t.on(Operations.lock) { v, _ in
            v.lock()
            return Done()
        }
        t.on(Operations.changePassword) { v, r in
            try v.changePassword(current: r.current, new: r.new)
            return Done()
        }
        t.on(Operations.generate) { _, r in try Tools.generate(r) }
        t.on(Operations.browserGenerate) { _, _ in try Tools.generate(GeneratorRequest()) }
        t.on(Operations.strength) { _, r in try Tools.strength(r.password.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }, userInputs: r.userInputs) }
        t.on(Operations.settings) { v, _ in v.settingsView() }
        t.on(Operations.changeSetting) { v, r in try v.changeSetting(r) }
        t.on(Operations.sync) { v, r in try v.sync(takeNotices: r.takeNotices) }
        t.on(Operations.vaultList) { v, _ in try v.vaultList() }
        t.on(Operations.createVault) { v, r in
            // The onboarding screen: the same rules and cost as `passbox init`.
            let password = r.password.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
            _ = try v.create(password: password, parameters: try v.newVaultParameters())
            return Done()
        }
        t.on(Operations.backupPassword) { v, r in try v.openSession().setBackupPassword(r, parameters: v.backupParameters) }
        t.on(Operations.exportItems) { v, r in try v.openSession().exportItems(r, parameters: v.exportParameters) }
        addCoercion(to: &t)
        addAccount(to: &t)
        t.include(VaultSession.operations) { v, answer in
            let session = try v.openSession()
            // A hidden item a request names by its id is exposed to that request's change only.
            session.exposing = []
            defer { session.exposing = [] }
            do {
                return try answer(session)
            } catch {
                // A failed change that could not be undone in memory: lock rather than serve a wrong vault.
                if session.isUnusable { v.lock() }
                throw error
            }
        }
        return t
    }()

    /// The operations the service (with the open vault) answers.
    public static var handledOperations: Set<OperationName> { Set(operations.handlers.keys) }

    /// The open vault's session, or `locked`.
    func openSession() throws -> VaultSession {
        guard let session else { throw ProtocolError(.locked) }
        return session
    }

    /// `status` without an agent.
    func status() -> StatusReply {
        let settings = Settings.load(dataDirectory)
        var reply = StatusReply(
            unlocked: isUnlocked, vault: store.vaultPath, locksInSeconds: 0, autoLockMinutes: settings.effectiveAutoLockMinutes, pid: Int(getpid()),
            lockSignals: "", quickUnlock: QuickUnlockView(offered: false, reason: "quickUnlock.noAgent", days: nil, available: false, user: nil))
        reply.sync = syncStatus()
        reply.account = AccountOperations.brief(dataDirectory)
        addBackupStatus(&reply)
        return reply
    }

    /// The open vault's last backup and whether it has a backup password (nothing while locked).
    public func addBackupStatus(_ reply: inout StatusReply) {
        guard let session else { return }
        reply.lastBackup = session.vault.backup?.lastBackup
        reply.backupPasswordSet = session.vault.backup != nil
    }

    // MARK: Locking

    /// Unlocks with the vault password; hands back its Argon2id output (the agent may keep it sealed for
    /// quick unlock; never the password itself).
    @discardableResult
    public func unlock(password: SecretText) throws -> SecretBytes {
        refreshStore()
        if !store.exists, store.isAccountVault {
            // Signed in before this device kept the account's vault: made now, from the opened keyset.
            let opened = try store.createAccountVault(password: Self.lockedCopy(password))
            session = try openSession(opened)
            try installSyncKeys(password: Self.lockedCopy(password))
            return try store.unlockKeepingKey(password: Self.lockedCopy(password)).passwordKey
        }
        try store.finishInterruptedErase()
        guard store.exists else { throw StoreError.noVault(path: store.vaultPath) }
        let (opened, key) = try store.unlockKeepingKey(password: Self.lockedCopy(password))
        session = try openSession(opened)
        if store.isAccountVault, opened.vault.sync?.boxKey == nil { try installSyncKeys(password: Self.lockedCopy(password)) }
        return key
    }

    /// Unlocks with a password key kept from an earlier unlock (quick unlock), skipping Argon2id.
    public func unlock(passwordKey: SecretBytes) throws {
        let opened = try store.unlock(passwordKey: passwordKey)
        session = try openSession(opened)
    }

    /// Drops the session: its keys are `SecretBytes`, which sodium wipes when released.
    public func lock() {
        session = nil
    }

    /// Changes the vault password. Without a session the check is a counted unlock attempt, as with one.
    public func changePassword(current: SecretText, new: SecretText) throws {
        guard store.exists else { throw StoreError.noVault(path: store.vaultPath) }
        let (current, new) = (Self.lockedCopy(current), Self.lockedCopy(new))
        if let session {
            try session.changePassword(current: current, new: new)
        } else {
            try store.changePassword(current: current, new: new)
        }
    }

    /// A password's bytes moved into locked memory for the store (both copies are wiped when released).
    static func lockedCopy(_ secret: SecretText) -> SecretBytes {
        secret.withUnsafeBytes { SecretBytes(copying: $0) }
    }

    /// The key-derivation cost of a vault made through `create-vault`: measured on this machine (about a
    /// second), or, for an agent started with the debug build's test option, the cheapest.
    public var newVaultParameters: () throws -> Argon2Parameters = { try Argon2Calibration.calibrate().parameters }

    /// The backup password's derivation: security.md §8's (512 MiB × 32 × 4), or, for the debug build's
    /// test option only, the cheapest (G55: no surface can choose it).
    public var backupParameters = BackupFile.parameters

    /// A KeePass export's key derivation: Argon2id 256 MiB × 4 passes × 2 lanes (about half a second here, the
    /// local vault's floor; KeePassXC opens it as it is), or the cheapest for the debug build's test option.
    public var exportParameters = Argon2Parameters(memoryKiB: 256 * 1024, passes: 4, lanes: 2)

    /// Creates the local vault.
    public func create(password: String, parameters: Argon2Parameters) throws -> Argon2Parameters {
        let opened = try store.create(password: password, parameters: parameters)
        session = try openSession(opened)
        return opened.kdfParameters
    }

    // MARK: Settings

    func settingsView() -> SettingsView {
        let loaded = Settings.loadChecked(dataDirectory)
        let s = loaded.settings
        var view = SettingsView(
            autoLockMinutes: s.effectiveAutoLockMinutes, quickUnlock: s.quickUnlock, reminderDays: s.effectiveReminderDays, breachCheck: s.breachCheck,
            rangeURL: s.rangeURL ?? PwnedPasswordsClient.defaultRangeURL, damagedFile: loaded.damagedPath)
        view.clipboardSeconds = s.effectiveClipboardSeconds
        view.webLanguage = s.webLanguage.flatMap { Settings.webLanguages.contains($0) ? $0 : nil }
        view.webTheme = s.webTheme.flatMap { Settings.webThemes.contains($0) ? $0 : nil }
        view.webShortcuts = s.webShortcuts ?? true
        view.eraseAfterFailures = store.isAccountVault ? nil : ((try? store.attempts.eraseIsOn()) ?? false)
        view.breachCatalogueURL = s.breachCatalogueURL
        return view
    }

    func changeSetting(_ r: SettingRequest) throws -> SettingsView {
        var settings = Settings.load(dataDirectory)
        let invalid = ProtocolError(.invalidSetting, ["name": r.name, "value": String(r.value.prefix(80))])
        switch r.name {
        case "auto-lock":
            guard let minutes = Int(r.value), Settings.autoLockChoices.contains(minutes) else { throw invalid }
            settings.autoLockMinutes = minutes
        case "quick-unlock":
            guard ["on", "off"].contains(r.value) else { throw invalid }
            if r.value == "on", let why = quickUnlockUnavailable() { throw ProtocolError(.quickUnlockUnavailable, ["reason": why]) }
            settings.quickUnlock = r.value == "on"
        case "reminder":
            guard let days = r.value == "never" ? 0 : Int(r.value), Settings.reminderChoices.contains(days) else { throw invalid }
            settings.reminderDays = days
        case "breach-check":
            guard ["on", "off"].contains(r.value) else { throw invalid }
            settings.breachCheck = r.value == "on"
        case "clipboard":
            guard let seconds = Int(r.value), Settings.clipboardRange.contains(seconds) else { throw invalid }
            settings.clipboardSeconds = seconds
        case "web-language":
            guard Settings.webLanguages.contains(r.value) else { throw invalid }
            settings.webLanguage = r.value
        case "web-theme":
            guard Settings.webThemes.contains(r.value) else { throw invalid }
            settings.webTheme = r.value
        case "web-shortcuts":
            guard ["on", "off"].contains(r.value) else { throw invalid }
            settings.webShortcuts = r.value == "on"
        case "range-url":
            guard PwnedPasswordsClient.isAllowed(r.value) else { throw invalid }
            settings.rangeURL = r.value
        case "breach-catalogue":
            // on: Have I Been Pwned's list; off; or an address of one's own (https, or http on this machine).
            switch r.value {
            case "off": settings.breachCatalogueURL = nil
            case "on": settings.breachCatalogueURL = Settings.defaultBreachCatalogueURL
            default:
                guard PwnedPasswordsClient.isAllowed(r.value) else { throw invalid }
                settings.breachCatalogueURL = r.value
            }
        default:
            throw ProtocolError(.unknownSetting, ["name": r.name])
        }
        try settings.save(dataDirectory)
        return settingsView()
    }
}
