import Foundation
import PassboxManifest
import PassboxProtocol
import PassboxService
import PassboxStore

/// `passbox security-code`, `passbox org …` and `passbox sharing warnings`: families and teams.
extension Commands {
    static let securityCodeUsage = "passbox security-code [EMAIL] [--check] [--accept-new] [--json]"
    static let orgUsage = """
        passbox org [list] [--json]
               org create family|team NAME [--vault NAME]
               org vaults ORG [--json]
               org vault-create ORG NAME
               org share ORG VAULT EMAIL|@GROUP view|edit|manage|none
               org groups ORG
               org group-create ORG NAME
               org group-add|group-remove ORG GROUP EMAIL
               org group-delete ORG GROUP
               org renew ORG
               org show ORG [--json]
               org invite ORG EMAIL [--role owner|admin|member|guest] [--mail]
               org accept [--preview]        (the link, or a whole mail with it, on standard input)
               org confirm ORG EMAIL --codes-match | --without-comparing [--role admin|member|guest|owner]
               org trust ORG CODE
               org remove ORG EMAIL
               org role ORG EMAIL owner|admin|member|guest
               org pause|resume ORG EMAIL
               org revoke ORG INVITATION-ID
               org leave ORG
               org recovery ORG on|off       (a family's owners may help you back in)
               org recover ORG EMAIL CODE    (owners: the 60-digit code they read out; lets them back in)
        """

    /// Without an email: this account's own code (`--check`: compared with what the server publishes). With
    /// one: the contact's pinned code, pinned now if this device never saw it, and the new code when the
    /// server shows other keys (`--accept-new` after comparing it makes the new keys the pin).
    static func securityCode(_ c: Context, _ a: Arguments) throws {
        try a.expectPositionals(0...1, usage: securityCodeUsage)
        let held = try SharingFile.lock(c.dataDirectory)
        defer { withExtendedLifetime(held) {} }
        guard let email = a.positionals.first else {
            let own = try SharingOperations.ownCode(dataDirectory: c.dataDirectory, checkServer: a.flag("check"))
            if a.flag("json") { return try Output.json(own) }
            Console.out(c.tr("sharing.ownCode", ["email": own.email]))
            printCode(own.securityCode)
            if let matches = own.serverMatches {
                guard matches else { throw CLIError.failure(c.tr("sharing.serverDiffers"), hint: c.tr("sharing.serverDiffers.hint")) }
                Console.out(c.tr("sharing.serverMatches"))
            } else {
                Console.out(c.tr("sharing.ownCode.compare"))
            }
            return
        }
        let view = try SharingOperations.contact(email, acceptNew: a.flag("accept-new"), dataDirectory: c.dataDirectory)
        if a.flag("json") { return try Output.json(view) }
        Console.out(c.tr(view.compared ? "sharing.contactCode.compared" : view.pinnedNow ? "sharing.contactCode.pinnedNow" : "sharing.contactCode", ["email": view.email]))
        printCode(view.securityCode)
        if let new = view.newSecurityCode {
            Console.out(c.tr("sharing.keyChanged", ["email": view.email]))
            printCode(new)
            throw CLIError.failure(c.tr("error.contactKeyChanged", ["email": view.email]), hint: c.tr("sharing.keyChanged.hint", ["email": view.email]))
        }
    }

    /// A code as three lines of four groups, indented (large enough to read aloud group by group).
    static func printCode(_ code: String) {
        let groups = code.split(separator: " ")
        for line in stride(from: 0, to: groups.count, by: 4) { Console.out("    " + groups[line..<min(line + 4, groups.count)].joined(separator: "  ")) }
    }

