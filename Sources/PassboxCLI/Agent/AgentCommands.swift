import Foundation
import PassboxAgent
import PassboxCore
import PassboxStore

/// The client side of the agent: which commands it serves, starting it, and `unlock`, `lock`, `status`.
enum AgentCommands {
    /// Commands that need the vault: served by the agent when one runs.
    static let served: Set<String> = [
        "list", "ls", "show", "get", "add", "edit", "rm", "delete", "trash", "history", "search", "find", "totp", "otp",
        "check", "fill", "passwd", "read",
    ]

    static func socketPath(_ context: Context) -> String { AgentPaths.socketPath(dataDirectory: context.dataDirectory) }

    /// Runs `argv` in the agent if one is listening; nil when none is (the caller then works locally).
    static func forward(_ argv: [String], _ context: Context) throws -> Int32? {
        // No agent: leave standard input untouched for the local command.
        guard let probe = UnixSocket.connect(to: socketPath(context)) else { return nil }
        close(probe)
        var message: [String: Any] = ["op": "run", "argv": argv, "language": context.language.rawValue, "colors": Console.colors]
        if !context.input.isTerminal {
            // Standard input is a pipe or file: send its lines (secrets included) over the 0600 socket.
            var lines = [String]()
            while let line = context.input.readLine() { lines.append(line) }
            message["stdin"] = lines
        }
        let reply: [String: Any]?
        do {
            reply = try AgentClient.send(message, socketPath: socketPath(context)) { prompt, secret in
                if prompt.isEmpty { return context.input.readLine() }
                return try? context.input.secret(prompt: prompt)
            }
        } catch {
            throw CLIError.failure("the agent did not answer", hint: "stop it with \"passbox lock --stop\" and run the command again")
        }
        guard let reply else { return nil }
        if reply["type"] as? String == "error" {
            throw CLIError(message: reply["message"] as? String ?? "the agent refused the request", hint: reply["hint"] as? String, code: CLIError.Code(rawValue: Int32(reply["exit"] as? Int ?? 1)) ?? .failure)
        }
        Console.write(reply["stdout"] as? String ?? "", error: false)
        Console.write(reply["stderr"] as? String ?? "", error: true)
        return Int32(reply["exit"] as? Int ?? 1)
    }

    static func status(_ context: Context) throws -> [String: Any]? {
        try AgentClient.send(["op": "status", "language": context.language.rawValue], socketPath: socketPath(context)) { _, _ in nil }
    }

