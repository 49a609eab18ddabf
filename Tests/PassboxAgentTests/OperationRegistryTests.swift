import Foundation
import PassboxAgent
import PassboxProtocol
import PassboxService
import PassboxTestKit
import Testing

/// Operations are types registered once: every one has a handler, the web page's reach is a pinned
/// allow-list, docs/PROTOCOL.md's table is generated from the registry, and sides of different builds
/// negotiate rather than refuse each other.
@Suite struct OperationRegistryTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func everyOperationIsRegisteredOnceAndHasAHandler() {
        let registered = OperationRegistry.current.specs.map(\.name)
        #expect(Set(registered).count == registered.count)
        #expect(Set(registered) == Set(OperationName.allCases), "an operation name without a registered operation, or the reverse")
        // `hello` is answered by the socket and web servers; every other operation by exactly one layer's table.
        #expect(AgentDaemon.handledOperations.union([.hello]) == Set(registered))
    }

    @Test func theWebPagesAllowListIsPinned() {
        let web = OperationRegistry.current.allowed(on: .web)
        print("operations the web page may call (\(web.count)): \(web.joined(separator: " "))")
        #expect(
            web == [
                "account-activity", "account-password", "account-signin", "account-signout", "account-signup", "account-view", "add", "attach", "attachments", "backup-auto", "backup-make",
                "backup-password", "backup-restore", "backup-view", "breach-prefixes", "breach-ranges", "browser-pair-confirm", "browser-pairings", "browser-remove", "change-password", "change-setting", "check", "code", "copy", "create-vault", "delete",
                "delete-all-data", "detach", "device-signout", "dismiss", "duress-change", "duress-set", "edit", "erase-setting", "export-items", "field", "fill", "fix-https",
                "generate", "hello", "history", "import-items", "import-one-time-passwords", "item-open", "item-protect", "item-unprotect", "kit-confirm", "kit-pdf",
                "link-answer", "link-begin", "link-confirm", "link-finish", "link-open", "link-wait", "list",
                "lock", "move", "org-accept", "org-change", "org-show", "quick-unlock", "read-qr", "recovery-setup", "resolve", "restore-version", "save-attachment", "search", "security-code",
                "set-one-time-password", "settings", "sharing", "show", "status",
                "strength", "sync", "trash-delete", "trash-empty", "trash-list", "trash-restore", "two-factor-confirm", "two-factor-disable", "two-factor-enrol", "unlock",
                "vault-create", "vault-delete", "vault-edit", "vault-list",
            ])
        #expect(OperationRegistry.current.allowed(on: [.socket, .browser]) == OperationName.allCases.map(\.rawValue).sorted())
    }

    /// What `passbox browser-host` lets the extension call (before the handshake only hello, pairing and the
    /// handshake itself): no item's secret but through `browser-fill`, nothing that names a file, no setting; the
    /// passkey operations sign with a key that never leaves the agent (issue 35).
    @Test func theExtensionsAllowListIsPinned() {
        #expect(
            OperationRegistry.current.allowed(on: .browser) == [
                "browser-candidates", "browser-challenge", "browser-fill", "browser-generate", "browser-offer", "browser-pair-begin", "browser-passkey-create",
                "browser-passkey-sign", "browser-passkeys", "browser-prove", "browser-save", "browser-search", "browser-session", "hello", "lock", "quick-unlock",
                "status", "unlock",
            ])
        #expect(!OperationRegistry.current.allowed(on: .web).contains { $0.hasPrefix("browser-") && !["browser-pair-confirm", "browser-pairings", "browser-remove"].contains($0) })
    }

    @Test func theProtocolDocumentIsGeneratedFromTheRegistry() throws {
        let url = Self.root.appendingPathComponent("docs/PROTOCOL.md")
        let text = try String(contentsOf: url, encoding: .utf8)
        let updated = try #require(OperationsDocument.updating(text), "docs/PROTOCOL.md lacks the generated operations markers")
        if ProcessInfo.processInfo.environment["PASSBOX_WRITE_PROTOCOL_DOC"] == "1", updated != text {
            try updated.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        #expect(updated == text, "docs/PROTOCOL.md's operations table is stale: run make protocol-doc")
        for spec in OperationRegistry.current.specs {
            #expect(!spec.reply.isEmpty, "\(spec.name.rawValue) has no reply described")
        }
    }

    /// An in-process agent (the real handlers over a temporary data directory) whose socket serves `registry`.
    func startAgent(_ registry: OperationRegistry) throws -> (TemporaryDirectory, AgentServer) {
        let dir = try TemporaryDirectory("passbox-registry")
        let daemon = AgentDaemon(dataDirectory: dir.path + "/data", testCheapKDF: true)
        let server = AgentServer(socketPath: dir.path + "/s/agent.sock", registry: registry) { daemon.handle($0) }
        try server.bind()
        Thread.detachNewThread { server.serve() }
        return (dir, server)
    }

    @Test func anAgentWithoutAnOperationServesEveryOtherAndSaysWhichItLacks() throws {
        let (dir, server) = try startAgent(OperationRegistry.current.removing([.generate]))
        defer { withExtendedLifetime(dir) {} }
        let generate = Request.generate(GeneratorRequest(length: 20))
        #expect(
            try AgentClient.send(generate, socketPath: server.socketPath)
                == .failure(ProtocolError(.unsupported, ["operation": "generate", "agent": String(ProtocolVersion.current)])))
        // Everything both know works.
        #expect(try #require(try AgentClient.send(.status, socketPath: server.socketPath)).status().unlocked == false)
        #expect(try #require(try AgentClient.send(.strength(StrengthRequest(password: SecretText("correct horse"), userInputs: [])), socketPath: server.socketPath)).strength().score >= 0)
        // hello: the client names what it knows; the agent answers its generation, its operations and the client's it lacks.
        let hello = try #require(try AgentClient.send(.hello(HelloRequest(operations: OperationName.allCases.map(\.rawValue))), socketPath: server.socketPath)).answer(HelloReply.self)
        #expect(hello.version == ProtocolVersion.current && hello.oldest == ProtocolVersion.oldest)
        #expect(hello.missing == ["generate"] && !hello.operations.contains("generate") && hello.operations.contains("strength"))
    }

    @Test func aClientWithoutAnOperationWorksWithTodaysAgent() throws {
        let (dir, server) = try startAgent(.current)
        defer { withExtendedLifetime(dir) {} }
        // A client built before `strength` existed: it asks what the agent has, and uses what both know.
        let client = OperationRegistry.current.removing([.strength])
        let hello = try #require(try AgentClient.send(.hello(HelloRequest(operations: client.specs.map(\.name.rawValue))), socketPath: server.socketPath)).answer(HelloReply.self)
        #expect(hello.missing.isEmpty && hello.operations.contains("strength"))
        #expect(Set(client.specs.map(\.name.rawValue)).isSubset(of: Set(hello.operations)))
        for request in [Request.status, .settings, .generate(GeneratorRequest(length: 16))] {
            #expect(client.knows(request.operation))
            let reply = try #require(try AgentClient.send(request, socketPath: server.socketPath))
            #expect(reply.kind != .failure, "\(request.operation.rawValue): \(reply)")
        }
        // A frame that says a newer generation is served too.
        let frame = try ProtocolCoding.wireEncodeRequest(RequestFrame(.settings, version: ProtocolVersion.current + 1))
        let fd = try #require(UnixSocket.connect(to: server.socketPath))
        defer { close(fd) }
        try Framing.writeFrame(fd, frame)
        #expect(try AgentClient.decodeReply(try Framing.readFrame(fd)).kind == .settings)
    }
}
