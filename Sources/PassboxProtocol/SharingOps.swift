import Foundation

// Families and teams through the agent (docs/PROTOCOL.md, "Families and teams"), generation 15: what the web
// UI's Family & Team page asks. The command line calls the same service functions in its own process.

/// `org-show`: one organisation, by its id or name.
public struct OrgRequest: Codable, Sendable {
    public var org: String
    public init(org: String) { self.org = org }
}

/// `org-change`: one change to an organisation, as `passbox org ACTION` makes it.
public struct OrgChangeRequest: Codable, Sendable {
    public enum Action: String, Codable, Sendable, CaseIterable {
        case create, invite, revoke, confirm, remove, role, pause, resume, leave, trust
        case vaultCreate = "vault-create", share, groupCreate = "group-create", groupDelete = "group-delete"
        case groupAdd = "group-add", groupRemove = "group-remove", renew, recovery, recover
    }

    public var action: Action
    /// The organisation (absent only for `create`).
    public var org: String?
    /// create: family or team.
    public var kind: String?
    /// create, vault-create, group-create.
    public var name: String?
    /// create: the family vault's name.
    public var vaultName: String?
    public var email: String?
    /// invite, confirm, role: owner, admin, member, guest.
    public var role: String?
    /// share: view, edit, manage or none.
    public var access: String?
    public var vault: String?
    public var group: String?
    public var invitation: String?
    /// confirm: the codes were compared (false: confirmed without comparing).
    public var compared: Bool?
    /// recovery: on or off.
    public var allow: Bool?
    /// trust: the organisation code; recover: the member's new security code as read out.
    public var code: String?
    /// invite: the server mails the link too.
    public var mail: Bool?
    public var password: SecretText?

    public init(
        _ action: Action, org: String? = nil, kind: String? = nil, name: String? = nil, vaultName: String? = nil, email: String? = nil, role: String? = nil,
        access: String? = nil, vault: String? = nil, group: String? = nil, invitation: String? = nil, compared: Bool? = nil, allow: Bool? = nil,
        code: String? = nil, mail: Bool? = nil, password: SecretText? = nil
    ) {
        self.action = action
        self.org = org
        self.kind = kind
        self.name = name
        self.vaultName = vaultName
        self.email = email
        self.role = role
        self.access = access
        self.vault = vault
        self.group = group
        self.invitation = invitation
        self.compared = compared
        self.allow = allow
        self.code = code
        self.mail = mail
        self.password = password
    }
}

/// `org-accept`: an invitation link, or a whole mail holding it; with `preview` nothing is sent but the lookup.
public struct OrgAcceptRequest: Codable, Sendable {
    public var text: String
    public var preview: Bool
    public init(text: String, preview: Bool) {
        self.text = text
        self.preview = preview
    }
}

/// `security-code`: this account's own code (no email), or a contact's pinned one.
public struct SecurityCodeRequest: Codable, Sendable {
    public var email: String?
    /// Own code: compare with the bundle the server publishes.
    public var check: Bool
    /// A contact whose keys changed: the new keys become the pin (after the user compared the new code).
    public var acceptNew: Bool
    public init(email: String? = nil, check: Bool = false, acceptNew: Bool = false) {
        self.email = email
        self.check = check
        self.acceptNew = acceptNew
    }
}

extension OrgRequest: RequestBody {}
extension OrgChangeRequest: RequestBody {
    public var carriesSecrets: Bool { password != nil }
}
extension OrgAcceptRequest: RequestBody {}
extension SecurityCodeRequest: RequestBody {}

/// `sharing`: what the Family & Team page opens with.
public struct SharingReply: Codable, Sendable, Equatable {
    public var organisations: [OrgView]
    public var warnings: [SharingWarningView]
    public var own: OwnCodeView
    public init(organisations: [OrgView], warnings: [SharingWarningView], own: OwnCodeView) {
        self.organisations = organisations
        self.warnings = warnings
        self.own = own
    }
}

/// An invitation just made: the link to pass on (over a channel the user trusts), its expiry, whether the
/// server mailed it (nil: not asked).
public struct MadeInvitation: Codable, Sendable, Equatable {
    public var link: String
    public var expires: Date
    public var mailed: Bool?
    public init(link: String, expires: Date, mailed: Bool? = nil) {
        self.link = link
        self.expires = expires
        self.mailed = mailed
    }
}

