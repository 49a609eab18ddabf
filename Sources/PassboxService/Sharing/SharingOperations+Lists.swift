import Foundation
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxManifest
import PassboxProtocol
import PassboxStore

/// Organisations' member lists as this device reads them: fetched, verified against what it kept, shown; and
/// the account's keyset for the commands that sign.
extension SharingOperations {
    /// The verified member list of `orgID`: the versions after the kept head, verified from it (or from
    /// version 1 when this device keeps none), the new head kept. A list that does not verify is refused,
    /// kept as a warning, and the kept head stays as it was.
    /// `verified` sees each new version once the chain verified, oldest first; with `fromStart` the whole chain
    /// is read and verified again from version 1 (against the organisation's code and the kept head).
    static func refreshed(
        _ orgID: String, record: AccountRecord, client: AccountClient, dataDirectory: String, fromStart: Bool = false,
        verified: ((MemberListVersion) -> Void)? = nil
    ) throws -> (head: MemberListVersion, reply: OrgFetchReply) {
        var file = try SharingFile.load(dataDirectory)
        let stored = try file.list(server: record.server, orgID: orgID).map { try MemberListVersion(decoding: Array($0)) }
        let keptCode = file.lists.first { $0.server == record.server && $0.orgID == orgID }?.code
        // From the start: verified as if nothing were kept, and then held to the kept head.
        let kept = fromStart ? nil : stored
        var since = kept?.version ?? 0
        var versions: [MemberListVersion] = []
        var last: OrgFetchReply
        do {
            var pages = 0, bytes = 0
            repeat {
                last = try client.fetchList(orgID: orgID, since: since, token: record.token ?? "")
                let page = try last.versions.map { try MemberListVersion(decoding: Array($0)) }
                // Each page must continue where the last one ended (a server that repeats or skips is refused),
                // and a list is read in at most 1,000 pages.
                if let first = page.first, first.version > since + 1 || (kept == nil && first.version != since + 1) {
                    throw SharingError.listInvalid(version: first.version, reason: .notNextVersion)
                }
                // Versions at or below the kept one stay in: `verify` tells a fork or a step back from them.
                versions += page
                bytes += last.versions.reduce(0) { $0 + $1.count }
                since = page.last.map { max($0.version, since) } ?? since
                pages += 1
                guard pages <= 1_000, bytes <= 512 << 20 else { throw SharingError.malformed("a member list of more than 1,000 pages or 512 MiB") }
            } while last.more && !last.versions.isEmpty
            let head = try MemberListChain.verify(
                versions, from: kept, seen: stored.map { ListHead(version: $0.version, hash: $0.hash) }, organisation: fromStart ? keptCode : nil)
            guard head.orgID == orgID else { throw SharingError.notTheOrganisation }
            if let verified { for v in versions where v.version > (kept?.version ?? 0) { verified(v) } }
            var code = file.lists.first { $0.server == record.server && $0.orgID == orgID }?.code
            if stored == nil, let first = versions.first { code = MemberListChain.organisationCode(first) }
            // This account's own entry must hold its own keys (else the server shows a list where someone else is "me").
            if let me = head.member(record.accountID), me.keys != (try ownBundle(record)).keys {
                throw SharingError.listInvalid(version: head.version, reason: .ownKeysDiffer)
            }
            file.keep(server: record.server, orgID: orgID, head: Data(head.encoded), code: code, trusted: stored == nil ? false : nil)
            // Members whose keys in the list differ from the keys this device pinned for them.
            for member in head.members where member.accountID != record.accountID {
                if let pin = file.contact(server: record.server, email: member.email), let pinned = try? KeyBundle(Array(pin.bundle), accountID: pin.accountID),
                    pinned.keys != member.keys
                {
                    file.warn(warning("keysDiffer", record, subject: member.email, detail: "\(head.name): the list holds \(member.keys.securityCode); pinned \(pinned.keys.securityCode)"))
                }
            }
            try file.save(dataDirectory)
            return (head, last)
        } catch let error as SharingError {
            file.warn(warning(refusal(error).facts["problem"] ?? "listInvalid", record, subject: orgID, detail: String(describing: error)))
            try file.save(dataDirectory)
            throw refusal(error)
        }
    }

