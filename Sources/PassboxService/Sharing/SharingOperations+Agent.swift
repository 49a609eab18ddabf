import Foundation
import PassboxCrypto
import PassboxManifest
import PassboxProtocol
import PassboxStore

/// What the agent adds to a sharing request: the data directory, and the key that opens grants (the account's
/// X25519 key the open vault keeps for sync), so the Family & Team page shows shared vaults' names without the
/// master password. Changes that sign or seal still take it, as `passbox org` does.
public struct SharingContext: Sendable {
    public var dataDirectory: String
    public var boxKey: Data?
    public init(dataDirectory: String, boxKey: Data?) {
        self.dataDirectory = dataDirectory
        self.boxKey = boxKey
    }
}

extension VaultService {
    /// The Family & Team page's requests (generation 15): answered without the vault, off the agent's queue,
    /// as the account pages' are (the caller checked that an account's vault is unlocked).
    public static func performSharing(_ request: Request, context: SharingContext) -> Reply {
        do {
            let held = try SharingFile.lock(context.dataDirectory)
            defer { withExtendedLifetime(held) {} }
            return try sharingNetwork.answer(context, request) ?? .failure(ProtocolError(.badRequest, ["reason": "not a sharing request"]))
        } catch {
            return .failure(ProtocolError.from(error))
        }
    }

    static let sharingNetwork: OperationTable<SharingContext> = {
        var t = OperationTable<SharingContext>()
        t.on(Operations.sharing) { c, _ in
            SharingReply(
                organisations: try SharingOperations.organisations(dataDirectory: c.dataDirectory), warnings: try SharingOperations.warnings(dataDirectory: c.dataDirectory),
                own: try SharingOperations.ownCode(dataDirectory: c.dataDirectory, checkServer: false))
        }
        t.on(Operations.orgShow) { c, r in try SharingOperations.detail(r.org, context: c) }
        t.on(Operations.orgChange) { c, r in try SharingOperations.change(r, context: c) }
        t.on(Operations.orgAccept) { c, r in
            guard !r.preview else { return InvitationReply(preview: try SharingOperations.preview(r.text, dataDirectory: c.dataDirectory)) }
            let preview = try SharingOperations.accept(r.text, dataDirectory: c.dataDirectory)
            return InvitationReply(preview: preview, ownCode: try SharingOperations.ownCode(dataDirectory: c.dataDirectory, checkServer: false).securityCode)
        }
        t.on(Operations.securityCode) { c, r in
            guard let email = r.email else { return SecurityCodeReply(own: try SharingOperations.ownCode(dataDirectory: c.dataDirectory, checkServer: r.check)) }
            return SecurityCodeReply(contact: try SharingOperations.contact(email, acceptNew: r.acceptNew, dataDirectory: c.dataDirectory))
        }
        return t
    }()
}

extension SharingOperations {
    /// One organisation with its shared vaults, from one fetch of its list: the vaults' names opened with the
    /// grants' key when the agent holds it (nil names otherwise).
    static func detail(_ reference: String, context: SharingContext) throws -> OrgReply {
        let (record, client) = try AccountOperations.signedIn(context.dataDirectory)
        let orgID = try resolve(reference, record: record, dataDirectory: context.dataDirectory)
        let (head, reply) = try refreshed(orgID, record: record, client: client, dataDirectory: context.dataDirectory)
        let org = try view(head, reply, record: record, dataDirectory: context.dataDirectory)
        let vaults = reply.vaults ?? []
        var keys: [String: SecretBytes] = [:]
        if let boxKey = context.boxKey, let box = try? BoxKeyPair(privateKey: SecretBytes(copying: boxKey)) {
            keys = openedKeys(head, vaults, record: record, box: box, dataDirectory: context.dataDirectory)
        }
        return OrgReply(org: org, vaults: views(head, vaults, keys: keys, record: record))
    }