    static func org(_ c: Context, _ a: Arguments) throws {
        let action = a.positionals.first ?? "list"
        let rest = Array(a.positionals.dropFirst())
        // sharing.json's lock, taken once what the user types is in (a prompt never holds up the agent's sync).
        var held: SharingLock?
        defer { withExtendedLifetime(held) {} }
        func lock() throws { if held == nil { held = try SharingFile.lock(c.dataDirectory) } }
        func need(_ count: Int) throws {
            guard rest.count == count else { throw CLIError.usage("usage: \(orgUsage)") }
            if !["accept", "recovery"].contains(action) && !prompting.contains(action) { try lock() }
        }
        let prompting: Set<String> = [
            "create", "confirm", "recover", "remove", "role", "pause", "resume", "vaults", "vault-create", "share", "group-create", "group-delete", "group-add",
            "group-remove", "renew",
        ]
        func password() throws -> SecretText {
            let typed = try c.input.secretText(prompt: c.tr("account.prompt.master"))
            try lock()
            return typed
        }
        switch action {
        case "list":
            try need(0)
            let orgs = try SharingOperations.organisations(dataDirectory: c.dataDirectory)
            if a.flag("json") { return try Output.json(orgs) }
            if orgs.isEmpty { Console.out(c.tr("org.none")) }
            for org in orgs {
                let status = org.status == "member" ? c.tr("org.role.\(org.role ?? "member")") : c.tr("org.status.\(org.status)")
                Console.out(c.tr("org.line", ["name": org.name, "kind": c.tr("org.kind.\(org.kind)"), "count": String(org.members.count), "status": status, "id": org.orgID]))
            }
            try printWarningBanner(c)
        case "create":
            try need(2)
            guard let kind = OrganisationKind(name: rest[0]) else { throw CLIError.usage("usage: \(orgUsage)") }
            let org = try SharingOperations.create(kind: kind, name: rest[1], vaultName: a.value("vault"), password: try password(), dataDirectory: c.dataDirectory)
            Console.out(c.tr("org.created.\(kind.name)", ["name": org.name, "vault": a.value("vault") ?? org.name]))
            Console.out(c.tr("org.created.next", ["name": org.name]))
        case "show":
            try need(1)
            let org = try SharingOperations.organisation(rest[0], dataDirectory: c.dataDirectory)
            if a.flag("json") { return try Output.json(org) }
            printOrg(c, org)
            try printWarningBanner(c)
        case "invite":
            try need(2)
            let role = try MemberRole(name: a.value("role") ?? "member").orThrow(CLIError.usage("usage: \(orgUsage)"))
            let made = try SharingOperations.invite(rest[0], email: rest[1], role: role, mail: a.flag("mail"), dataDirectory: c.dataDirectory)
            Console.out(c.tr("org.invited", ["email": rest[1], "role": c.tr("org.role.\(role.name)"), "date": Output.date(made.expires)]))
            Console.out("    " + made.link)
            if let mailed = made.mailed { Console.out(c.tr(mailed ? "org.invited.mailed" : "org.invited.notMailed", ["email": rest[1]])) }
            Console.out(c.tr("org.invited.trusted"))
        case "accept":
            try need(0)
            // A terminal gets a prompt and one line; otherwise the whole input (a mail holding the link).
            let text: String
            if c.input.isTerminal {
                Console.write(c.tr("org.prompt.link"), error: true)
                text = c.input.readLine() ?? ""
            } else {
                text = try c.input.readRest()
            }
            try lock()
            if a.flag("preview") {
                printPreview(c, try SharingOperations.preview(text, dataDirectory: c.dataDirectory))
                return
            }
            let preview = try SharingOperations.accept(text, dataDirectory: c.dataDirectory)
            printPreview(c, preview)
            Console.out(c.tr("org.accepted", ["name": preview.name]))
            printCode(try SharingOperations.ownCode(dataDirectory: c.dataDirectory, checkServer: false).securityCode)
        case "confirm":
            try need(2)
            let compared = a.flag("codes-match")
            guard compared != a.flag("without-comparing") else {
                throw CLIError.usage(c.tr("org.confirm.choose"), hint: "passbox org confirm ORG EMAIL --codes-match | --without-comparing")
            }
            let role = try a.value("role").map { try MemberRole(name: $0).orThrow(CLIError.usage("usage: \(orgUsage)")) }
            let org = try SharingOperations.confirm(rest[0], email: rest[1], compared: compared, role: role, password: try password(), dataDirectory: c.dataDirectory)
            Console.out(c.tr(compared ? "org.confirmed" : "org.confirmed.uncompared", ["email": rest[1], "name": org.name]))
        case "recovery":
            try need(2)
            guard ["on", "off"].contains(rest[1]) else { throw CLIError.usage("usage: \(orgUsage)") }
            if rest[1] == "off" { try lock() }
            let name = try SharingOperations.allowRecovery(rest[0], allow: rest[1] == "on", password: rest[1] == "on" ? try password() : nil, dataDirectory: c.dataDirectory)
            Console.out(c.tr(rest[1] == "on" ? "org.recovery.on" : "org.recovery.off", ["name": name]))
        case "recover":
            // The code as read out, in groups or not: there is no "without comparing" here.
            guard rest.count >= 3 else { throw CLIError.usage(c.tr("org.recover.code"), hint: "passbox org recover ORG EMAIL CODE") }
            let org = try SharingOperations.approveRecovery(
                rest[0], email: rest[1], code: rest[2...].joined(separator: " "), password: try password(), dataDirectory: c.dataDirectory)
            Console.out(c.tr("org.recovered", ["email": rest[1], "name": org.name, "epoch": String(org.epoch)]))
        case "remove":
            try need(2)
            let org = try SharingOperations.remove(rest[0], email: rest[1], password: try password(), dataDirectory: c.dataDirectory)
            Console.out(c.tr("org.removed", ["email": rest[1], "name": org.name, "epoch": String(org.epoch)]))
        case "role":
            try need(3)
            let role = try MemberRole(name: rest[2]).orThrow(CLIError.usage("usage: \(orgUsage)"))
            let org = try SharingOperations.change(rest[0], email: rest[1], role: role, state: nil, password: try password(), dataDirectory: c.dataDirectory)
            Console.out(c.tr("org.roleChanged", ["email": rest[1], "name": org.name, "role": c.tr("org.role.\(role.name)")]))
        case "pause", "resume":
            try need(2)
            let state: MemberState = action == "pause" ? .paused : .active
            let org = try SharingOperations.change(rest[0], email: rest[1], role: nil, state: state, password: try password(), dataDirectory: c.dataDirectory)
            Console.out(c.tr("org.\(action)d", ["email": rest[1], "name": org.name]))
        case "vaults":
            try need(1)
            let vaults = try SharingOperations.sharedVaults(rest[0], password: try password(), dataDirectory: c.dataDirectory)
            if a.flag("json") { return try Output.json(vaults) }
            if vaults.isEmpty { Console.out(c.tr("org.vaults.none")) }
            for v in vaults { printSharedVault(c, v) }
        case "vault-create":
            try need(2)
            let vault = try SharingOperations.createVault(rest[0], name: rest[1], password: try password(), dataDirectory: c.dataDirectory)
            Console.out(c.tr("org.vault.created", ["name": vault.name ?? rest[1]]))
        case "share":
            try need(4)
            let access: VaultAccessLevel? = rest[3] == "none" ? nil : try VaultAccessLevel(name: rest[3]).orThrow(CLIError.usage("usage: \(orgUsage)"))
            let vault = try SharingOperations.share(rest[0], vault: rest[1], email: rest[2], access: access, password: try password(), dataDirectory: c.dataDirectory)
            let name = vault.name ?? rest[1]
            Console.out(access.map { c.tr("org.shared", ["email": rest[2], "vault": name, "access": c.tr("org.access.\($0.name)")]) } ?? c.tr("org.unshared", ["email": rest[2], "vault": name]))
            if vault.rotationPending || access == nil { Console.out(c.tr("org.rotated", ["epoch": String(vault.epoch)])) }
            printSharedVault(c, vault)
        case "groups":
            try need(1)
            let org = try SharingOperations.organisation(rest[0], dataDirectory: c.dataDirectory)
            if a.flag("json") { return try Output.json(org.groups) }
            if org.groups.isEmpty { Console.out(c.tr("org.groups.none")) }
            for g in org.groups { Console.out(c.tr("org.group.line", ["name": g.name, "list": g.members.isEmpty ? "–" : g.members.joined(separator: ", ")])) }
        case "group-create", "group-delete":
            try need(2)
            let change: SharingOperations.GroupChange = action == "group-create" ? .create(rest[1]) : .delete
            let org = try SharingOperations.changeGroup(rest[0], group: action == "group-create" ? nil : rest[1], change, password: try password(), dataDirectory: c.dataDirectory)
            Console.out(c.tr(action == "group-create" ? "org.group.created" : "org.group.deleted", ["name": rest[1], "org": org.name, "epoch": String(org.epoch)]))
        case "group-add", "group-remove":
            try need(3)
            let change: SharingOperations.GroupChange = action == "group-add" ? .add(rest[2]) : .remove(rest[2])
            let org = try SharingOperations.changeGroup(rest[0], group: rest[1], change, password: try password(), dataDirectory: c.dataDirectory)
            Console.out(c.tr(action == "group-add" ? "org.group.added" : "org.group.removed", ["name": rest[1], "email": rest[2], "epoch": String(org.epoch)]))
        case "renew":
            try need(1)
            let count = try SharingOperations.renewKeys(rest[0], password: try password(), dataDirectory: c.dataDirectory)
            Console.out(c.tr("org.renewed", ["count": String(count)]))
        case "trust":
            try need(2)
            let org = try SharingOperations.trust(rest[0], code: rest[1], dataDirectory: c.dataDirectory)
            Console.out(c.tr("org.trusted", ["name": org.name]))
        case "leave":
            try need(1)
            let name = try SharingOperations.leave(rest[0], dataDirectory: c.dataDirectory)
            Console.out(c.tr("org.left", ["name": name]))
        case "revoke":
            try need(2)
            try SharingOperations.revoke(rest[0], invitation: rest[1], dataDirectory: c.dataDirectory)
            Console.out(c.tr("org.revoked", ["id": rest[1]]))
        default:
            throw CLIError.usage("usage: \(orgUsage)")
        }
    }

