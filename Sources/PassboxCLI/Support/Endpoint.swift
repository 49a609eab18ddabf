import Foundation
import PassboxAgent
import PassboxProtocol
import PassboxService
import PassboxStore

/// Where a command's requests go: the running agent, or — when none runs — a `VaultService` in this
/// process that is unlocked with the vault password for this one command. Both answer the same
/// `PassboxProtocol` values; nothing here reads printed text.
final class Endpoint {
    let context: Context
    private var local: VaultService?
    /// A connection made to learn whether an agent runs, kept for the first request when that follows at
    /// once (one connection fewer); the agent drops a silent connection after 10 s, so an older one (a person
    /// was typing) is closed and a new one made.
    private var probe: Int32?
    private var probedAt = timespec()
    private(set) lazy var agentIsRunning: Bool = {
        probe = UnixSocket.connect(to: socketPath)
        clock_gettime(CLOCK_MONOTONIC, &probedAt)
        return probe != nil
    }()

    var probeIsFresh: Bool {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec - probedAt.tv_sec < 2
    }

    deinit { if let probe { close(probe) } }

    init(_ context: Context) { self.context = context }

    var socketPath: String { AgentPaths.socketPath(dataDirectory: context.dataDirectory) }

    /// Makes `operation` answerable: without an agent, a vault operation asks for the vault password (the
    /// first line of standard input when it is not a terminal) and unlocks here. Call it before reading the
    /// command's own secrets, so the vault password comes first.
    func prepare(_ operation: OperationName) throws {
        guard operation.needsVault, !agentIsRunning else { return }
        let service = localService()
        guard !service.isUnlocked else { return }
        guard service.store.exists || service.store.isAccountVault else { throw ProtocolError(.noVault, ["path": service.store.vaultPath]) }
        try service.unlock(password: try context.input.secretText(prompt: service.store.isAccountVault ? "Master password: " : "Vault password: "))
    }

    func localService() -> VaultService {
        if let local { return local }
        let service = VaultService(dataDirectory: context.dataDirectory)
        service.quickUnlockUnavailable = { SystemAuthentication.unavailability(service: SystemAuthentication.defaultService) }
        local = service
        return service
    }

    /// Sends `request` and returns the reply; a failure is thrown as its `ProtocolError`.
    @discardableResult
    func send(_ request: Request) throws -> Reply {
        let reply: Reply
        // The item limits are checked here too, so a value too large for the agent's frame is named as such.
        try request.body(Operations.add)?.changes.checkLimits()
        try request.body(Operations.edit)?.changes.checkLimits()
        if agentIsRunning {
            do {
                // The agent ended since this command began (locked and stopped): the vault is locked.
                var connected = probe
                probe = nil
                if let stale = connected, !probeIsFresh {
                    close(stale)
                    connected = nil
                }
                let sent: Reply?
                do {
                    sent = try connected.map { try AgentClient.send(request, connected: $0) } ?? AgentClient.send(request, socketPath: socketPath)
                } catch {
                    // The agent went away between the probe and the request: it ended, so the vault is locked.
                    // (Nothing is sent again: a request it may have read is never repeated.)
                    guard let fd = UnixSocket.connect(to: socketPath) else { throw ProtocolError(.locked) }
                    close(fd)
                    throw error
                }
                guard let answer = sent else { throw ProtocolError(.locked) }
                reply = answer
            } catch let e as ProtocolError {
                throw e
            } catch Framing.FrameError.oversized(let bytes) {
                throw CLIError.failure(
                    "the request is \(bytes) bytes, more than the \(Framing.maximumFrame) the agent takes; nothing was sent",
                    hint: "shorten the values; notes and fields hold at most 2 MiB")
            } catch {
                throw CLIError.failure("the agent did not answer", hint: "stop it with \"passbox lock --stop\" and run the command again")
            }
        } else {
            if let current = request.currentPassword, !localService().isUnlocked, localService().store.exists {
                // The tenth attempt in a row is left to the unlock prompt (G20), here too.
                try localService().store.attempts.refuseTenthOutsideUnlock()
                // Without an agent the vault is opened with the password the command just asked for (one prompt).
                try localService().unlock(password: current)
            }
            try prepare(request.operation)
            reply = localService().handle(request)
        }
        if case .failure(let e) = reply, e.code == .unsupported, let spec = OperationRegistry.current.spec(request.operation) {
            // The agent lacks the operation: this client knows the generation that has it.
            throw e.adding(["since": String(spec.since)])
        }
        return try reply.get()
    }
}
