import Foundation
import PassboxProtocol
import PassboxStore
import PassboxTestKit
import Testing

/// Families and teams through the agent (what the web UI's Family & Team page sends), against a real
/// `passbox server` with two accounts in two agents: the own code and the server's check, a family made, an
/// invitation previewed and accepted from inside a mail, the member confirmed by the code the owner compares,
/// the family vault's name opened with the key the agent holds (no master password), the family vault in the
/// member's vault list after a sync, and the member removed (the keys rotate). Refusals: a wrong master
/// password (counted), a change without it, an organisation nobody knows, a link without its `#org=`.
@Suite struct AgentSharingTests {
    /// Every operation this suite sends (AgentOperationTests checks that the rest are sent there).
    static let operations: Set<OperationName> = [.sharing, .orgShow, .orgChange, .orgAccept, .securityCode]
    let master = "tulip ocean marble violin anchor"

    func signUp(_ agent: RealAgent, _ email: String, _ server: ServerProcess) throws {
        _ = try agent.send(.accountSignUp(AccountSignUpRequest(server: server.origin, email: email, password: SecretText(master)))).signedUp()
    }

    func change(_ agent: RealAgent, _ body: OrgChangeRequest) throws -> OrgReply {
        try agent.send(Request(Operations.orgChange, body)).answer(OrgReply.self)
    }

    /// Never skipped: AgentOperationTests counts on this test to send the sharing operations.
    @Test func theFamilyAndTeamPagesRequestsWorkThroughTheAgent() throws {
        let dir = try TemporaryDirectory("passbox-agent-sharing")
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir)
        let owner = try RealAgent(makeVault: false)
        let member = try RealAgent(makeVault: false)
        try signUp(owner, "owner@example.org", server)
        try signUp(member, "member@example.org", server)

        // The page opens with no organisation, the own code, and no warnings; the server publishes the same keys.
        let first = try owner.send(Request(Operations.sharing)).answer(SharingReply.self)
        #expect(first.organisations.isEmpty && first.warnings.isEmpty && first.own.email == "owner@example.org")
        #expect(first.own.securityCode.split(separator: " ").count == 12)
        let checked = try owner.send(Request(Operations.securityCode, SecurityCodeRequest(check: true))).answer(SecurityCodeReply.self)
        #expect(checked.own?.serverMatches == true && checked.own?.securityCode == first.own.securityCode)

        // Refused: a signed change without the master password, with a wrong one (counted), an unknown organisation.
        #expect(try owner.failure(Request(Operations.orgChange, OrgChangeRequest(.create, kind: "family", name: "Doe family"))).code == .badRequest)
        #expect(try owner.failure(Request(Operations.orgChange, OrgChangeRequest(.create, kind: "family", name: "Doe family", password: SecretText("not it")))).code == .wrongPassword)
        #expect(try VaultStore.serving(owner.session.data).attempts.failures() == 1)
        #expect(try owner.failure(Request(Operations.orgShow, OrgRequest(org: "nobody"))).code == .organisationNotFound)

        // A family with its vault; the vault's name is opened with the grants' key the agent keeps.
        let made = try change(owner, OrgChangeRequest(.create, kind: "family", name: "Doe family", vaultName: "Doe vault", password: SecretText(master)))
        let org = try #require(made.org)
        #expect(org.kind == "family" && org.role == "owner" && org.trusted && made.vaults.map(\.name) == ["Doe vault"])
        #expect(try VaultStore.serving(owner.session.data).attempts.failures() == 0)
        let shown = try owner.send(Request(Operations.orgShow, OrgRequest(org: "Doe family"))).answer(OrgReply.self)
        #expect(shown.org?.orgID == org.orgID && shown.vaults.first?.name == "Doe vault" && shown.vaults.first?.access == "manage")

        // An invitation (no password: nothing is signed), previewed and accepted by the member from a whole mail.
        let invited = try change(owner, OrgChangeRequest(.invite, org: org.orgID, email: "member@example.org", role: "member"))
        let link = try #require(invited.invitation?.link)
        #expect(invited.org?.invitations.map(\.email) == ["member@example.org"])
        let noFragment = String(link.prefix { $0 != "#" })
        #expect(try member.failure(Request(Operations.orgAccept, OrgAcceptRequest(text: noFragment, preview: true))).code == .invitationLinkInvalid)
        let mail = "Hello,\n\njoin us: \(link)\n\nSee you"
        let preview = try member.send(Request(Operations.orgAccept, OrgAcceptRequest(text: mail, preview: true))).answer(InvitationReply.self)
        #expect(preview.preview.name == "Doe family" && preview.preview.kind == "family" && preview.preview.owners == ["owner@example.org"] && preview.ownCode == nil)
        let joined = try member.send(Request(Operations.orgAccept, OrgAcceptRequest(text: mail, preview: false))).answer(InvitationReply.self)
        let memberCode = try member.send(Request(Operations.securityCode, SecurityCodeRequest())).answer(SecurityCodeReply.self).own?.securityCode
        #expect(joined.ownCode != nil && joined.ownCode == memberCode)
        #expect(try member.send(Request(Operations.sharing)).answer(SharingReply.self).organisations.map(\.status) == ["waiting"])

        // The owner sees the very code the member's screen shows, and confirms after comparing it.
        let waiting = try owner.send(Request(Operations.orgShow, OrgRequest(org: org.orgID))).answer(OrgReply.self)
        #expect(waiting.org?.waiting.map(\.securityCode) == [memberCode ?? ""])
        let confirmed = try change(owner, OrgChangeRequest(.confirm, org: org.orgID, email: "member@example.org", compared: true, password: SecretText(master)))
        #expect(confirmed.org?.waiting.isEmpty == true && confirmed.org?.members.first { $0.email == "member@example.org" }?.trust == "compared")
        #expect(confirmed.vaults.first?.seenBy.map(\.email).sorted() == ["member@example.org", "owner@example.org"])
        let contact = try owner.send(Request(Operations.securityCode, SecurityCodeRequest(email: "member@example.org"))).answer(SecurityCodeReply.self).contact
        #expect(contact?.securityCode == memberCode && contact?.compared == true && contact?.newSecurityCode == nil)

        // The member's agent syncs: the family vault is in its vault list, and its page shows the vault by name.
        _ = try member.send(.sync(SyncRequest())).synced()
        let vaults = try member.send(.vaultList).answer(VaultListReply.self).vaults
        #expect(vaults.contains { $0.name == "Doe vault" })
        let seen = try member.send(Request(Operations.orgShow, OrgRequest(org: org.orgID))).answer(OrgReply.self)
        #expect(seen.org?.role == "member" && seen.vaults.first?.name == "Doe vault" && seen.vaults.first?.access == "edit")

        // Removed: the list's epoch moves on and the family vault's key with it.
        let removed = try change(owner, OrgChangeRequest(.remove, org: org.orgID, email: "member@example.org", password: SecretText(master)))
        #expect(removed.org?.members.map(\.email) == ["owner@example.org"] && (removed.org?.epoch ?? 0) > org.epoch)
        #expect(removed.vaults.first.map { $0.epoch == removed.org?.epoch && !$0.rotationPending } == true)
        #expect(try member.send(Request(Operations.sharing)).answer(SharingReply.self).organisations.map(\.status) == ["removed"])
    }
}