    static func printOrg(_ c: Context, _ org: OrgView) {
        Console.out(c.tr("org.header", ["name": org.name, "kind": c.tr("org.kind.\(org.kind)"), "version": String(org.version), "epoch": String(org.epoch)]))
        if org.status == "removed" { Console.out(c.tr("org.status.removed")) }
        if let code = org.code { Console.out(c.tr(org.trusted ? "org.code" : "org.untrusted", ["code": code, "id": org.orgID])) }
        Console.out(c.tr("org.members"))
        for m in org.members {
            let state = m.state == "active" ? "" : " · " + c.tr("org.state.\(m.state)")
            Console.out("  \(m.email)  \(c.tr("org.role.\(m.role)"))\(state)  \(c.tr("org.trust.\(m.trust)"))")
        }
        if !org.waiting.isEmpty {
            Console.out(c.tr("org.waiting"))
            for w in org.waiting {
                Console.out("  \(w.email)  \(c.tr("org.role.\(w.role)"))  \(c.tr("org.waiting.confirm", ["name": org.orgID, "email": w.email]))")
                printCode(w.securityCode)
            }
        }
        if !org.recoveries.isEmpty {
            Console.out(c.tr("org.recoveries"))
            for r in org.recoveries {
                Console.out("  \(r.email)  \(c.tr("org.recoveries.approve", ["name": org.orgID, "email": r.email]))")
                printCode(r.securityCode)
            }
        }
        if org.kind == "family" { Console.out(c.tr(org.recoveryAllowed ? "org.recovery.allowed" : "org.recovery.notAllowed", ["id": org.orgID])) }
        if !org.groups.isEmpty {
            Console.out(c.tr("org.groups"))
            for g in org.groups { Console.out("  " + c.tr("org.group.line", ["name": g.name, "list": g.members.isEmpty ? "–" : g.members.joined(separator: ", ")])) }
        }
        if !org.invitations.isEmpty {
            Console.out(c.tr("org.invitations"))
            for i in org.invitations {
                Console.out("  \(i.email)  \(c.tr("org.role.\(i.role)"))  \(c.tr("org.expires", ["date": Output.date(i.expires)]))  (passbox org revoke \(org.orgID) \(i.id))")
            }
        }
        Console.out(c.tr("org.roles.explained"))
    }