    /// The organisation a user names (its id, or its name in any case) among those this device keeps.
    /// One this device does not keep yet (another device made or joined it) is looked for among those the
    /// server lists, each verified from its first version and kept as first seen (untrusted).
    static func resolve(_ reference: String, record: AccountRecord, dataDirectory: String) throws -> String {
        func match() throws -> [String] {
            let mine = try SharingFile.load(dataDirectory).lists.filter { $0.server == record.server }
            if mine.contains(where: { $0.orgID == reference }) { return [reference] }
            return mine.filter { (try? MemberListVersion(decoding: Array($0.head)))?.name.lowercased() == reference.lowercased() }.map(\.orgID)
        }
        var found = try match()
        if found.isEmpty {
            let (_, client) = try AccountOperations.signedIn(dataDirectory)
            let kept = Set(try SharingFile.load(dataDirectory).lists.filter { $0.server == record.server }.map(\.orgID))
            for head in try client.orgs(token: record.token ?? "").orgs where SyncIdentifier.isValid(head.orgID) && !kept.contains(head.orgID) {
                _ = try? refreshed(head.orgID, record: record, client: client, dataDirectory: dataDirectory)
            }
            found = try match()
        }
        guard found.count == 1 else { throw ProtocolError(.organisationNotFound, ["name": reference]) }
        return found[0]
    }

    /// Every organisation the server says this account is in, each verified.
    public static func organisations(dataDirectory: String) throws -> [OrgView] {
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        let listed = try client.orgs(token: record.token ?? "").orgs.filter { SyncIdentifier.isValid($0.orgID) }
        // One list that does not verify (kept as a warning) does not hide the others: it is shown as refused.
        var views: [OrgView] = []
        for org in listed {
            do {
                views.append(try view(org.orgID, record: record, client: client, dataDirectory: dataDirectory))
            } catch let error as ProtocolError where error.code == .sharingRefused {
                let kept = (try? SharingFile.load(dataDirectory))?.list(server: record.server, orgID: org.orgID)
                let head = kept.flatMap { try? MemberListVersion(decoding: Array($0)) }
                views.append(
                    OrgView(
                        orgID: org.orgID, kind: head?.kind.name ?? "team", name: head?.name ?? org.orgID, version: head?.version ?? 0, epoch: head?.epoch ?? 0, role: nil,
                        members: [], waiting: [], invitations: [], code: nil, status: "refused"))
            }
        }
        // Lists this device keeps that the server does not name: an accepted invitation not confirmed yet
        // ("waiting"), or a list that held this account ("removed", or the server withholds it).
        let known = Set(listed.map(\.orgID))
        for kept in try SharingFile.load(dataDirectory).lists where kept.server == record.server && !known.contains(kept.orgID) {
            guard let head = try? MemberListVersion(decoding: Array(kept.head)) else { continue }
            views.append(
                OrgView(
                    orgID: kept.orgID, kind: head.kind.name, name: head.name, version: head.version, epoch: head.epoch, role: nil, members: [], waiting: [], invitations: [],
                    code: kept.code, trusted: kept.trusted == true, status: head.member(record.accountID) == nil ? "waiting" : "removed"))
        }
        return views
    }

    public static func organisation(_ reference: String, dataDirectory: String) throws -> OrgView {
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        return try view(try resolve(reference, record: record, dataDirectory: dataDirectory), record: record, client: client, dataDirectory: dataDirectory)
    }

