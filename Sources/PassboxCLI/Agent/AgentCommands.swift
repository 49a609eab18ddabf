import Foundation
import PassboxAgent
import PassboxCore
import PassboxProcess
import PassboxProtocol
import PassboxService
import PassboxStore
import PassboxWording

/// The client side of the agent: starting it, and `unlock`, `lock`, `status`.
enum AgentCommands {
    static func socketPath(_ context: Context) -> String { AgentPaths.socketPath(dataDirectory: context.dataDirectory) }

    /// The agent's status; nil when none runs.
    static func status(_ context: Context) throws -> StatusReply? {
        try AgentClient.send(.status, socketPath: socketPath(context))?.status()
    }

    /// Sends a request that must reach the agent.
    static func send(_ request: Request, _ context: Context) throws -> Reply {
        guard let reply = try AgentClient.send(request, socketPath: socketPath(context)) else {
            throw CLIError.failure("the agent stopped while unlocking", hint: "run \"passbox unlock\" again")
        }
        return try reply.get()
    }

    /// `passbox agent`: the agent process itself.
    static func runAgent(_ context: Context, _ args: Arguments) throws {
        try AgentDaemon(
            dataDirectory: context.dataDirectory, testAutoLockSeconds: args.value("test-auto-lock-seconds").flatMap(Double.init),
            pamService: args.value("pam-service") ?? SystemAuthentication.defaultService, testCheapKDF: args.flag("insecure-test-kdf"),
            testCatalogueSeconds: args.value("test-catalogue-seconds").flatMap(Double.init)
        ).run()
    }

