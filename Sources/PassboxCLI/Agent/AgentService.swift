import Foundation
import PassboxAgent
import PassboxCore
import PassboxCrypto
import PassboxStore

/// Input inside the agent: the lines the client sent (when its standard input is not a terminal), or
/// prompts answered on the client's terminal.
final class RemoteInput: InputSource {
    private var lines: [String]
    private let request: AgentRequest
    let isTerminal: Bool

    init(lines: [String]?, request: AgentRequest) {
        self.lines = lines ?? []
        self.request = request
        isTerminal = lines == nil
    }

    func readLine() -> String? {
        if isTerminal { return try? request.prompt("", secret: false) }
        return lines.isEmpty ? nil : lines.removeFirst()
    }

    func readRest() -> String {
        var out = [String]()
        while let line = readLine() { out.append(line) }
        return out.joined(separator: "\n")
    }

    func secret(prompt: String) throws -> String {
        if isTerminal {
            guard let line = try request.prompt(prompt, secret: true) else { throw CLIError.failure("no input", hint: "type the value at the prompt") }
            return line
        }
        guard let line = readLine() else {
            throw CLIError.usage("expected a line on standard input for \(prompt.trimmingCharacters(in: CharacterSet(charactersIn: ": ")).lowercased())", hint: "pipe the value on standard input, or run in a terminal")
        }
        return line
    }
}

/// The agent: holds the one unlocked vault in memory, serves commands over its socket, and locks after the
/// idle time, on `passbox lock`, on SIGTERM/SIGINT, and on exit.
final class AgentService: @unchecked Sendable {
    // @unchecked: every field is used only on `server.queue`.
    let dataDirectory: String
    var testAutoLockSeconds: Double?
    var opened: OpenVault?
    var idle = IdleDeadline(interval: AutoLock.default.seconds, now: Date())
    var unlockedAt: Date?
    lazy var store = VaultStore(directory: dataDirectory)
    var searchCache: (generation: ObjectIdentifier, items: Int, index: SearchIndex)?
    /// What the logind watch reports: what it watches, or why it cannot.
    var lockSignals = "starting"

    /// Quick unlock: the Argon2id output of the last typed master password, sealed; the moment and boot it
    /// was typed in; the policy fixed at that moment (a later settings change cannot widen it).
    var sealedKey: SealedSecret?
    var passwordTypedAt: Date?
    var bootIDAtTyping: String?
    var policy = QuickUnlockPolicy()
    var quickUnlockFailures = 0
    let pamService: String

    init(dataDirectory: String, testAutoLockSeconds: Double?, pamService: String = SystemAuthentication.defaultService) {
        self.dataDirectory = dataDirectory
        self.testAutoLockSeconds = testAutoLockSeconds
        self.pamService = pamService
    }

    /// Whether quick unlock is wanted: the setting, else on where PAM can be used.
    var quickUnlockEnabled: Bool {
        Settings.load(dataDirectory).quickUnlock ?? (SystemAuthentication.unavailability(service: pamService) == nil)
    }

    /// Nil when quick unlock may be offered now, else why not, in the client's language.
    func quickUnlockRefusal(now: Date = Date(), language: Language = .english) -> String? {
        if let why = SystemAuthentication.unavailability(service: pamService) { return why }
        guard sealedKey != nil else {
            return Localization.tr(passwordTypedAt != nil ? "quickUnlock.noKey" : "quickUnlock.notTyped", language)
        }
        let verdict = policy.verdict(passwordTypedAt: passwordTypedAt, bootIDAtTyping: bootIDAtTyping, currentBootID: QuickUnlockPolicy.currentBootID(), now: now)
        return QuickUnlockPolicy.reason(verdict, language)
    }

    /// Opens the vault with the typed master password; keeps its Argon2id output sealed for quick unlock when
    /// that is on, and fixes the reminder policy as it is set now.
    func unlockWithMasterPassword(_ password: String) throws {
        let (o, key) = try store.unlockKeepingKey(password: password)
        opened = o
        passwordTypedAt = Date()
        bootIDAtTyping = QuickUnlockPolicy.currentBootID()
        let settings = Settings.load(dataDirectory)
        policy = QuickUnlockPolicy(reminder: QuickUnlockPolicy.Reminder(rawValue: settings.reminderDays ?? 14) ?? .days14)
        sealedKey = quickUnlockEnabled ? SealedSecret(key) : nil
        quickUnlockFailures = 0
        unlockedAt = Date()
        idle.touch(now: Date())
    }