    /// `passbox unlock [--quick | --master]`: starts the agent if none runs and unlocks it — with the login
    /// password (quick unlock) when the agent offers it, else with the master password. The CLI says why quick
    /// unlock is not offered when it was on.
    static func unlock(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: "passbox unlock [--quick | --master]")
        guard context.store.exists else { throw StoreError.noVault(path: context.store.vaultPath) }
        let current = try status(context)
        if let current, current["unlocked"] as? Bool == true {
            Console.out("Already unlocked.")
            return
        }
        let quick = current?["quickUnlock"] as? [String: Any]
        if !args.flag("master"), let quick, quick["offered"] as? Bool == true {
            let user = quick["user"] as? String ?? "this user"
            let login = try context.input.secret(prompt: "Login password for \(user) (quick unlock; passbox unlock --master asks for the vault password): ")
            guard let reply = try AgentClient.send(["op": "quick-unlock", "loginPassword": login, "language": context.language.rawValue], socketPath: socketPath(context), input: { _, _ in nil }) else {
                throw CLIError.failure("the agent stopped while unlocking", hint: "run \"passbox unlock\" again")
            }
            let code = Int32(reply["exit"] as? Int ?? 1)
            if code != 0 {
                Console.write(reply["stderr"] as? String ?? "", error: true)
                throw ExitCode(code)
            }
            Console.out("Unlocked with your login password (quick unlock).")
            return
        }
        if let quick, let reason = quick["reason"] as? String {
            if args.flag("quick") {
                throw CLIError(message: Localization.tr("quickUnlock.notOffered", context.language, ["reason": reason]), hint: "run \"passbox unlock\" and type the master password", code: .authentication)
            }
            // Say why only where quick unlock could be used and was not turned off.
            if !args.flag("master"), quick["available"] as? Bool == true, Settings.load(context.dataDirectory).quickUnlock != false {
                Console.err("passbox: \(Localization.tr("quickUnlock.notOffered", context.language, ["reason": reason])).")
            }
        } else if args.flag("quick") {
            throw CLIError(message: Localization.tr("quickUnlock.notOffered", context.language, ["reason": Localization.tr("quickUnlock.noAgent", context.language)]), hint: "run \"passbox unlock\" and type the master password", code: .authentication)
        }
        let password = try context.input.secret(prompt: "Vault password: ")
        if current == nil { try start(context, testAutoLock: args.value("test-auto-lock-seconds"), pamService: args.value("pam-service")) }
        var message: [String: Any] = ["op": "unlock", "password": password]
        if let seconds = args.value("test-auto-lock-seconds").flatMap(Double.init) { message["testAutoLockSeconds"] = seconds }
        guard let reply = try AgentClient.send(message, socketPath: socketPath(context), input: { _, _ in nil }) else {
            throw CLIError.failure("the agent stopped while unlocking", hint: "run \"passbox unlock\" again")
        }
        let code = Int32(reply["exit"] as? Int ?? 1)
        if code != 0 {
            Console.write(reply["stderr"] as? String ?? "", error: true)
            throw ExitCode(code)
        }
        let minutes = Settings.load(context.dataDirectory).autoLockMinutes ?? AutoLock.default.rawValue
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
            if try status(context) != nil { return }
            usleep(10_000)
        }
        throw CLIError.failure("the agent did not start", hint: "run \"passbox agent\" in a terminal to see why")
    }

    /// `passbox lock [--stop]`: locks the agent (and with `--stop` ends it).
    static func lock(_ context: Context, _ args: Arguments) throws {
        guard let s = try status(context) else {
            Console.out("No agent is running; the vault is locked.")
            return
        }
        _ = try AgentClient.send(["op": "lock", "forget": args.flag("forget")], socketPath: socketPath(context)) { _, _ in nil }
        if args.flag("stop"), let pid = s["pid"] as? Int { kill(pid_t(pid), SIGTERM) }
        Console.out("Locked.")
    }

    /// `passbox status [--json]`
    static func status(_ context: Context, _ args: Arguments) throws {
        let s = try status(context)
        let unlocked = s?["unlocked"] as? Bool ?? false
        if args.flag("json") {
            Console.out(Format.json(["agent": s != nil, "unlocked": unlocked, "vault": context.store.vaultPath, "locksInSeconds": s?["locksInSeconds"] ?? NSNull(), "lockSignals": s?["lockSignals"] ?? NSNull(), "quickUnlock": s?["quickUnlock"] ?? NSNull()]))
        } else if let s, unlocked {
            let seconds = s["locksInSeconds"] as? Int ?? 0
            Console.out("Unlocked: \(context.store.vaultPath)")
            Console.out("Locks in \(seconds / 60) min \(seconds % 60) s without use.")
            if let signals = s["lockSignals"] as? String { Console.out("Session lock and sleep: \(signals)") }
        } else if let s, let quick = s["quickUnlock"] as? [String: Any] {
            Console.out("Locked: \(context.store.vaultPath)")
            if quick["offered"] as? Bool == true {
                Console.out("Quick unlock is offered: passbox unlock asks for the login password of \(quick["user"] as? String ?? "this user").")
            } else if let reason = quick["reason"] as? String {
                Console.out("Quick unlock is not offered: \(reason).")
            }
        } else {
            Console.out("Locked: \(context.store.vaultPath)\(s == nil ? " (no agent running)" : "")")
        }
        if !unlocked { throw ExitCode(3) }
    }
}

/// Ends the command with an exit code whose message was already printed.
struct ExitCode: Error {
    let code: Int32
    init(_ code: Int32) { self.code = code }
}
