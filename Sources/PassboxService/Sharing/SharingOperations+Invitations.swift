import Foundation
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxManifest
import PassboxProtocol
import PassboxStore

/// Invitations: the inviter's link (mailed by the server on request), the invitee's checked preview and joining.
extension SharingOperations {
    /// An invitation link for `email` with `role` (`https://SERVER/invite/TOKEN#org=CODE`).
    public static func invite(_ reference: String, email: String, role: MemberRole, mail: Bool = false, dataDirectory: String) throws -> (link: String, expires: Date, mailed: Bool?) {
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        let orgID = try resolve(reference, record: record, dataDirectory: dataDirectory)
        let (head, _) = try refreshed(orgID, record: record, client: client, dataDirectory: dataDirectory)
        try requireTrusted(orgID, record: record, dataDirectory: dataDirectory)
        guard let code = try SharingFile.load(dataDirectory).lists.first(where: { $0.server == record.server && $0.orgID == orgID })?.code else {
            throw ProtocolError(.sharingRefused, ["problem": "notTheOrganisation"])
        }
        guard head.member(record.accountID)?.role.managesMembers == true else { throw ProtocolError(.notAMember, ["org": head.name]) }
        let normalized = SignInTranscript.normalizedEmail(email)
        let reply = try client.invite(orgID: orgID, email: normalized, role: role.name, mail: mail, token: record.token ?? "")
        return (InvitationLink(server: record.server, token: reply.token, organisation: code).text, reply.expires, mail ? (reply.mailed ?? false) : nil)
    }

    public static func revoke(_ reference: String, invitation id: String, dataDirectory: String) throws {
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        let orgID = try resolve(reference, record: record, dataDirectory: dataDirectory)
        try client.revokeInvitation(orgID: orgID, id: id, token: record.token ?? "")
    }

    /// Reads an invitation link (or a mail holding one) and checks it against this account's server.
    static func link(_ text: String, record: AccountRecord) throws -> InvitationLink {
        let link: InvitationLink
        do { link = try InvitationLink(finding: text) } catch let problem as InvitationLink.Problem {
            throw ProtocolError(.invitationLinkInvalid, ["problem": problem.rawValue])
        }
        // A passbox://invite/TOKEN link names no server: it is for the account's own.
        guard link.server.isEmpty || SignInTranscript.normalizedOrigin(link.server) == record.server else {
            throw ProtocolError(.invitationLinkInvalid, ["problem": "otherServer", "server": link.server])
        }
        return link
    }

    /// What an invitation offers, checked: the list the server shows must verify and be the organisation the
    /// link's code names (else `sharingRefused` notTheOrganisation: a forged invitation).
    public static func preview(_ text: String, dataDirectory: String) throws -> InvitationPreview {
        try previewed(text, dataDirectory: dataDirectory).preview
    }

    static func previewed(_ text: String, dataDirectory: String) throws -> (preview: InvitationPreview, link: InvitationLink, head: MemberListVersion, code: String) {
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        let link = try link(text, record: record)
        let reply = try client.previewInvitation(token: link.token, token: record.token ?? "")
        let head: MemberListVersion
        do {
            let versions = try reply.versions.map { try MemberListVersion(decoding: Array($0)) }
            head = try MemberListChain.verify(versions, organisation: link.organisation)
            guard head.orgID == reply.orgID else { throw SharingError.notTheOrganisation }
            // A list this device keeps already (a second invitation): the shown one must continue it, never
            // take it back to an older version (and so bring back someone removed since).
            let file = try SharingFile.load(dataDirectory)
            if let kept = file.lists.first(where: { $0.server == record.server && $0.orgID == head.orgID }), let keptHead = try? MemberListVersion(decoding: Array(kept.head)) {
                if let code = kept.code, code != link.organisation { throw SharingError.notTheOrganisation }
                _ = try MemberListChain.verify(versions, from: keptHead, seen: ListHead(version: keptHead.version, hash: keptHead.hash))
            }
        } catch {
            var file = try SharingFile.load(dataDirectory)
            file.warn(warning(refusal(error).facts["problem"] ?? "listInvalid", record, subject: reply.orgID, detail: "invitation: \(error)"))
            try file.save(dataDirectory)
            throw refusal(error)
        }
        let preview = InvitationPreview(
            orgID: head.orgID, kind: head.kind.name, name: head.name, email: reply.email, role: reply.role, expires: reply.expires, members: head.members.count,
            owners: head.members.filter { $0.role == .owner }.map(\.email))
        return (preview, link, head, link.organisation)
    }

    /// Accepts a checked invitation: this account then waits for a manager to confirm it. The list is kept,
    /// so a later list that does not continue it is refused.
    public static func accept(_ text: String, dataDirectory: String) throws -> InvitationPreview {
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        let checked = try previewed(text, dataDirectory: dataDirectory)
        try client.acceptInvitation(token: checked.link.token, token: record.token ?? "")
        var file = try SharingFile.load(dataDirectory)
        file.keep(server: record.server, orgID: checked.head.orgID, head: Data(checked.head.encoded), code: checked.code, trusted: true)
        try file.save(dataDirectory)
        return checked.preview
    }
}
