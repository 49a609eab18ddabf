import Foundation
import PassboxClient
import PassboxCrypto
import PassboxHTTP
import PassboxManifest
import PassboxProtocol
import PassboxService
import PassboxStore
import PassboxTestKit
import PassboxTestSupport
import Testing

/// Families and teams end to end (SHR-24, first part: membership): real `passbox server` processes on SQLite
/// and PostgreSQL, three accounts on separate data directories, the `passbox` commands as users type them.
@Suite struct SharingIntegrationTests {
    static let password = "tulip ocean marble violin anchor"
    /// The error codes these tests provoke (`AgentOperationTests.eachErrorCodeIsProvokedWithItsFacts` counts them).
    static let errorCodes: Set<ErrorCode> = [
        .contactNotFound, .notAMember, .sharingRefused, .contactKeyChanged, .organisationNotFound, .invitationLinkInvalid, .memberNotFound, .lastOwner, .viewOnly, .vaultShared,
    ]

    static func passbox(_ data: String, _ args: [String], _ stdin: [String] = [], language: String = "en") throws -> Transcript.Result {
        try Transcript.execute(try Transcript.executablePath(), ["--data", data] + args, stdin: stdin, environment: ["PASSBOX_LANG": language, "XDG_RUNTIME_DIR": ""])
    }

    /// Signs up `name@example.org` on `server` in `DIR/name`.
    static func signUp(_ name: String, server: String, in dir: TemporaryDirectory) throws -> String {
        let data = dir.path + "/" + name
        let made = try passbox(data, ["signup", "--server", server, "--email", "\(name)@example.org"], [password, password])
        #expect(made.status == 0, "\(made.stderr)")
        return data
    }