    /// `passbox ui [--no-open] [--print-url]`: starts the agent if none runs and opens the web UI in the default
    /// browser (`xdg-open`) with a one-time address. The browser is handed a 0600 file that forwards to the
    /// address, so the token is never in a program's arguments. Without a display (or with `--no-open`) the
    /// address is printed: it works once, for a minute.
    static func openUI(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: "passbox ui [--no-open] [--print-url]")
        if try status(context) == nil { try start(context, testAutoLock: nil) }
        let web = try send(.webOpen, context).web()
        if args.flag("print-url") {
            Console.out(web.url)
            return
        }
        let environment = ProcessInfo.processInfo.environment
        let hasDisplay = !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        let opener = "/usr/bin/xdg-open"
        if !args.flag("no-open"), hasDisplay, FileManager.default.isExecutableFile(atPath: opener), (try? ChildProcess.spawn([opener, web.opener], newSession: true)) != nil {
            Console.out(context.tr("ui.cli.opened", ["origin": web.origin]))
        } else {
            Console.out(context.tr("ui.cli.address", ["url": web.url]))
        }
    }

    /// `passbox unlock [--quick | --master]`: starts the agent if none runs and unlocks it — with the login
    /// password (quick unlock) when the agent offers it, else with the master password. The CLI says why quick
    /// unlock is not offered when it was on.
    static func unlock(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: "passbox unlock [--quick | --master]")
        guard context.store.exists || context.store.isAccountVault else { throw ProtocolError(.noVault, ["path": context.store.vaultPath]) }
        let current = try status(context)
        if let current, current.unlocked {
            Console.out("Already unlocked.")
            return
        }
        if !args.flag("master"), let quick = current?.quickUnlock, quick.offered {
            let user = quick.user ?? "this user"
            let login = try context.input.secretText(prompt: "Login password for \(user) (quick unlock; passbox unlock --master asks for the vault password): ")
            _ = try send(.quickUnlock(QuickUnlockRequest(loginPassword: login)), context)
            Console.out("Unlocked with your login password (quick unlock).")
            return
        }
        if let quick = current?.quickUnlock, let reasonKey = quick.reason {
            let reason = Wording.quickUnlockReason(key: reasonKey, days: quick.days.map(String.init), system: quick.user, context.language)
            if args.flag("quick") {
                throw ProtocolError(.quickUnlockNotOffered, ["reason": reasonKey, "days": quick.days.map(String.init) ?? "", "system": quick.user ?? ""])
            }
            // Say why only where quick unlock could be used and was not turned off.
            if !args.flag("master"), quick.available, Settings.load(context.dataDirectory).quickUnlock != false {
                Console.err("passbox: \(context.tr("error.quickUnlockNotOffered", ["reason": reason])).")
            }
        } else if args.flag("quick") {
            throw ProtocolError(.quickUnlockNotOffered, ["reason": "quickUnlock.noAgent"])
        }
        let password = try context.input.secretText(prompt: context.store.isAccountVault ? "Master password: " : "Vault password: ")
        if current == nil { try start(context, testAutoLock: args.value("test-auto-lock-seconds"), pamService: args.value("pam-service")) }
        _ = try send(.unlock(UnlockRequest(password: password)), context)
        let minutes = try status(context)?.autoLockMinutes ?? Settings.load(context.dataDirectory).effectiveAutoLockMinutes
        Console.out(minutes == 0 ? "Unlocked; the vault locks after every command." : "Unlocked; the vault locks after \(minutes) minute\(minutes == 1 ? "" : "s") without use (passbox lock locks it now).")
    }

    /// Starts `passbox agent` in its own session, detached, and waits for its socket.
    static func start(_ context: Context, testAutoLock: String?, pamService: String? = nil) throws {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        var arguments = [executable, "--data", context.dataDirectory, "agent"]
        if let testAutoLock { arguments += ["--test-auto-lock-seconds", testAutoLock] }
        // The PAM service is fixed when the agent starts, before any key is kept: choosing another later would
        // mean restarting the agent, which drops the key.
        if let pamService { arguments += ["--pam-service", pamService] }
        do {
            _ = try ChildProcess.spawn(arguments, newSession: true)
        } catch let e as ChildProcess.Failure {
            throw CLIError.failure("could not start the agent: \(e.description)")
        }
        for _ in 0..<200 {
            if (try? status(context)) ?? nil != nil { return }
            usleep(10_000)
        }
        throw CLIError.failure("the agent did not start", hint: "run \"passbox agent\" in a terminal to see why")
    }

    /// `passbox lock [--stop] [--forget]`: locks the agent (and with `--stop` ends it).
    static func lock(_ context: Context, _ args: Arguments) throws {
        guard let s = try? status(context) else {
            Console.out("No agent is running; the vault is locked.")
            return
        }
        _ = try AgentClient.send(.lock(LockRequest(forget: args.flag("forget"))), socketPath: socketPath(context))
        if args.flag("stop") { kill(pid_t(s.pid), SIGTERM) }
        Console.out("Locked.")
    }

    /// `passbox status [--json]`
    static func status(_ context: Context, _ args: Arguments) throws {
        let s = try status(context)
        let unlocked = s?.unlocked ?? false
        if args.flag("json") {
            struct StatusOutput: Encodable {
                var agent: Bool
                var unlocked: Bool
                var vault: String
                var status: StatusReply?
            }
            try Output.json(StatusOutput(agent: s != nil, unlocked: unlocked, vault: context.store.vaultPath, status: s))
        } else if let s, unlocked {
            Console.out("Unlocked: \(context.store.vaultPath)")
            Console.out("Locks in \(s.locksInSeconds / 60) min \(s.locksInSeconds % 60) s without use.")
            Console.out("Lock signals: \(s.lockSignals)")
            if let sync = s.sync { for line in Commands.syncStatusLines(sync, context) { Console.out(line) } }
            if let alerts = s.breachAlerts { Console.out(context.tr("status.breachAlerts", ["count": String(alerts)])) }
            if s.backupPasswordSet == true {
                Console.out("Last backup: \(s.lastBackup == nil ? "never (passbox backup --file F)" : Output.date(s.lastBackup))")
            } else if s.backupPasswordSet == false {
                Console.out("Backups: no backup password yet (passbox backup password)")
            }
        } else if let s {
            Console.out("Locked: \(context.store.vaultPath)")
            if s.quickUnlock.offered {
                Console.out("Quick unlock is offered: passbox unlock asks for the login password of \(s.quickUnlock.user ?? "this user").")
            } else if let key = s.quickUnlock.reason {
                Console.out("Quick unlock is not offered: \(Wording.quickUnlockReason(key: key, days: s.quickUnlock.days.map(String.init), system: s.quickUnlock.user, context.language)).")
            }
        } else {
            Console.out("Locked: \(context.store.vaultPath) (no agent running)")
        }
        if !unlocked { throw ExitCode(3) }
    }
}

/// Ends the command with an exit code whose message was already printed.
struct ExitCode: Error {
    let code: Int32
    init(_ code: Int32) { self.code = code }
}