    /// Drops the quick-unlock key too (password changed, agent stopping, too many refusals).
    func forgetQuickUnlock() {
        sealedKey = nil
        quickUnlockFailures = 0
    }

    var autoLockSeconds: Double {
        if let testAutoLockSeconds { return testAutoLockSeconds }
        return (AutoLock(rawValue: Settings.load(dataDirectory).autoLockMinutes ?? AutoLock.default.rawValue) ?? .default).seconds
    }

    func lock() {
        // Releasing the open vault releases its SecretBytes, which sodium_free wipes.
        opened = nil
        unlockedAt = nil
        searchCache = nil
    }

    func run() throws -> Never {
        ProcessHardening.disableCoreDumps()
        // A detached agent must not keep its starter's pipes and sockets open: a caller reading them would never
        // see EOF (Foundation's Process also watches a socket pair to learn that its child ended).
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            guard let fd = Int32(name), fd > 2,
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
                target.hasPrefix("pipe:") || target.hasPrefix("socket:")
            else { continue }
            close(fd)
        }
        let server = AgentServer(socketPath: AgentPaths.socketPath(dataDirectory: dataDirectory)) { [self] request in
            handle(request)
        }
        try server.bind()
        // Lock and leave on SIGTERM or SIGINT.
        for sig in [SIGTERM, SIGINT, SIGHUP] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: server.queue)
            source.setEventHandler { [self] in
                lock()
                forgetQuickUnlock()
                server.removeSocket()
                exit(0)
            }
            source.resume()
            signalSources.append(source)
        }
        // The timer fires in real time and locks at the deadline, whatever clients do.
        let timer = DispatchSource.makeTimerSource(queue: server.queue)
        timer.schedule(deadline: .now() + 0.25, repeating: 0.25)
        timer.setEventHandler { [self] in
            idle.interval = autoLockSeconds
            if opened != nil, idle.isDue(now: Date()) { lock() }
        }
        timer.resume()
        signalSources.append(timer)
        // Lock when the session locks or the machine is about to sleep (systemd-logind), where a bus exists.
        LogindWatch.start(onLock: { [self] _ in server.queue.async { self.lock() } }, onStatus: { [self] status in server.queue.async { self.lockSignals = status } })
        server.serve()
    }

    var signalSources = [any DispatchSourceProtocol]()

    func language(_ request: AgentRequest) -> Language { Language(rawValue: request.message["language"] as? String ?? "en") ?? .english }

    func reply(exit: Int32, stdout: String = "", stderr: String = "") -> [String: Any] {
        ["type": "result", "exit": Int(exit), "stdout": stdout, "stderr": stderr]
    }

    /// The OS authenticates the user (PAM); the sealed key then opens the vault without Argon2id. Three
    /// refusals drop the key: the master password is needed again.
    func quickUnlock(_ request: AgentRequest) -> [String: Any] {
        if opened != nil { return reply(exit: 0) }
        if let why = quickUnlockRefusal(language: language(request)) {
            return reply(exit: 3, stderr: "passbox: error: \(Localization.tr("quickUnlock.notOffered", language(request), ["reason": why]))\npassbox: hint: run \"passbox unlock\" and type the master password\n")
        }
        guard let login = request.message["loginPassword"] as? String, !login.isEmpty else {
            return reply(exit: 2, stderr: "passbox: error: no login password\n")
        }
        switch SystemAuthentication.authenticate(service: pamService, password: login) {
        case .accepted:
            break
        case .refused(let why):
            quickUnlockFailures += 1
            let left = 3 - quickUnlockFailures
            if left <= 0 { forgetQuickUnlock() }
            let hint = left > 0 ? "type your login password again (\(left) more tr\(left == 1 ? "y" : "ies")), or use \"passbox unlock --master\"" : "quick unlock is off until the master password is typed: run \"passbox unlock\""
            return reply(exit: 3, stderr: "passbox: error: the login password was not accepted (PAM: \(why))\npassbox: hint: \(hint)\n")
        case .unavailable(let why):
            return reply(exit: 1, stderr: "passbox: error: quick unlock cannot ask the system: \(why)\npassbox: hint: run \"passbox unlock --master\"\n")
        }
        guard let sealedKey else { return reply(exit: 3, stderr: "passbox: error: quick unlock is not offered\n") }
        do {
            let key = sealedKey.open()
            opened = try store.unlock(passwordKey: key)
            quickUnlockFailures = 0
            unlockedAt = Date()
            idle.touch(now: Date())
            return reply(exit: 0)
        } catch {
            // The slot no longer opens with this key (the password was changed elsewhere): drop it.
            forgetQuickUnlock()
            let e = CLIError.from(error)
            return reply(exit: e.code.rawValue, stderr: "passbox: error: quick unlock failed: \(e.message)\npassbox: hint: run \"passbox unlock\" and type the master password\n")
        }
    }

    func handle(_ request: AgentRequest) -> [String: Any] {
        let op = request.message["op"] as? String ?? ""
        switch op {
        case "status":
            idle.interval = autoLockSeconds
            let remaining = opened == nil ? 0 : idle.remaining(now: Date())
            return ["type": "result", "exit": 0, "unlocked": opened != nil, "vault": store.vaultPath, "locksInSeconds": Int(remaining.rounded(.up)), "pid": Int(getpid()), "lockSignals": lockSignals,
                "quickUnlock": quickUnlockRefusal(language: language(request)).map {
                    ["offered": false, "reason": $0, "available": SystemAuthentication.unavailability(service: pamService) == nil] as [String: Any]
                } ?? ["offered": true, "user": SystemAuthentication.userName() ?? ""]]
        case "unlock":
            guard let password = request.message["password"] as? String else { return reply(exit: 2, stderr: "passbox: error: no password\n") }
            do {
                try unlockWithMasterPassword(password)
                if let seconds = request.message["testAutoLockSeconds"] as? Double { testAutoLockSeconds = seconds }
                return reply(exit: 0)
            } catch {
                let e = CLIError.from(error)
                return reply(exit: e.code.rawValue, stderr: "passbox: error: \(e.message)\n" + (e.hint.map { "passbox: hint: \($0)\n" } ?? ""))
            }
        case "lock":
            lock()
            if request.message["forget"] as? Bool == true { forgetQuickUnlock() }
            return reply(exit: 0)
        case "quick-unlock":
            return quickUnlock(request)
        case "run":
            guard let argv = request.message["argv"] as? [String], let command = argv.first else { return reply(exit: 2, stderr: "passbox: error: empty command\n") }
            let capture = OutputCapture()
            capture.colors = request.message["colors"] as? Bool ?? false
            Console.capture = capture
            defer { Console.capture = nil }
            let language = language(request)
            let input = RemoteInput(lines: request.message["stdin"] as? [String], request: request)
            let context = Context(dataDirectory: dataDirectory, input: input, language: language) { [self] in
                guard let opened else { throw CLIError(message: "the vault is locked", hint: "run \"passbox unlock\"", code: .authentication) }
                return opened
            }
            // `passwd` re-keyed the slot: reopen with the new password (LCK-6: a new quick-unlock key right away).
            context.passwordChanged = { [self] new in
                do {
                    try unlockWithMasterPassword(new)
                } catch {
                    lock()
                    forgetQuickUnlock()
                    throw error
                }
            }
            var code: Int32 = 0
            do {
                try Commands.run(command, Array(argv.dropFirst()), context)
            } catch {
                let e = CLIError.from(error)
                Console.err("passbox: error: \(e.message)")
                if let hint = e.hint { Console.err("passbox: hint: \(hint)") }
                code = e.code.rawValue
            }
            idle.touch(now: Date())
            // A changed password re-keys the slot: the agent's keys are stale, so it locks.
            if autoLockSeconds == 0 { lock() }
            return reply(exit: code, stdout: capture.stdout, stderr: capture.stderr)
        default:
            return ["type": "error", "message": "unknown request \"\(op)\"", "exit": 2]
        }
    }
}