/// `org-show` and `org-change`: the organisation as it now is, with its shared vaults; what a change made.
public struct OrgReply: Codable, Sendable, Equatable {
    /// nil once this account left.
    public var org: OrgView?
    public var vaults: [SharedVaultView]
    public var invitation: MadeInvitation?
    /// renew: how many vaults got a new key.
    public var renewed: Int?
    /// leave: the name of the organisation left.
    public var left: String?
    public init(org: OrgView?, vaults: [SharedVaultView] = [], invitation: MadeInvitation? = nil, renewed: Int? = nil, left: String? = nil) {
        self.org = org
        self.vaults = vaults
        self.invitation = invitation
        self.renewed = renewed
        self.left = left
    }
}

/// `org-accept`: the invitation's preview; once accepted, this account's own code (to read to a manager).
public struct InvitationReply: Codable, Sendable, Equatable {
    public var preview: InvitationPreview
    public var ownCode: String?
    public init(preview: InvitationPreview, ownCode: String? = nil) {
        self.preview = preview
        self.ownCode = ownCode
    }
}

/// `security-code`: the own code, or a contact's.
public struct SecurityCodeReply: Codable, Sendable, Equatable {
    public var own: OwnCodeView?
    public var contact: ContactView?
    public init(own: OwnCodeView? = nil, contact: ContactView? = nil) {
        self.own = own
        self.contact = contact
    }
}

extension SharingReply: ReplyBody {
    public var reply: Reply { .sharing(self) }
    public static func from(_ reply: Reply) -> SharingReply? { if case .sharing(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.sharing] }
}
extension OrgReply: ReplyBody {
    public var reply: Reply { .org(self) }
    public static func from(_ reply: Reply) -> OrgReply? { if case .org(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.org] }
}
extension InvitationReply: ReplyBody {
    public var reply: Reply { .invitation(self) }
    public static func from(_ reply: Reply) -> InvitationReply? { if case .invitation(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.invitation] }
}
extension SecurityCodeReply: ReplyBody {
    public var reply: Reply { .securityCode(self) }
    public static func from(_ reply: Reply) -> SecurityCodeReply? { if case .securityCode(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.securityCode] }
}

extension Operations {
    // Families and teams (docs/PROTOCOL.md, "Families and teams"), generation 15: an account's vault, off the
    // agent's queue (the server answers them).
    public static let sharing = Operation<NoBody, SharingReply>(
        .sharing, since: 15, vault: true,
        request: #"—"#,
        reply: #"`sharing`: organisations [OrgView, as `passbox org list --json`; one whose list does not verify has status "refused"], warnings [{kind, subject, detail, seen}], own {email, securityCode}"#)
    public static let orgShow = Operation<OrgRequest, OrgReply>(
        .orgShow, since: 15, vault: true,
        request: #"org (id or name)"#,
        reply: #"`org`: org (members with role, state, securityCode and trust; waiting; invitations; groups; recoveries), vaults [{vaultID, name?, epoch, access?, rotationPending, seenBy, waitingForKey}] (names opened with the grants' key the agent holds); `organisationNotFound`"#)
    public static let orgChange = Operation<OrgChangeRequest, OrgReply>(
        .orgChange, since: 15, vault: true,
        request: #"action (create, invite, revoke, confirm, remove, role, pause, resume, leave, trust, vault-create, share, group-create, group-delete, group-add, group-remove, renew, recovery, recover), org, and what the action names: kind, name, vaultName, email, role, access (view, edit, manage, none), vault, group, invitation, compared, allow, code, mail; password (secret) for every action but invite, revoke, leave, trust and recovery off"#,
        reply: #"`org` as `org-show` after the change (org absent after leave, with left: its name), invitation {link, expires, mailed?} after invite, renewed (vaults) after renew; `wrongPassword` (counted), `sharingRefused` {reason}, `contactKeyChanged` {email}, `memberNotFound`, `lastOwner`, `organisationNotFound`"#)
    public static let orgAccept = Operation<OrgAcceptRequest, InvitationReply>(
        .orgAccept, since: 15, vault: true,
        request: #"text (the link, or a whole mail with it), preview (look it up only)"#,
        reply: #"`invitation`: preview {orgID, kind, name, email, role, expires, members, owners}, ownCode (once accepted: to read to a manager); `invitationLinkInvalid` {reason}, `sharingRefused`"#)
    public static let securityCode = Operation<SecurityCodeRequest, SecurityCodeReply>(
        .securityCode, since: 15, vault: true,
        request: #"email? (none: this account's own code), check (own: compare with the server's bundle), acceptNew (a contact's changed keys become the pin)"#,
        reply: #"`securityCode`: own {email, securityCode, serverMatches?} or contact {email, accountID, securityCode, compared, newSecurityCode?, pinnedNow}; `contactNotFound`, `contactKeyChanged` is not thrown here: newSecurityCode says it"#)
}