    static func printSharedVault(_ c: Context, _ v: SharedVaultView) {
        let name = v.name ?? c.tr("org.vault.noKey", ["id": v.vaultID])
        let access = v.access.map { c.tr("org.access.\($0)") } ?? c.tr("org.access.none")
        Console.out(c.tr("org.vault.line", ["name": name, "access": access, "epoch": String(v.epoch)]))
        if v.rotationPending { Console.out("    " + c.tr("org.vault.rotationPending")) }
        Console.out("    " + c.tr("org.vault.seenBy", ["list": v.seenBy.map { "\($0.email) (\(c.tr("org.access.\($0.access)")))" }.joined(separator: ", ")]))
        if !v.waitingForKey.isEmpty { Console.out("    " + c.tr("org.vault.waitingForKey", ["list": v.waitingForKey.joined(separator: ", ")])) }
    }

    static func printPreview(_ c: Context, _ p: InvitationPreview) {
        Console.out(c.tr("org.preview.\(p.kind)", ["name": p.name, "owners": p.owners.joined(separator: ", "), "count": String(p.members)]))
        Console.out(c.tr("org.preview.as", ["email": p.email, "role": c.tr("org.role.\(p.role)"), "can": c.tr("org.role.\(p.role).can"), "date": Output.date(p.expires)]))
    }

    /// "1 security warning for sharing" when there are any (SHR-17).
    static func printWarningBanner(_ c: Context) throws {
        let count = try SharingOperations.warnings(dataDirectory: c.dataDirectory).count
        if count > 0 { Console.err(c.tr("sharing.banner", ["count": String(count)])) }
    }

    static func sharing(_ c: Context, _ a: Arguments) throws {
        guard a.positionals == ["warnings"] else { throw CLIError.usage("usage: passbox sharing warnings [--json]") }
        let held = try SharingFile.lock(c.dataDirectory)
        defer { withExtendedLifetime(held) {} }
        let warnings = try SharingOperations.warnings(dataDirectory: c.dataDirectory)
        if a.flag("json") { return try Output.json(warnings) }
        if warnings.isEmpty { Console.out(c.tr("sharing.noWarnings")) }
        for w in warnings {
            Console.out(c.tr("sharing.warning.\(w.kind)", ["subject": w.subject]))
            Console.out("    " + c.tr("sharing.warning.detail", ["detail": w.detail, "date": Output.date(w.seen)]))
        }
    }
}

extension Optional {
    fileprivate func orThrow(_ error: @autoclosure () -> Error) throws -> Wrapped {
        guard let self else { throw error() }
        return self
    }
}