    /// One `org-change`: the same service calls `passbox org ACTION` makes, then the organisation as it now is.
    static func change(_ r: OrgChangeRequest, context: SharingContext) throws -> OrgReply {
        let data = context.dataDirectory
        func need(_ value: String?, _ name: String) throws -> String {
            guard let value, !value.trimmingCharacters(in: .whitespaces).isEmpty else { throw ProtocolError(.badRequest, ["reason": "\(r.action.rawValue) needs \(name)"]) }
            return value
        }
        func password() throws -> SecretText {
            guard let password = r.password else { throw ProtocolError(.badRequest, ["reason": "\(r.action.rawValue) needs the master password"]) }
            return password
        }
        func role(_ name: String?) throws -> MemberRole {
            guard let role = MemberRole(name: try need(name, "role")) else { throw ProtocolError(.badRequest, ["reason": "unknown role"]) }
            return role
        }
        if r.action == .create {
            guard let kind = OrganisationKind(name: try need(r.kind, "kind")) else { throw ProtocolError(.badRequest, ["reason": "kind is family or team"]) }
            let made = try create(kind: kind, name: try need(r.name, "name"), vaultName: r.vaultName, password: try password(), dataDirectory: data)
            return try detail(made.orgID, context: context)
        }
        let org = try need(r.org, "org")
        var reply = OrgReply(org: nil)
        switch r.action {
        case .create:
            break
        case .invite:
            let made = try invite(org, email: try need(r.email, "email"), role: r.role == nil ? .member : try role(r.role), mail: r.mail == true, dataDirectory: data)
            reply.invitation = MadeInvitation(link: made.link, expires: made.expires, mailed: made.mailed)
        case .revoke:
            try revoke(org, invitation: try need(r.invitation, "invitation"), dataDirectory: data)
        case .confirm:
            guard let compared = r.compared else { throw ProtocolError(.badRequest, ["reason": "confirm needs compared"]) }
            _ = try confirm(org, email: try need(r.email, "email"), compared: compared, role: r.role == nil ? nil : try role(r.role), password: try password(), dataDirectory: data)
        case .remove:
            _ = try remove(org, email: try need(r.email, "email"), password: try password(), dataDirectory: data)
        case .role:
            _ = try change(org, email: try need(r.email, "email"), role: try role(r.role), state: nil, password: try password(), dataDirectory: data)
        case .pause, .resume:
            _ = try change(org, email: try need(r.email, "email"), role: nil, state: r.action == .pause ? .paused : .active, password: try password(), dataDirectory: data)
        case .leave:
            return OrgReply(org: nil, left: try leave(org, dataDirectory: data))
        case .trust:
            _ = try trust(org, code: try need(r.code, "code"), dataDirectory: data)
        case .vaultCreate:
            _ = try createVault(org, name: try need(r.name, "name"), password: try password(), dataDirectory: data)
        case .share:
            let level = try need(r.access, "access")
            var access: VaultAccessLevel?
            if level != "none" {
                guard let known = VaultAccessLevel(name: level) else { throw ProtocolError(.badRequest, ["reason": "unknown access"]) }
                access = known
            }
            _ = try share(org, vault: try need(r.vault, "vault"), email: try need(r.email, "email"), access: access, password: try password(), dataDirectory: data)
        case .groupCreate:
            _ = try changeGroup(org, group: nil, .create(try need(r.name, "name")), password: try password(), dataDirectory: data)
        case .groupDelete:
            _ = try changeGroup(org, group: try need(r.group, "group"), .delete, password: try password(), dataDirectory: data)
        case .groupAdd, .groupRemove:
            let email = try need(r.email, "email")
            _ = try changeGroup(org, group: try need(r.group, "group"), r.action == .groupAdd ? .add(email) : .remove(email), password: try password(), dataDirectory: data)
        case .renew:
            reply.renewed = try renewKeys(org, password: try password(), dataDirectory: data)
        case .recovery:
            let allow = r.allow == true
            _ = try allowRecovery(org, allow: allow, password: allow ? try password() : nil, dataDirectory: data)
        case .recover:
            _ = try approveRecovery(org, email: try need(r.email, "email"), code: try need(r.code, "code"), password: try password(), dataDirectory: data)
        }
        let now = try detail(org, context: context)
        reply.org = now.org
        reply.vaults = now.vaults
        return reply
    }
}
