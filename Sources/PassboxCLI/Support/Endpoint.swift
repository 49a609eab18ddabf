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
    private(set) lazy var agentIsRunning: Bool = UnixSocket.connect(to: socketPath).map { close($0); return true } ?? false

    init(_ context: Context) { self.context = context }

    var socketPath: String { AgentPaths.socketPath(dataDirectory: context.dataDirectory) }

    /// Makes `operation` answerable: without an agent, a vault operation asks for the vault password (the
    /// first line of standard input when it is not a terminal) and unlocks here. Call it before reading the
    /// command's own secrets, so the vault password comes first.
    func prepare(_ operation: OperationName) throws {
        guard operation.needsVault, !agentIsRunning else { return }
        let service = localService()
        guard !service.isUnlocked else { return }
        guard service.store.exists else { throw ProtocolError(.noVault, ["path": service.store.vaultPath]) }
        let password = try context.input.secret(prompt: "Vault password: ")
        try service.unlock(password: password)
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
        if agentIsRunning {
            do {
                // The agent ended since this command began (locked and stopped): the vault is locked.
                guard let answer = try AgentClient.send(request, socketPath: socketPath) else { throw ProtocolError(.locked) }
                reply = answer
            } catch let e as ProtocolError {
                throw e
            } catch {
                throw CLIError.failure("the agent did not answer", hint: "stop it with \"passbox lock --stop\" and run the command again")
            }
        } else {
            try prepare(request.operation)
            reply = localService().handle(request)
        }
        return try reply.get()
    }
}