    /// The twelve groups of a printed security code (the first code in the text).
    static func code(in text: String) -> String? {
        let groups: [String] = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init).filter { $0.count == 5 && $0.allSatisfy(\.isNumber) }
        return groups.count >= 12 ? groups[0..<12].joined(separator: " ") : nil
    }

    static func link(in text: String) -> String? {
        text.split(whereSeparator: \.isWhitespace).first { $0.contains("/invite/") }.map(String.init)
    }

    /// A server on a backend and three accounts (ann, bob, cat), each in a data directory of its own; the server
    /// and the directory last as long as the world.
    struct World {
        let dir: TemporaryDirectory
        let server: ServerProcess
        let ann: String, bob: String, cat: String
    }

    static func world(_ name: String, _ backend: Backend) throws -> World {
        let dir = try TemporaryDirectory(name)
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir, extra: try backend.serverArguments(directory: dir.path + "/server/server"))
        return World(
            dir: dir, server: server, ann: try signUp("ann", server: server.origin, in: dir), bob: try signUp("bob", server: server.origin, in: dir),
            cat: try signUp("cat", server: server.origin, in: dir))
    }

    /// `manager` invites `person@example.org` (whose data directory is `data`) into `org`; they accept; the
    /// manager confirms them without comparing (the comparing flows are tested where they matter).
    static func addMember(_ person: String, data: String, to org: String, by manager: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let link = try #require(link(in: try passbox(manager, ["org", "invite", org, "\(person)@example.org"]).stdout), sourceLocation: sourceLocation)
        #expect(try passbox(data, ["org", "accept"], [link]).status == 0, sourceLocation: sourceLocation)
        #expect(try passbox(manager, ["org", "confirm", org, "\(person)@example.org", "--without-comparing"], [password]).status == 0, sourceLocation: sourceLocation)
    }

    @Test(arguments: Backend.cases) func aFamilyInvitesAcceptsConfirmsByCodeAndRemoves(_ backend: Backend) throws {
        let w = try Self.world("passbox-sharing", backend)
        let (server, ann, bob, cat, p) = (w.server, w.ann, w.bob, w.cat, Self.password)

        // Own codes, and "Check with the server".
        let annOwn = try Self.passbox(ann, ["security-code", "--check"])
        #expect(annOwn.status == 0 && annOwn.stdout.contains("The server publishes exactly these keys"), "\(annOwn.stdout)\(annOwn.stderr)")
        let bobCode = try #require(Self.code(in: try Self.passbox(bob, ["security-code"]).stdout))

        #expect(try Self.passbox(ann, ["org"]).stdout.contains("You are in no family or team"))
        let made = try Self.passbox(ann, ["org", "create", "family", "Doe family"], [p])
        #expect(made.status == 0 && made.stdout.contains("Made the family Doe family"), "\(made.stderr)")
        let wrong = try Self.passbox(ann, ["org", "create", "team", "Nope"], ["not the password"])
        #expect(wrong.status == 3, "a wrong master password signs nothing")

        // An invitation for Bob as admin: the link carries the organisation's code after #org=.
        let invited = try Self.passbox(ann, ["org", "invite", "Doe family", "bob@example.org", "--role", "admin"])
        #expect(invited.status == 0 && invited.stdout.contains("over a channel you trust"), "\(invited.stderr)")
        let link = try #require(Self.link(in: invited.stdout))
        #expect(link.hasPrefix(server.origin + "/invite/") && link.contains("#org="))
        // A browser opening the link gets a page that says what to do, and the log never holds the token.
        let page = try HTTPGetForTests.get(String(link.split(separator: "#")[0]))
        #expect(page.contains("passbox org accept"))
        #expect(!server.log.contains(String(link.split(separator: "/").last!.split(separator: "#")[0])))

        // Preview, in a whole mail; then join. Cat cannot use Bob's invitation.
        let mail = ["Hello Bob,", "join us: <\(link)>", "Ann"]
        let preview = try Self.passbox(bob, ["org", "accept", "--preview"], mail)
        #expect(preview.stdout.contains("Family Doe family (owners: ann@example.org; 1 members)"), "\(preview.stdout)\(preview.stderr)")
        #expect(preview.stdout.contains("invited as bob@example.org, admin: invite, confirm and remove members"), "\(preview.stdout)")
        let previewDE = try Self.passbox(bob, ["org", "accept", "--preview"], mail, language: "de")
        #expect(previewDE.stdout.contains("Familie Doe family") && previewDE.stdout.contains("als Admin"), "\(previewDE.stdout)")
        let stolen = try Self.passbox(cat, ["org", "accept"], [link])
        #expect(stolen.status == 1 && stolen.stderr.contains("the invitation cannot be used"), "\(stolen.stderr)")
        let joined = try Self.passbox(bob, ["org", "accept"], mail)
        #expect(joined.status == 0 && joined.stdout.contains("wait until an owner or admin of Doe family confirms you"), "\(joined.stderr)")
        #expect(Self.code(in: joined.stdout) == bobCode, "the joiner is shown their own code to read out")
        #expect(try Self.passbox(bob, ["org", "list"]).stdout.contains("waiting for confirmation"))

        // Ann sees Bob waiting with the code Bob reads to her; confirming needs a choice.
        let shown = try Self.passbox(ann, ["org", "show", "Doe family"])
        #expect(shown.stdout.contains("Waiting for confirmation") && shown.stdout.contains("bob@example.org"), "\(shown.stdout)")
        let waitingCode = try #require(Self.code(in: String(shown.stdout[shown.stdout.range(of: "Waiting for confirmation")!.upperBound...])))
        #expect(waitingCode == bobCode)
        let unchosen = try Self.passbox(ann, ["org", "confirm", "Doe family", "bob@example.org"], [p])
        #expect(unchosen.status == 2 && unchosen.stderr.contains("compare the security code"))
        let confirmed = try Self.passbox(ann, ["org", "confirm", "Doe family", "bob@example.org", "--codes-match", "--role", "admin"], [p])
        #expect(confirmed.status == 0 && confirmed.stdout.contains("Confirmed bob@example.org in Doe family (codes compared)"), "\(confirmed.stderr)")
        let bobList = try Self.passbox(bob, ["org", "list", "--json"])
        #expect(bobList.stdout.contains("\"role\" : \"admin\"") && bobList.stdout.contains("\"status\" : \"member\""), "\(bobList.stdout)")
        let annView = try Self.passbox(ann, ["org", "show", "Doe family"])
        #expect(annView.stdout.contains("bob@example.org  admin  codes compared"), "\(annView.stdout)")

        // The family vault reached Bob with edit access; a new vault shared with him to view only.
        let bobVaults = try Self.passbox(bob, ["org", "vaults", "Doe family"], [p])
        #expect(bobVaults.stdout.contains("Doe family  (your access: edit; key epoch 1)"), "\(bobVaults.stdout)\(bobVaults.stderr)")
        #expect(bobVaults.stdout.contains("Who can see it: ann@example.org (manage), bob@example.org (edit)") || bobVaults.stdout.contains("Who can see it: bob@example.org (edit), ann@example.org (manage)"), "\(bobVaults.stdout)")
        let bank = try Self.passbox(ann, ["org", "vault-create", "Doe family", "Bank"], [p])
        #expect(bank.status == 0 && bank.stdout.contains("Made the shared vault Bank"), "\(bank.stderr)")
        let shared = try Self.passbox(ann, ["org", "share", "Doe family", "Bank", "bob@example.org", "view"], [p])
        #expect(shared.status == 0 && shared.stdout.contains("bob@example.org now has view access to Bank"), "\(shared.stdout)\(shared.stderr)")
        let bobBank = try Self.passbox(bob, ["org", "vaults", "Doe family", "--json"], [p])
        #expect(bobBank.stdout.contains("\"name\" : \"Bank\"") && bobBank.stdout.contains("\"access\" : \"view\""), "\(bobBank.stdout)")
        let germanVaults = try Self.passbox(bob, ["org", "vaults", "Doe family"], [p], language: "de")
        #expect(germanVaults.stdout.contains("Bank  (Ihr Zugriff: ansehen; Schlüsselepoche 1)"), "\(germanVaults.stdout)")

        // Bob, an admin, invites Cat and confirms her without comparing; he may not demote the owner.
        let catLink = try #require(Self.link(in: try Self.passbox(bob, ["org", "invite", "Doe family", "cat@example.org"]).stdout))
        // Pasted in the passbox:// form (SHR-10): the account's own server is meant.
        let bare = "passbox://invite/" + catLink.components(separatedBy: "/invite/")[1]
        #expect(try Self.passbox(cat, ["org", "accept"], [bare]).status == 0)
        let ownerInvite = try Self.passbox(bob, ["org", "invite", "Doe family", "dan@example.org", "--role", "owner"])
        #expect(ownerInvite.status == 1 && ownerInvite.stderr.contains("only owners and admins manage"), "\(ownerInvite.stderr)")
        let catConfirmed = try Self.passbox(bob, ["org", "confirm", "Doe family", "cat@example.org", "--without-comparing"], [p])
        #expect(catConfirmed.stdout.contains("without comparing codes"), "\(catConfirmed.stderr)")
        let demote = try Self.passbox(bob, ["org", "role", "Doe family", "ann@example.org", "member"], [p])
        #expect(demote.status == 1, "an admin cannot change an owner: \(demote.stdout)")
        let lastOwner = try Self.passbox(ann, ["org", "role", "Doe family", "ann@example.org", "admin"], [p])
        #expect(lastOwner.status == 1 && lastOwner.stderr.contains("would have no owner left"), "\(lastOwner.stderr)")
        #expect(try Self.passbox(ann, ["org", "pause", "Doe family", "cat@example.org"], [p]).stdout.contains("Paused cat@example.org"))
        #expect(try Self.passbox(cat, ["org", "show", "Doe family"]).stdout.contains("cat@example.org  member · paused"))
        #expect(!(try Self.passbox(cat, ["org", "vaults", "Doe family", "--json"], [p]).stdout.contains("\"name\" : \"Doe family\"")), "paused: no shared vault opens")
        #expect(try Self.passbox(ann, ["org", "resume", "Doe family", "cat@example.org"], [p]).status == 0)

        // Cat got the family vault when Bob confirmed her (he holds its key), not Bank.
        let catVaults = try Self.passbox(cat, ["org", "vaults", "Doe family", "--json"], [p])
        #expect(catVaults.stdout.contains("\"name\" : \"Doe family\"") && !catVaults.stdout.contains("\"name\" : \"Bank\""), "\(catVaults.stdout)")

        // Removal raises the key epoch; Cat then reads nothing of the list, and her device says so.
        let removed = try Self.passbox(ann, ["org", "remove", "Doe family", "cat@example.org"], [p])
        #expect(removed.status == 0 && removed.stdout.contains("The key epoch is now 2"), "\(removed.stderr)")
        let catShow = try Self.passbox(cat, ["org", "show", "Doe family"])
        #expect(catShow.status == 1 && catShow.stderr.contains("not a member"), "\(catShow.stderr)")
        #expect(try Self.passbox(cat, ["org", "list"]).stdout.contains("no longer in its newest member list"))
        let headAfter = try Self.passbox(bob, ["org", "show", "Doe family", "--json"])
        #expect(headAfter.stdout.contains("\"epoch\" : 2") && !headAfter.stdout.contains("cat@example.org"), "\(headAfter.stdout)")
        // Ann's removal renewed the keys of the vaults she manages: both are at epoch 2, and Bob still opens them.
        let renewed = try Self.passbox(bob, ["org", "vaults", "Doe family"], [p])
        #expect(renewed.stdout.contains("Doe family  (your access: edit; key epoch 2)") && renewed.stdout.contains("Bank  (your access: view; key epoch 2)"), "\(renewed.stdout)")
        #expect(!renewed.stdout.contains("older than the member list"))
        // Taking Bob's Bank access away rotates again; Bob keeps the family vault.
        let unshared = try Self.passbox(ann, ["org", "share", "Doe family", "Bank", "bob@example.org", "none"], [p])
        #expect(unshared.status == 0 && unshared.stdout.contains("no longer has access to Bank") && unshared.stdout.contains("key epoch is now 3"), "\(unshared.stdout)\(unshared.stderr)")
        let after = try Self.passbox(bob, ["org", "vaults", "Doe family", "--json"], [p])
        #expect(!after.stdout.contains("\"name\" : \"Bank\"") && after.stdout.contains("\"name\" : \"Doe family\""), "\(after.stdout)")
        // Bob manages members but not Bank: he cannot share it.
        let notHis = try Self.passbox(bob, ["org", "share", "Doe family", "Bank", "ann@example.org", "view"], [p])
        #expect(notHis.status != 0, "\(notHis.stdout)")

        // Leaving: the owner cannot; Bob can, and the server serves him nothing from then on; Ann's next change
        // removes him and renews the keys.
        let ownerLeaves = try Self.passbox(ann, ["org", "leave", "Doe family"])
        #expect(ownerLeaves.status == 1 && ownerLeaves.stderr.contains("would have no owner left"), "\(ownerLeaves.stderr)")
        #expect(try Self.passbox(bob, ["org", "leave", "Doe family"]).stdout.contains("You left Doe family"))
        #expect(try Self.passbox(bob, ["org", "show", "Doe family"]).stderr.contains("not a member"))
        #expect(try Self.passbox(ann, ["org", "show", "Doe family"]).stdout.contains("bob@example.org  admin · left"))
        // The server's word that someone left removes nobody by itself: Ann removes him, which renews the keys.
        #expect(try Self.passbox(ann, ["org", "vault-create", "Doe family", "Travel"], [p]).status == 0)
        #expect(try Self.passbox(ann, ["org", "show", "Doe family"]).stdout.contains("bob@example.org  admin · left"))
        #expect(try Self.passbox(ann, ["org", "remove", "Doe family", "bob@example.org"], [p]).status == 0)
        let final = try Self.passbox(ann, ["org", "show", "Doe family", "--json"])
        #expect(!final.stdout.contains("bob@example.org") && final.stdout.contains("\"epoch\" : 4"), "\(final.stdout)")

        // Revoking an open invitation; unknown names and links say what is wrong.
        let open = try Self.passbox(ann, ["org", "invite", "Doe family", "eve@example.org"])
        #expect(open.status == 0)
        let listed = try Self.passbox(ann, ["org", "show", "Doe family", "--json"])
        let id = try #require(listed.stdout.range(of: #""id" : "[A-Za-z0-9_-]+""#, options: .regularExpression).map { String(listed.stdout[$0]).split(separator: "\"")[2] })
        #expect(try Self.passbox(ann, ["org", "revoke", "Doe family", String(id)]).stdout.contains("Revoked"))
        #expect(try Self.passbox(ann, ["org", "show", "Nobody"]).stderr.contains("knows no family or team called Nobody"))
        let otherServer = try Self.passbox(bob, ["org", "accept"], ["https://elsewhere.example.org/invite/abc#org=xyz"])
        #expect(otherServer.stderr.contains("the link is for another server"), "\(otherServer.stderr)")
        let noOrg = try Self.passbox(bob, ["org", "accept"], [String(link.split(separator: "#")[0])], language: "de")
        #expect(noOrg.stderr.contains("dem Link fehlt sein Teil #org="), "\(noOrg.stderr)")
        #expect(try Self.passbox(ann, ["security-code", "nobody@example.org"]).stderr.contains("no account with the email nobody@example.org"))
        #expect(try Self.passbox(ann, ["sharing", "warnings"]).stdout.contains("No security warnings"))
    }

    @Test(arguments: Backend.cases) func aTeamSharesAVaultThroughAGroup(_ backend: Backend) throws {
        let w = try Self.world("passbox-sharing-groups", backend)
        let (ann, bob, cat, p) = (w.ann, w.bob, w.cat, Self.password)
        #expect(try Self.passbox(ann, ["org", "create", "team", "Acme"], [p]).status == 0)
        for (person, data) in [("bob", bob), ("cat", cat)] { try Self.addMember(person, data: data, to: "Acme", by: ann) }
        #expect(try Self.passbox(ann, ["org", "vaults", "Acme"], [p]).stdout.contains("No shared vaults yet"), "a team starts without a vault")
        let made = try Self.passbox(ann, ["org", "group-create", "Acme", "Sales"], [p])
        #expect(made.status == 0 && made.stdout.contains("Made the group @Sales in Acme"), "\(made.stdout)\(made.stderr)")
        #expect(try Self.passbox(ann, ["org", "group-create", "Acme", "sales"], [p]).stderr.contains("a group of that name exists already"))
        for person in ["bob", "cat"] { #expect(try Self.passbox(ann, ["org", "group-add", "Acme", "@Sales", "\(person)@example.org"], [p]).status == 0) }
        // (In account id order, which is random.)
        let groups = try Self.passbox(ann, ["org", "groups", "Acme"]).stdout
        #expect(groups.contains("@Sales: ") && groups.contains("bob@example.org") && groups.contains("cat@example.org"), "\(groups)")
        #expect(try Self.passbox(ann, ["org", "vault-create", "Acme", "Customers"], [p]).status == 0)
        let shared = try Self.passbox(ann, ["org", "share", "Acme", "Customers", "@Sales", "view"], [p])
        #expect(shared.status == 0 && shared.stdout.contains("bob@example.org (view)") && shared.stdout.contains("cat@example.org (view)"), "\(shared.stdout)\(shared.stderr)")
        for data in [bob, cat] {
            #expect(try Self.passbox(data, ["org", "vaults", "Acme"], [p]).stdout.contains("Customers  (your access: view; key epoch 1)"))
        }
        // Cat out of the group: a new epoch, new keys; she no longer opens Customers, Bob does.
        let out = try Self.passbox(ann, ["org", "group-remove", "Acme", "@Sales", "cat@example.org"], [p])
        #expect(out.status == 0 && out.stdout.contains("(key epoch 2)"), "\(out.stdout)\(out.stderr)")
        #expect(!(try Self.passbox(cat, ["org", "vaults", "Acme", "--json"], [p]).stdout.contains("\"name\" : \"Customers\"")))
        #expect(try Self.passbox(bob, ["org", "vaults", "Acme"], [p]).stdout.contains("Customers  (your access: view; key epoch 2)"))
        let german = try Self.passbox(ann, ["org", "show", "Acme"], language: "de")
        #expect(german.stdout.contains("Gruppen:") && german.stdout.contains("@Sales: bob@example.org"), "\(german.stdout)")
        // Deleting the group takes its access away.
        #expect(try Self.passbox(ann, ["org", "group-delete", "Acme", "@Sales"], [p]).stdout.contains("key epoch 3"))
        #expect(!(try Self.passbox(bob, ["org", "vaults", "Acme", "--json"], [p]).stdout.contains("\"name\" : \"Customers\"")))
    }

    /// The org id and a shared vault's id, as `org vaults --json` prints them.
    static func ids(_ data: String, org: String, vault: String) throws -> (org: String, vault: String) {
        let listed = try passbox(data, ["org", "list", "--json"]).stdout
        let orgID = try #require(listed.range(of: #""orgID" : "[A-Za-z0-9_-]+""#, options: .regularExpression).map { String(String(listed[$0]).split(separator: "\"")[2]) })
        let vaults = try passbox(data, ["org", "vaults", org, "--json"], [password]).stdout
        let views = try JSONDecoder().decode([SharedVaultView].self, from: Data(vaults.utf8))
        return (orgID, try #require(views.first { $0.name == vault }?.vaultID))
    }

    @Test(arguments: Backend.cases) func itemsOfSharedVaultsTravelBetweenMembers(_ backend: Backend) throws {
        let w = try Self.world("passbox-shared-items", backend)
        let (ann, bob, cat, p) = (w.ann, w.bob, w.cat, Self.password)
        #expect(try Self.passbox(ann, ["org", "create", "family", "Doe family"], [p]).status == 0)
        for (person, data) in [("bob", bob), ("cat", cat)] { try Self.addMember(person, data: data, to: "Doe family", by: ann) }

        // A sync brings the family vault into Ann's vaults; an item she adds there reaches Bob with its badge.
        let first = try Self.passbox(ann, ["sync"], [p])
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let added = try Self.passbox(ann, ["add", "login", "--title", "Streaming", "--username", "doe", "--url", "streaming.example.org", "--vault", "Doe family", "--password-stdin"], [p, "family-secret-1"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try Self.passbox(ann, ["add", "note", "--title", "Ann's diary", "--notes-stdin"], [p, "mine only"]).status == 0)
        #expect(try Self.passbox(ann, ["sync"], [p]).status == 0)
        let bobSync = try Self.passbox(bob, ["sync"], [p])
        #expect(bobSync.status == 0, "\(bobSync.stdout)\(bobSync.stderr)")
        let bobList = try Self.passbox(bob, ["list"], [p]).stdout
        #expect(bobList.contains("Streaming") && bobList.contains("[Doe family]"), "\(bobList)")
        #expect(!bobList.contains("Ann's diary"), "a personal item stays personal")
        let shown = try Self.passbox(bob, ["show", "Streaming", "--reveal"], [p]).stdout
        #expect(shown.contains("family-secret-1") && shown.contains("Shared:") && shown.contains("Doe family"), "\(shown)")
        let fill = try Self.passbox(bob, ["fill", "https://streaming.example.org/login"], [p]).stdout
        #expect(fill.contains("Streaming [Doe family]"), "the fill candidate carries its badge: \(fill)")
        #expect(shown.contains("Who can see it:") && shown.contains("ann@example.org (manage)") && shown.contains("bob@example.org (edit)"), "\(shown)")

        // Bob edits it; Ann's next sync brings the edit, and the list search finds it under the badge too.
        #expect(try Self.passbox(bob, ["edit", "Streaming", "--username", "doe-family"], [p]).status == 0)
        #expect(try Self.passbox(bob, ["sync"], [p]).status == 0)
        #expect(try Self.passbox(ann, ["sync"], [p]).status == 0)
        #expect(try Self.passbox(ann, ["show", "Streaming"], [p]).stdout.contains("doe-family"))

        // Files stay an account's own: a shared item takes none (yet), and says so.
        let scan = w.dir.path + "/scan.txt"
        try Data("scan".utf8).write(to: URL(fileURLWithPath: scan))
        let attached = try Self.passbox(ann, ["attach", "Streaming", scan], [p])
        #expect(attached.status != 0 && attached.stderr.contains("items of shared vaults cannot have attachments yet"), "\(attached.stdout)\(attached.stderr)")

        // Moving a personal item into the family vault says who will see it there; then they do, and it is gone
        // from Ann's own vault on the server (a move between realms is a write there and a deletion here).
        let moved = try Self.passbox(ann, ["move", "Ann's diary", "--to", "Doe family"], [p])
        #expect(moved.stdout.contains("everyone who can see it now sees them too") && moved.stdout.contains("bob@example.org (edit)"), "\(moved.stdout)\(moved.stderr)")
        #expect(try Self.passbox(ann, ["sync"], [p]).status == 0)
        #expect(try Self.passbox(bob, ["sync"], [p]).status == 0)
        #expect(try Self.passbox(bob, ["show", "Ann's diary"], [p]).stdout.contains("mine only"))

        // A vault shared with Bob to view only: he reads its item, and neither his device nor the server lets him change it.
        #expect(try Self.passbox(ann, ["org", "vault-create", "Doe family", "Bank"], [p]).status == 0)
        #expect(try Self.passbox(ann, ["org", "share", "Doe family", "Bank", "bob@example.org", "view"], [p]).status == 0)
        #expect(try Self.passbox(ann, ["sync"], [p]).status == 0)
        #expect(try Self.passbox(ann, ["add", "note", "--title", "Safe code", "--vault", "Bank", "--notes-stdin"], [p, "4711"]).status == 0)
        #expect(try Self.passbox(ann, ["sync"], [p]).status == 0)
        #expect(try Self.passbox(bob, ["sync"], [p]).status == 0)
        let safe = try Self.passbox(bob, ["show", "Safe code"], [p]).stdout
        #expect(safe.contains("4711") && safe.contains("Doe family · Bank (view only)"), "\(safe)")
        let edit = try Self.passbox(bob, ["edit", "Safe code", "--title", "Mine now"], [p])
        #expect(edit.status == 1 && edit.stderr.contains("Bank is shared with you to view only"), "\(edit.stderr)")
        let trash = try Self.passbox(bob, ["rm", "Safe code"], [p], language: "de")
        #expect(trash.status == 1 && trash.stderr.contains("nur zum Ansehen"), "\(trash.stderr)")
        let rename = try Self.passbox(bob, ["vault", "edit", "Bank", "--name", "Mine"], [p])
        #expect(rename.status != 0 && rename.stderr.contains("is a shared vault"), "\(rename.stdout)\(rename.stderr)")
        let (orgID, bankID) = try Self.ids(bob, org: "Doe family", vault: "Bank")
        let record = try #require(try AccountRecord.load(bob))
        let client = try SyncClient(server: record.server, token: record.token ?? "")
        let write = SyncVaultWrite(vaultID: bankID, baseVersion: 1, manifest: Data([1, 2, 3]), keyVersion: 1, key: nil, meta: nil, items: [])
        let body = Array(try ProtocolCoding.wireEncode(SyncPushRequest(opID: "view-only-try", vaults: [write], orgID: orgID)))
        #expect(throws: ProtocolError(.viewOnly)) { try client.push(body) }

        // Cat is removed: a new key epoch. What Ann writes after it reaches Bob and never Cat, whose device keeps
        // what it had, to view only.
        #expect(try Self.passbox(cat, ["sync"], [p]).status == 0)
        #expect(try Self.passbox(cat, ["list"], [p]).stdout.contains("Streaming"))
        // Cat writes just before; Ann removes her before her device saw that write: it is still believed (Cat
        // could edit at that key epoch), and nothing is stuck.
        #expect(try Self.passbox(cat, ["add", "note", "--title", "Cat's last", "--vault", "Doe family"], [p]).status == 0)
        #expect(try Self.passbox(cat, ["sync"], [p]).status == 0)
        #expect(try Self.passbox(ann, ["org", "remove", "Doe family", "cat@example.org"], [p]).status == 0)
        // Dan joins now: his device never saw Cat in the list, but the versions it verifies show she could
        // edit at the key epoch of her write, so his first sync takes it (her note is under the old key, which
        // he was never given: listed as not opened until an editor seals it again).
        let dan = try Self.signUp("dan", server: w.server.origin, in: w.dir)
        try Self.addMember("dan", data: dan, to: "Doe family", by: ann)
        let danFirst = try Self.passbox(dan, ["sync"], [p])
        #expect(danFirst.status == 0, "\(danFirst.stdout)\(danFirst.stderr)")
        // Ann manages both vaults: her next sync seals their four items again under the new keys.
        let rotated = try Self.passbox(ann, ["sync"], [p])
        #expect(rotated.status == 0 && rotated.stdout.contains("1 changes pulled, 4 pushed"), "\(rotated.stdout)\(rotated.stderr)")
        #expect(try Self.passbox(ann, ["add", "note", "--title", "After Cat", "--vault", "Doe family", "--notes-stdin"], [p, "new epoch"]).status == 0)
        #expect(try Self.passbox(ann, ["sync"], [p]).status == 0)
        let bobRenewed = try Self.passbox(bob, ["sync"], [p])
        #expect(bobRenewed.status == 0, "\(bobRenewed.stdout)\(bobRenewed.stderr)")
        let bobAfter = try Self.passbox(bob, ["show", "After Cat"], [p])
        #expect(bobAfter.status == 0 && bobAfter.stdout.contains("new epoch"), "\(bobAfter.stdout)\(bobAfter.stderr)")
        #expect(try Self.passbox(bob, ["show", "Streaming"], [p]).stdout.contains("doe-family"), "items of the old epoch still open")
        let catSync = try Self.passbox(cat, ["sync"], [p])
        #expect(catSync.status == 0, "\(catSync.stdout)\(catSync.stderr)")
        let catList = try Self.passbox(cat, ["list"], [p]).stdout
        #expect(catList.contains("Streaming") && !catList.contains("After Cat"), "\(catList)")
        #expect(try Self.passbox(dan, ["sync"], [p]).status == 0)
        #expect(try Self.passbox(dan, ["show", "Cat's last"], [p]).status == 0, "sealed again under the new key, Dan opens it")
        #expect(try Self.passbox(cat, ["edit", "Streaming", "--username", "cat"], [p]).stderr.contains("to view only"))

        // A vault shared with Bob after its items were written (and the family's revisions moved on) reaches him
        // whole; losing access to one vault closes it on his device (kept to view only) and the others sync on.
        #expect(try Self.passbox(ann, ["org", "vault-create", "Doe family", "Travel"], [p]).status == 0)
        #expect(try Self.passbox(ann, ["sync"], [p]).status == 0)
        #expect(try Self.passbox(ann, ["add", "note", "--title", "Passports", "--vault", "Travel"], [p]).status == 0)
        #expect(try Self.passbox(ann, ["edit", "Streaming", "--username", "doe-again"], [p]).status == 0)
        #expect(try Self.passbox(ann, ["sync"], [p]).status == 0)
        #expect(try Self.passbox(bob, ["sync"], [p]).status == 0)
        #expect(try Self.passbox(ann, ["org", "share", "Doe family", "Travel", "bob@example.org", "edit"], [p]).status == 0)
        let late = try Self.passbox(bob, ["sync"], [p])
        #expect(late.status == 0, "\(late.stdout)\(late.stderr)")
        #expect(try Self.passbox(bob, ["show", "Passports"], [p]).status == 0, "the late vault's items came")
        #expect(try Self.passbox(ann, ["org", "share", "Doe family", "Bank", "bob@example.org", "none"], [p]).status == 0)
        #expect(try Self.passbox(ann, ["sync"], [p]).status == 0)
        let closed = try Self.passbox(bob, ["sync"], [p])
        #expect(closed.status == 0, "\(closed.stdout)\(closed.stderr)")
        #expect(try Self.passbox(bob, ["show", "Safe code"], [p]).stdout.contains("(view only)"))
        #expect(try Self.passbox(bob, ["edit", "Passports", "--title", "Passports 2026"], [p]).status == 0)
        #expect(try Self.passbox(bob, ["sync"], [p]).status == 0)
        #expect(try Self.passbox(ann, ["sync"], [p]).status == 0)
        #expect(try Self.passbox(ann, ["show", "Passports 2026"], [p]).status == 0, "the other vaults sync on")
    }

    /// A member's live wait (the agent's long poll) wakes when another member changes a shared vault, though
    /// the member's own revision did not move: the agent then syncs within a moment.
    @Test(arguments: Backend.cases) func aMembersLongPollWakesWhenASharedVaultChanges(_ backend: Backend) throws {
        let w = try Self.world("passbox-shared-wake", backend)
        let (ann, bob, p) = (w.ann, w.bob, Self.password)
        #expect(try Self.passbox(ann, ["org", "create", "family", "Doe family"], [p]).status == 0)
        try Self.addMember("bob", data: bob, to: "Doe family", by: ann)
        #expect(try Self.passbox(ann, ["sync"], [p]).status == 0)
        #expect(try Self.passbox(bob, ["sync"], [p]).status == 0)
        let record = try #require(try AccountRecord.load(bob))
        let client = try SyncClient(server: record.server, token: record.token ?? "")
        let first = try client.pull(since: 0)
        let since = first.latest ?? first.revision
        let woke = ThreadResult<SyncWaitReply>()
        let done = DispatchSemaphore(value: 0)
        Thread {
            woke.result = Result { try client.wait(since: since) }
            done.signal()
        }.start()
        // Each change by Ann wakes Bob's wait once it is registered: she changes the family vault until it has.
        var round = 0
        repeat {
            round += 1
            #expect(try Self.passbox(ann, ["add", "note", "--title", "Note \(round)", "--vault", "Doe family"], [p]).status == 0)
            #expect(try Self.passbox(ann, ["sync"], [p]).status == 0)
        } while done.wait(timeout: .now() + 1) == .timedOut && round < 10
        let reply = try #require(try woke.result?.get())
        #expect(reply.shared == true && reply.revision == since, "woken by the shared vault's change, the account's revision unchanged")
    }

    /// Organisation recovery (ACC-10, ACC-11): Bob lets his family's owners help him; having lost master password
    /// and Secret Key, he asks from a new device; Ann compares his new code and lets him back in; he signs in
    /// with the new credentials and his family's vault comes back, his own vault does not.
    @Test(arguments: Backend.cases) func aFamilyOwnerLetsAMemberWhoLostEverythingBackIn(_ backend: Backend) throws {
        let w = try Self.world("passbox-family-recovery", backend)
        let (ann, bob, cat, p) = (w.ann, w.bob, w.cat, Self.password)
        #expect(try Self.passbox(ann, ["org", "create", "family", "Doe family"], [p]).status == 0)
        for (person, data) in [("bob", bob), ("cat", cat)] { try Self.addMember(person, data: data, to: "Doe family", by: ann) }
        // Bob is in a team too, whose list keeps his old keys after the family lets him back in.
        #expect(try Self.passbox(ann, ["org", "create", "team", "Acme"], [p]).status == 0)
        try Self.addMember("bob", data: bob, to: "Acme", by: ann)
        #expect(try Self.passbox(ann, ["sync"], [p]).status == 0)
        #expect(try Self.passbox(ann, ["add", "note", "--title", "Family plan", "--vault", "Doe family", "--notes-stdin"], [p, "shared"]).status == 0)
        #expect(try Self.passbox(ann, ["sync"], [p]).status == 0)
        #expect(try Self.passbox(bob, ["add", "note", "--title", "Bob's own", "--notes-stdin"], [p, "private"]).status == 0)
        #expect(try Self.passbox(bob, ["sync"], [p]).status == 0)

        // Without Bob's consent nobody can start it; with it, his Recovery status says so.
        let fresh = w.dir.path + "/bob-new"
        let newPassword = "lantern harbour pepper violet cobalt"
        let refused = try Self.passbox(fresh, ["recover", "--family", "--server", w.server.origin, "--email", "bob@example.org"], [newPassword, newPassword])
        #expect(refused.status != 0, "no consent, no recovery: \(refused.stdout)")
        #expect(try Self.passbox(bob, ["org", "recovery", "Doe family", "on"], ["not the password"]).status == 3, "turning it on takes the master password")
        let allowed = try Self.passbox(bob, ["org", "recovery", "Doe family", "on"], [p])
        #expect(allowed.status == 0 && allowed.stdout.contains("They cannot read your own vaults"), "\(allowed.stdout)\(allowed.stderr)")
        #expect(try Self.passbox(bob, ["recovery"]).stdout.contains("the owners of Doe family can help you back in"))
        #expect(try Self.passbox(bob, ["org", "show", "Doe family"], language: "de").stdout.contains("Sie lassen sich von den Eigentümern"))

        // Bob, on a new device with nothing of his account, asks; he gets a new Secret Key and a new code.
        let asked = try Self.passbox(fresh, ["recover", "--family", "--server", w.server.origin, "--email", "bob@example.org"], [newPassword, newPassword])
        #expect(asked.status == 0, "\(asked.stdout)\(asked.stderr)")
        let newCode = try #require(Self.code(in: asked.stdout))
        let key = try #require(asked.stdout.range(of: #"P1-[0-9A-Z]{6}(-[0-9A-Z]{5,6}){5}"#, options: .regularExpression).map { String(asked.stdout[$0]) })
        // His old credentials still work until an owner approves.
        #expect(try Self.passbox(bob, ["sync"], [p]).status == 0)

        // Cat is no owner: she sees no request and cannot approve. Ann sees it with the new code.
        #expect(try Self.passbox(cat, ["org", "recover", "Doe family", "bob@example.org", newCode], [p]).status != 0)
        let shown = try Self.passbox(ann, ["org", "show", "Doe family"])
        #expect(shown.stdout.contains("Asking to be let back in") && shown.stdout.contains("passbox org recover"), "\(shown.stdout)")
        let requestCode = try #require(Self.code(in: String(shown.stdout[shown.stdout.range(of: "Asking to be let back in")!.upperBound...])))
        #expect(requestCode == newCode, "the owner sees the code Bob reads out")
        // Mallory, who knows Bob's email, asks too (her keys replace his request): Ann, giving the code Bob read
        // out, lets nobody in; nothing changes for Bob.
        let mallory = w.dir.path + "/mallory"
        #expect(try Self.passbox(mallory, ["recover", "--family", "--server", w.server.origin, "--email", "bob@example.org"], ["evil plans evil plans 42", "evil plans evil plans 42"]).status == 0)
        let swapped = try Self.passbox(ann, ["org", "recover", "Doe family", "bob@example.org", newCode], [p])
        #expect(swapped.status == 1 && swapped.stderr.contains("are not the ones whose code you gave"), "\(swapped.stdout)\(swapped.stderr)")
        #expect(try Self.passbox(bob, ["sync"], [p]).status == 0, "Bob's credentials are as they were")
        // Bob asks again; Ann gives the code he reads out now.
        let again = try Self.passbox(fresh, ["recover", "--family", "--server", w.server.origin, "--email", "bob@example.org"], [newPassword, newPassword])
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        let finalCode = try #require(Self.code(in: again.stdout))
        let finalKey = try #require(again.stdout.range(of: #"P1-[0-9A-Z]{6}(-[0-9A-Z]{5,6}){5}"#, options: .regularExpression).map { String(again.stdout[$0]) })
        let approved = try Self.passbox(ann, ["org", "recover", "Doe family", "bob@example.org", finalCode], [p])
        #expect(approved.status == 0 && approved.stdout.contains("Let bob@example.org back in"), "\(approved.stdout)\(approved.stderr)")
        // Ann's next sync seals the family's items again under the new key, which Bob's new keys were given.
        #expect(try Self.passbox(ann, ["sync"], [p]).status == 0)

        // The old credentials are gone; the new ones sign in. After comparing the family's code (a new device),
        // the family vault syncs back; Bob's own vault is gone.
        #expect(try Self.passbox(bob, ["sync"], [p]).status != 0, "the old session ended")
        #expect(key != finalKey)
        let signedIn = try Self.passbox(fresh, ["signin", "--server", w.server.origin, "--email", "bob@example.org"], [newPassword, finalKey])
        #expect(signedIn.status == 0, "\(signedIn.stdout)\(signedIn.stderr)")
        let annJSON = try Self.passbox(ann, ["org", "show", "Doe family", "--json"]).stdout
        let familyCode = try #require(annJSON.range(of: #""code" : "[A-Za-z0-9_-]+""#, options: .regularExpression).map { String(String(annJSON[$0]).split(separator: "\"")[2]) })
        #expect(try Self.passbox(fresh, ["org", "trust", "Doe family", familyCode]).status == 0)
        let synced = try Self.passbox(fresh, ["sync"], [newPassword])
        #expect(synced.status == 0, "\(synced.stdout)\(synced.stderr)")
        #expect(try Self.passbox(fresh, ["show", "Family plan"], [newPassword]).stdout.contains("shared"))
        #expect(try Self.passbox(fresh, ["show", "Bob's own"], [newPassword]).status != 0, "his own vaults could not be kept")
        // The team's list still holds his old keys: it is shown as not verifying, beside the family.
        let orgs = try Self.passbox(fresh, ["org", "list"])
        #expect(orgs.status == 0 && orgs.stdout.contains("Doe family") && orgs.stdout.contains("its member list does not verify here"), "\(orgs.stdout)\(orgs.stderr)")
        let ownCode = try Self.passbox(fresh, ["security-code"])
        #expect(Self.code(in: ownCode.stdout) == finalCode, "\(ownCode.stdout)\(ownCode.stderr)")
    }

    /// A mail sink on this machine (Python's smtpd, in Debian's python3): each message it takes is appended to
    /// `file` with its envelope recipients.
    static let smtpSink = """
        import asyncore, smtpd, sys, warnings
        warnings.simplefilter("ignore")
        class Sink(smtpd.SMTPServer):
            def process_message(self, peer, sender, rcpttos, data, **kw):
                with open(sys.argv[2], "ab") as f:
                    f.write(("RCPT " + ",".join(rcpttos) + "\\n").encode() + (data if isinstance(data, bytes) else data.encode()) + b"\\n.\\n")
        Sink(("127.0.0.1", int(sys.argv[1])), None, decode_data=False)
        open(sys.argv[3], "w").close()
        asyncore.loop()
        """

    @Test func anInvitationIsMailedWhenTheServerSendsMail() throws {
        let dir = try TemporaryDirectory("passbox-sharing-mail")
        let port = try PostgresCluster.freePort()
        let mails = dir.path + "/mails.txt"
        let ready = dir.path + "/sink-ready"
        let sink = Process()
        sink.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        sink.arguments = ["-c", Self.smtpSink, String(port), mails, ready]
        sink.standardOutput = FileHandle.nullDevice
        sink.standardError = FileHandle.nullDevice
        try sink.run()
        defer {
            // SIGKILL: a child of the test process may inherit a signal mask that holds SIGTERM back.
            kill(sink.processIdentifier, SIGKILL)
            sink.waitUntilExit()
        }
        // The sink makes its ready file once it listens: waited for (the condition, never a fixed time).
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: ready), sink.isRunning, Date() < deadline { usleep(20_000) }
        try #require(FileManager.default.fileExists(atPath: ready), "the mail sink did not start")
        let server = try ServerProcess(
            dataDirectory: dir.path + "/server", in: dir, extra: ["--server-data", dir.path + "/server/server", "--smtp", "smtp://127.0.0.1:\(port)", "--smtp-from", "passbox@example.org"])
        let ann = try Self.signUp("ann", server: server.origin, in: dir)
        let bob = try Self.signUp("bob", server: server.origin, in: dir)
        #expect(try Self.passbox(ann, ["org", "create", "family", "Doe family"], [Self.password]).status == 0)
        let invited = try Self.passbox(ann, ["org", "invite", "Doe family", "bob@example.org", "--mail"])
        #expect(invited.status == 0 && invited.stdout.contains("The server mailed the link to bob@example.org"), "\(invited.stdout)\(invited.stderr)")
        let link = try #require(Self.link(in: invited.stdout))
        // The mail was taken before the answer came (the server sends it in the request).
        let mail = String(decoding: FileManager.default.contents(atPath: mails) ?? Data(), as: UTF8.self)
        #expect(mail.contains("RCPT bob@example.org") && mail.contains(link) && mail.contains("Subject: =?UTF-8?B?"), "\(mail)")
        #expect(!server.log.contains("bob@example.org"), "the log holds no address")
        // The mail as Bob got it joins: the server's organisation code is the one the inviter's device shows.
        let joined = try Self.passbox(bob, ["org", "accept"], mail.split(separator: "\n").map(String.init))
        #expect(joined.status == 0 && joined.stdout.contains("Joined"), "\(joined.stdout)\(joined.stderr)")
        // A server without --smtp says so, and the link is still printed.
        let plain = try ServerProcess(dataDirectory: dir.path + "/plain", in: dir, extra: ["--server-data", dir.path + "/plain/server"], name: "plain")
        let cat = try Self.signUp("cat", server: plain.origin, in: dir)
        #expect(try Self.passbox(cat, ["org", "create", "team", "Solo"], [Self.password]).status == 0)
        let unmailed = try Self.passbox(cat, ["org", "invite", "Solo", "dan@example.org", "--mail"])
        #expect(unmailed.status == 0 && unmailed.stdout.contains("did not mail it") && Self.link(in: unmailed.stdout) != nil, "\(unmailed.stdout)")
    }
}

/// A plain GET for a page (the invitation link as a browser opens it).
enum HTTPGetForTests {
    static func get(_ url: String) throws -> String {
        let answer = try HTTPGet.exchange("GET", url, headers: [], body: nil, timeoutSeconds: 10)
        return String(decoding: answer.body, as: UTF8.self)
    }
}