    static func view(_ orgID: String, record: AccountRecord, client: AccountClient, dataDirectory: String) throws -> OrgView {
        let (head, reply) = try refreshed(orgID, record: record, client: client, dataDirectory: dataDirectory)
        return try view(head, reply, record: record, dataDirectory: dataDirectory)
    }

    /// The view of a list just verified, with what the server said beside it.
    static func view(_ head: MemberListVersion, _ reply: OrgFetchReply, record: AccountRecord, dataDirectory: String) throws -> OrgView {
        let orgID = head.orgID
        let file = try SharingFile.load(dataDirectory)
        let departed = Set(reply.departed ?? [])
        let members = head.members.map { member -> MemberView in
            var trust = "unknown"
            if member.accountID == record.accountID {
                trust = "self"
            } else if let pin = file.contact(server: record.server, email: member.email), let pinned = try? KeyBundle(Array(pin.bundle), accountID: pin.accountID) {
                trust = pinned.keys != member.keys ? "differs" : pin.compared ? "compared" : "pinned"
            }
            return MemberView(
                email: member.email, accountID: member.accountID, role: member.role.name, state: departed.contains(member.accountID) ? "left" : member.state.name,
                securityCode: member.keys.securityCode.description, trust: trust)
        }
        let waiting = reply.waiting.compactMap { w -> WaitingView? in
            guard let bundle = try? KeyBundle(Array(w.bundle), accountID: w.accountID) else { return nil }
            return WaitingView(email: w.email, role: w.role, accepted: w.accepted, securityCode: bundle.keys.securityCode.description)
        }
        var view = OrgView(
            orgID: orgID, kind: head.kind.name, name: head.name, version: head.version, epoch: head.epoch, role: head.member(record.accountID)?.role.name,
            members: members, waiting: waiting, invitations: reply.invitations,
            code: file.lists.first { $0.server == record.server && $0.orgID == orgID }?.code,
            trusted: file.lists.first { $0.server == record.server && $0.orgID == orgID }?.trusted == true,
            groups: head.groups.map { g in GroupView(id: g.id, name: g.name, members: g.members.compactMap { head.member($0)?.email }) },
            status: head.member(record.accountID) == nil ? "removed" : "member")
        view.recoveryAllowed = reply.recoveryAllowed == true
        // Only members of this list, with a new bundle that verifies for their account.
        view.recoveries = (reply.recoveries ?? []).compactMap { r -> WaitingView? in
            guard let member = head.member(r.accountID), member.email == r.email, let bundle = try? KeyBundle(Array(r.bundle), accountID: r.accountID) else { return nil }
            return WaitingView(email: r.email, role: member.role.name, accepted: r.created, securityCode: bundle.keys.securityCode.description)
        }
        return view
    }

    /// The account's keyset for one command: opened with the master password the first time it is needed
    /// (one Argon2id derivation, one counted attempt), then reused by every step of the command.
    final class Keys {
        let password: SecretText
        let dataDirectory: String
        private var opened: AccountKeyset?
        init(_ password: SecretText, dataDirectory: String) {
            self.password = password
            self.dataDirectory = dataDirectory
        }
        func keyset(_ record: AccountRecord) throws -> AccountKeyset {
            if let opened { return opened }
            let keyset = try SharingOperations.keyset(password, record: record, dataDirectory: dataDirectory)
            opened = keyset
            return keyset
        }
    }

    /// Opens the account's keyset with the master password (counted as unlock attempts are), as the account's
    /// vault opens it (`AccountVaultKey.openedKeyset`).
    static func keyset(_ password: SecretText, record: AccountRecord, dataDirectory: String) throws -> AccountKeyset {
        try AccountOperations.countingAttempts(dataDirectory, password: password) {
            guard let keyset = try AccountVaultKey(record).openedKeyset(password: VaultService.lockedCopy(password)) else { throw ProtocolError(.wrongPassword) }
            return keyset
        }
    }

    /// Makes a family or team with this account as its owner; answers its view (with the code of its links).
}
