import Foundation
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxHTTP
import PassboxManifest
import PassboxProtocol
import PassboxStore
import PassboxTestKit
import PassboxTestSupport
import Testing

/// The sharing classes of security.md §6b: a proxy in front of a real `passbox server` changes one answer,
/// and the device refuses it with a clear error and a sharing warning, keeps what it verified before, and
/// seals nothing to a key the user did not accept. (Grants by a non-manager or to an unpinned key are refused
/// by `VaultGrant.open`, pinned in `MemberListTests`.)
@Suite struct HostileSharingTests {
    let password = SharingIntegrationTests.password

    struct World {
        let dir: TemporaryDirectory
        let proxy: MutatingProxy
        let server: ServerProcess
        func data(_ name: String) -> String { dir.path + "/" + name }
    }

    func world(_ name: String, people: [String]) throws -> World {
        let dir = try TemporaryDirectory("passbox-hostile-sharing-" + name)
        let proxy = try MutatingProxy()
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir, extra: ["--origin", proxy.origin], port: try PostgresCluster.freePort())
        proxy.target = server.address
        for person in people { _ = try SharingIntegrationTests.signUp(person, server: proxy.origin, in: dir) }
        return World(dir: dir, proxy: proxy, server: server)
    }

    func passbox(_ data: String, _ args: [String], _ stdin: [String] = []) throws -> Transcript.Result { try SharingIntegrationTests.passbox(data, args, stdin) }

    /// The directory's answer for `email` with the keys of the account in `data` (a valid bundle of another account).
    static func substitutedLookup(email: String, keysOf data: String) throws -> [UInt8] {
        let record = try #require(try AccountRecord.load(data))
        let reply = KeyLookupReply(accountID: record.accountID, email: email, bundle: Data(record.keyset.prefix(KeyBundle.length)))
        return Array(try ProtocolCoding.wireEncode(reply))
    }

    static func lookupFor(_ email: String, _ request: [UInt8]) -> Bool {
        (try? ProtocolCoding.wireDecode(KeyLookupRequest.self, from: Data(request)))?.email == email
    }

    @Test func aSubstitutedKeyIsCaughtAtFirstAndAtLaterLookups() throws {
        let w = try world("keys", people: ["ann", "bob", "eve"])
        let ann = w.data("ann"), bob = w.data("bob")
        let bobCode = try #require(SharingIntegrationTests.code(in: try passbox(bob, ["security-code"]).stdout))
        let forged = try Self.substitutedLookup(email: "bob@example.org", keysOf: w.data("eve"))

        // First lookup: the server hands Ann Eve's keys for Bob. Pinned at first sight, but the code Ann sees is
        // not the one Bob reads to her: comparing codes is what catches it.
        w.proxy.armRewrite { path, request, _ in path == "/v1/keys" && Self.lookupFor("bob@example.org", request) ? forged : nil }
        let first = try passbox(ann, ["security-code", "bob@example.org"])
        #expect(first.status == 0 && first.stdout.contains("seen for the first time and pinned now"))
        #expect(SharingIntegrationTests.code(in: first.stdout) != bobCode)
        w.proxy.disarm()

        // Bob joins honestly; his real keys are not the pinned ones, so Ann's confirmation refuses, with a warning.
        #expect(try passbox(ann, ["org", "create", "family", "Doe family"], [password]).status == 0)
        let link = try #require(SharingIntegrationTests.link(in: try passbox(ann, ["org", "invite", "Doe family", "bob@example.org"]).stdout))
        #expect(try passbox(bob, ["org", "accept"], [link]).status == 0)
        let refused = try passbox(ann, ["org", "confirm", "Doe family", "bob@example.org", "--codes-match"], [password])
        #expect(refused.status == 1 && refused.stderr.contains("the keys of bob@example.org changed since this device first saw them"), "\(refused.stderr)")
        let warnings = try passbox(ann, ["sharing", "warnings"])
        #expect(warnings.stdout.contains("The keys of bob@example.org changed"), "the directory now shows other keys than the pin: \(warnings.stdout)")
        #expect(try passbox(ann, ["org", "show", "Doe family", "--json"]).stdout.contains("\"version\" : 1"), "nothing was signed")
        #expect(try passbox(ann, ["org", "list"]).stderr.contains("security warning"), "the banner")

        // After comparing the new code with Bob, Ann accepts it; then the confirmation goes through.
        let accepted = try passbox(ann, ["security-code", "bob@example.org", "--accept-new"])
        #expect(accepted.status == 0 && SharingIntegrationTests.code(in: accepted.stdout) == bobCode)
        // The waiting entry itself substituted (the directory honest): refused, nothing signed.
        let eveRecord = try #require(try AccountRecord.load(w.data("eve")))
        let eveBundle = Data(eveRecord.keyset.prefix(KeyBundle.length)), eveID = eveRecord.accountID
        w.proxy.armRewrite { path, _, body in
            guard path == "/v1/orgs/fetch", var reply = try? ProtocolCoding.wireDecode(OrgFetchReply.self, from: Data(body)), !reply.waiting.isEmpty else { return nil }
            reply.waiting[0].bundle = eveBundle
            reply.waiting[0].accountID = eveID
            return (try? ProtocolCoding.wireEncode(reply)).map(Array.init)
        }
        let swapped = try passbox(ann, ["org", "confirm", "Doe family", "bob@example.org", "--codes-match"], [password])
        #expect(swapped.status == 1 && swapped.stderr.contains("not the keys this device pinned"), "\(swapped.stderr)")
        w.proxy.disarm()
        #expect(try passbox(ann, ["sharing", "warnings"]).stdout.contains("A member list or waiting entry holds other keys for bob@example.org"))
        // The server says Bob was invited as owner: its word makes nobody an owner (the user's --role would).
        w.proxy.armRewrite { path, _, body in
            guard path == "/v1/orgs/fetch", var reply = try? ProtocolCoding.wireDecode(OrgFetchReply.self, from: Data(body)), !reply.waiting.isEmpty else { return nil }
            reply.waiting[0].role = "owner"
            return (try? ProtocolCoding.wireEncode(reply)).map(Array.init)
        }
        #expect(try passbox(ann, ["org", "confirm", "Doe family", "bob@example.org", "--codes-match"], [password]).status == 0)
        w.proxy.disarm()
        #expect(try passbox(ann, ["org", "show", "Doe family"]).stdout.contains("bob@example.org  member"), "confirmed as member, not owner")

        // A later lookup: the server substitutes again. The pin stays in force, the change is shown and refused.
        w.proxy.armRewrite { path, request, _ in path == "/v1/keys" && Self.lookupFor("bob@example.org", request) ? forged : nil }
        let later = try passbox(ann, ["security-code", "bob@example.org"])
        #expect(later.status == 1 && later.stdout.contains("The server now shows other keys for bob@example.org"), "\(later.stdout)")
        #expect(SharingIntegrationTests.code(in: later.stdout) == bobCode, "the pinned code is shown first")
        #expect(later.stderr.contains("compare the new code with them"))
        // Keys swapped again between the comparison and --accept-new: the new ones are not taken.
        let other = try Self.substitutedLookup(email: "bob@example.org", keysOf: w.data("ann"))
        w.proxy.armRewrite { path, request, _ in path == "/v1/keys" && Self.lookupFor("bob@example.org", request) ? other : nil }
        let swappedAccept = try passbox(ann, ["security-code", "bob@example.org", "--accept-new"])
        #expect(swappedAccept.status == 1 && SharingIntegrationTests.code(in: swappedAccept.stdout) == bobCode, "the pin stays: \(swappedAccept.stdout)")
        w.proxy.disarm()
        let honest = try passbox(ann, ["security-code", "bob@example.org"])
        #expect(honest.status == 0 && honest.stdout.contains("(compared)"), "\(honest.stdout)")
        // "Check with the server" for one's own keys catches a server that publishes other keys for oneself.
        let own = try Self.substitutedLookup(email: "ann@example.org", keysOf: w.data("eve"))
        w.proxy.armRewrite { path, request, _ in path == "/v1/keys" && Self.lookupFor("ann@example.org", request) ? own : nil }
        let check = try passbox(ann, ["security-code", "--check"])
        #expect(check.status == 1 && check.stderr.contains("the server publishes other keys for you"), "\(check.stderr)")
    }

    /// Ann's signing key, opened from her data directory with the master password (what only Ann can do).
    func signingKey(_ data: String) throws -> (String, SigningKey) {
        let record = try #require(try AccountRecord.load(data))
        let keyset = try #require(try AccountVaultKey(record).openedKeyset(password: SecretBytes(copying: Array(password.utf8))))
        return (record.accountID, keyset.signingKey)
    }

    static func versions(_ body: [UInt8]) throws -> (OrgFetchReply, [MemberListVersion]) {
        let reply = try ProtocolCoding.wireDecode(OrgFetchReply.self, from: Data(body))
        return (reply, try reply.versions.map { try MemberListVersion(decoding: Array($0)) })
    }

    static func answer(_ reply: OrgFetchReply, _ versions: [MemberListVersion]) -> [UInt8] {
        var changed = reply
        changed.versions = versions.map { Data($0.encoded) }
        return Array((try? ProtocolCoding.wireEncode(changed)) ?? Data())
    }

    @Test func aMemberListThatDoesNotVerifyForksOrGoesBackIsRefused() throws {
        let w = try world("lists", people: ["ann", "bob", "cat", "dan"])
        let ann = w.data("ann"), bob = w.data("bob"), cat = w.data("cat"), dan = w.data("dan")
        #expect(try passbox(ann, ["org", "create", "team", "Sales"], [password]).status == 0)
        for (person, data) in [("bob", bob), ("cat", cat)] {
            try SharingIntegrationTests.addMember(person, data: data, to: "Sales", by: ann)
            // Bob keeps version 2 (himself added); Cat's addition is version 3, which he has not seen.
            if person == "bob" { #expect(try passbox(bob, ["org", "show", "Sales"]).status == 0) }
        }
        let kept = try SharingFile.load(bob).lists
        let (annID, annKey) = try signingKey(ann)
        // The chain as the server keeps it, read with Ann's session straight from the server.
        let annRecord = try #require(try AccountRecord.load(ann))
        let chain = try AccountClient(server: w.server.address).fetchList(orgID: try #require(kept.first?.orgID), since: 0, token: annRecord.token ?? "").versions
        let first = try MemberListVersion(decoding: Array(try #require(chain.first)))
        let eveKey = try SigningKey.generate(), eveBox = try BoxKeyPair.generate()
        let eve = ListMember(accountID: "EVE666", email: "eve@example.org", role: .owner, keys: IdentityKeys(signPublicKey: eveKey.publicKey, boxPublicKey: eveBox.publicKey))

        let attacks: [(String, String, @Sendable (OrgFetchReply, [MemberListVersion]) -> [UInt8])] = [
            // The server makes Cat an owner in version 3 without anyone's signature.
            ("roleChanged", "not validly signed", { reply, versions in
                var v = versions
                if var last = v.popLast(), let cat = last.members.first(where: { $0.email == "cat@example.org" }) {
                    var owner = cat
                    owner.role = .owner
                    last.set(member: cat.accountID, owner)
                    v.append(last)
                }
                return Self.answer(reply, v)
            }),
            // A version adding Eve, signed by Eve, whom no version lists.
            ("memberNobodySigned", "signerNotAllowed", { reply, versions in
                guard let last = versions.last else { return Self.answer(reply, versions) }
                var forged = last.next(signer: eve.accountID)
                forged.set(member: eve.accountID, eve)
                forged.sign(with: eveKey)
                return Self.answer(reply, versions + [forged])
            }),
            // Version 1 only, to a device that saw version 2.
            ("goesBack", "older than version 2", { reply, _ in Self.answer(reply, [first]) }),
            // Another version 2, validly signed by Ann (she signed two; the server shows Bob the other one).
            ("fork", "other than the one this device saw", { reply, versions in
                guard let third = versions.first else { return Self.answer(reply, versions) }
                var other = third
                other.version = 2
                other.name = "Sales (other)"
                other.signer = annID
                other.sign(with: annKey)
                return Self.answer(reply, [other])
            }),
        ]
        for (name, words, change) in attacks {
            w.proxy.armRewrite { path, _, body in
                guard path == "/v1/orgs/fetch", let (reply, versions) = try? Self.versions(body) else { return nil }
                return change(reply, versions)
            }
            let shown = try passbox(bob, ["org", "show", "Sales"])
            #expect(shown.status == 1 && shown.stderr.contains(words), "\(name): \(shown.stderr)")
            #expect(try SharingFile.load(bob).lists == kept, "\(name): the kept head is as it was")
            w.proxy.disarm()
        }
        let warnings = try passbox(bob, ["sharing", "warnings"])
        #expect(warnings.stdout.contains("does not verify") && warnings.stdout.contains("two different member lists") && warnings.stdout.contains("an older member list"), "\(warnings.stdout)")
        // Honest again: Bob verifies version 3 on top of what he kept.
        let honest = try passbox(bob, ["org", "show", "Sales", "--json"])
        #expect(honest.status == 0 && honest.stdout.contains("\"version\" : 3") && honest.stdout.contains("cat@example.org"), "\(honest.stdout)")

        // A second invitation for Bob whose preview shows an older list than the one he keeps: refused.
        let again = try #require(SharingIntegrationTests.link(in: try passbox(ann, ["org", "invite", "Sales", "bob@example.org"]).stdout))
        w.proxy.armRewrite { path, _, body in
            guard path == "/v1/invitations/preview", var reply = try? ProtocolCoding.wireDecode(InvitationPreviewReply.self, from: Data(body)) else { return nil }
            reply.versions = Array(reply.versions.prefix(2))
            return (try? ProtocolCoding.wireEncode(reply)).map(Array.init)
        }
        let rolledBack = try passbox(bob, ["org", "accept"], [again])
        #expect(rolledBack.status == 1 && rolledBack.stderr.contains("older than version 3"), "\(rolledBack.stderr)")
        w.proxy.disarm()
        #expect(try passbox(bob, ["org", "show", "Sales", "--json"]).stdout.contains("\"version\" : 3"), "the kept list is as it was")

        // A forged invitation organisation: Dan's invitation names Sales, the server shows Eve's look-alike.
        let link = try #require(SharingIntegrationTests.link(in: try passbox(ann, ["org", "invite", "Sales", "dan@example.org"]).stdout))
        let orgID = try #require(kept.first?.orgID)
        var lookalike = MemberListVersion.genesis(orgID: orgID, kind: .team, name: "Sales", creator: eve)
        lookalike.sign(with: eveKey)
        let lookalikeBytes = Data(lookalike.encoded)
        w.proxy.armRewrite { path, _, body in
            guard path == "/v1/invitations/preview", var reply = try? ProtocolCoding.wireDecode(InvitationPreviewReply.self, from: Data(body)) else { return nil }
            reply.versions = [lookalikeBytes]
            return (try? ProtocolCoding.wireEncode(reply)).map(Array.init)
        }
        let forged = try passbox(dan, ["org", "accept"], [link])
        #expect(forged.status == 1 && forged.stderr.contains("is not the one the invitation link names"), "\(forged.stderr)")
        w.proxy.disarm()
        #expect(!(try passbox(ann, ["org", "show", "Sales"]).stdout.contains("Waiting for confirmation")), "Dan did not join the look-alike or the real one")
    }
    @Test func aGrantFromANonManagerOrSealedToAnotherKeyIsRefused() throws {
        let w = try world("grants", people: ["ann", "bob", "cat", "eve"])
        let ann = w.data("ann"), bob = w.data("bob"), cat = w.data("cat")
        #expect(try passbox(ann, ["org", "create", "team", "Ops"], [password]).status == 0)
        for (person, data) in [("bob", bob), ("cat", cat)] { try SharingIntegrationTests.addMember(person, data: data, to: "Ops", by: ann) }
        #expect(try passbox(ann, ["org", "vault-create", "Ops", "Servers"], [password]).status == 0)
        #expect(try passbox(ann, ["org", "share", "Ops", "Servers", "bob@example.org", "edit"], [password]).status == 0)
        #expect(try passbox(ann, ["org", "share", "Ops", "Servers", "cat@example.org", "view"], [password]).status == 0)
        #expect(try passbox(bob, ["org", "vaults", "Ops", "--json"], [password]).stdout.contains("\"name\" : \"Servers\""))

        let (annID, annKey) = try signingKey(ann)
        let (catID, catKey) = try signingKey(cat)
        let bobRecord = try #require(try AccountRecord.load(bob)), eveRecord = try #require(try AccountRecord.load(w.data("eve")))
        let bobKeys = try KeyBundle(Array(bobRecord.keyset), accountID: bobRecord.accountID).keys
        let eveKeys = try KeyBundle(Array(eveRecord.keyset), accountID: eveRecord.accountID).keys
        let key = SecretBytes.generate(count: 32)
        let orgID = try #require(try SharingFile.load(ann).lists.first?.orgID)
        // (the problem, the granter, their key, the keys the vault key is sealed to)
        let attacks: [(String, String, SigningKey, IdentityKeys)] = [
            // Cat, who may only view Servers, grants Bob a key (the server could hold Cat's session and more).
            ("granterNotAllowed", catID, catKey, bobKeys),
            // Validly signed by Ann, but sealed to Eve's keys, which the list does not hold for Bob.
            ("notForThisDevice", annID, annKey, eveKeys),
        ]
        for (problem, granter, signer, recipient) in attacks {
            w.proxy.armRewrite { path, _, body in
                guard path == "/v1/orgs/fetch", var reply = try? ProtocolCoding.wireDecode(OrgFetchReply.self, from: Data(body)), var vaults = reply.vaults, !vaults.isEmpty,
                    let grant = try? VaultGrant.make(
                        key: key, orgID: orgID, vaultID: vaults[0].vaultID, epoch: vaults[0].epoch, recipient: recipient, access: .edit, granter: granter, signingKey: signer)
                else { return nil }
                vaults[0].grants = [Data(grant.encoded)]
                reply.vaults = vaults
                return (try? ProtocolCoding.wireEncode(reply)).map(Array.init)
            }
            let shown = try passbox(bob, ["org", "vaults", "Ops", "--json"], [password])
            #expect(shown.status == 0 && !shown.stdout.contains("\"name\" : \"Servers\""), "\(problem): the key is not opened: \(shown.stdout)")
            w.proxy.disarm()
            let warnings = try passbox(bob, ["sharing", "warnings"])
            #expect(warnings.stdout.contains("A vault key for Ops was refused") && warnings.stdout.contains(problem), "\(problem): \(warnings.stdout)")
        }
        #expect(try passbox(bob, ["org", "vaults", "Ops", "--json"], [password]).stdout.contains("\"name\" : \"Servers\""), "honest again")

        // Nothing is sealed to keys Ann did not accept: the directory now shows other keys for Bob.
        let forged = try Self.substitutedLookup(email: "bob@example.org", keysOf: w.data("eve"))
        w.proxy.armRewrite { path, request, _ in path == "/v1/keys" && Self.lookupFor("bob@example.org", request) ? forged : nil }
        #expect(try passbox(ann, ["security-code", "bob@example.org"]).status == 1)
        w.proxy.disarm()
        let before = try passbox(ann, ["org", "show", "Ops", "--json"]).stdout
        let refused = try passbox(ann, ["org", "share", "Ops", "Servers", "bob@example.org", "manage"], [password])
        #expect(refused.status == 1 && refused.stderr.contains("the keys of bob@example.org changed"), "\(refused.stderr)")
        #expect(try passbox(ann, ["org", "show", "Ops", "--json"]).stdout == before, "no version was signed")
    }
    @Test func aSecondDeviceSignsNothingOnAnOrganisationUntilItsCodeIsCompared() throws {
        let w = try world("trust", people: [])
        let made = try passbox(w.data("ann"), ["signup", "--server", w.proxy.origin, "--email", "ann@example.org"], [password, password])
        let key = try #require(made.stdout.range(of: #"P1-[0-9A-Z]{6}(-[0-9A-Z]{5,6}){5}"#, options: .regularExpression).map { String(made.stdout[$0]) })
        #expect(try passbox(w.data("ann"), ["org", "create", "team", "Acme"], [password]).status == 0)
        let code = try #require(try passbox(w.data("ann"), ["org", "show", "Acme"]).stdout.split(separator: "\n").first { $0.contains("Its code") }?.split(separator: " ").last.map(String.init))
        let laptop = w.data("laptop")
        #expect(try passbox(laptop, ["signin", "--server", w.proxy.origin, "--email", "ann@example.org"], [password, key]).status == 0)
        // The laptop sees the team through the server only: shown, with the code to compare, but nothing is signed.
        let shown = try passbox(laptop, ["org", "show", "Acme"])
        #expect(shown.status == 0 && shown.stdout.contains("first saw it through the server alone") && shown.stdout.contains(code), "\(shown.stdout)")
        let refused = try passbox(laptop, ["org", "vault-create", "Acme", "Servers"], [password])
        #expect(refused.status == 1 && refused.stderr.contains("signs and shares nothing on it yet"), "\(refused.stderr)")
        #expect(try passbox(laptop, ["org", "trust", "Acme", "not-the-code"]).status == 1)
        #expect(try passbox(laptop, ["org", "trust", "Acme", code]).stdout.contains("now trusts Acme"))
        #expect(try passbox(laptop, ["org", "vault-create", "Acme", "Servers"], [password]).status == 0)
    }

    /// A member who may only view a shared vault, with the server's help, writes a next version of its manifest
    /// (signed with their own account key, which the list holds): an editor's device refuses the pull, says so,
    /// and keeps what it had.
    @Test func aSharedVaultsManifestSignedByAMemberWhoMayOnlyViewIsRefused() throws {
        let w = try world("shared-items", people: ["ann", "bob"])
        let ann = w.data("ann"), bob = w.data("bob")
        #expect(try passbox(ann, ["org", "create", "family", "Doe family"], [password]).status == 0)
        try SharingIntegrationTests.addMember("bob", data: bob, to: "Doe family", by: ann)
        #expect(try passbox(ann, ["org", "vault-create", "Doe family", "Bank"], [password]).status == 0)
        #expect(try passbox(ann, ["org", "share", "Doe family", "Bank", "bob@example.org", "view"], [password]).status == 0)
        #expect(try passbox(ann, ["sync"], [password]).status == 0)
        #expect(try passbox(ann, ["add", "note", "--title", "Safe code", "--vault", "Bank", "--notes-stdin"], [password, "4711"]).status == 0)
        #expect(try passbox(ann, ["sync"], [password]).status == 0)
        #expect(try passbox(bob, ["sync"], [password]).status == 0)

        let (orgID, bankID) = try SharingIntegrationTests.ids(bob, org: "Doe family", vault: "Bank")
        let record = try #require(try AccountRecord.load(bob))
        let keyset = try #require(try AccountVaultKey(record).openedKeyset(password: SecretBytes(copying: Array(password.utf8))))
        let current = try #require(w.proxy.seenPulls.flatMap(\.manifests).filter { $0.vaultID == bankID }.max { $0.version < $1.version })
        let verified = try Manifest(decoding: Array(current.manifest))
        var forged = Manifest(
            vaultID: bankID, version: verified.version + 1, previous: verified.hash, root: verified.root, metaHash: verified.metaHash, keyVersion: verified.keyVersion,
            signer: record.accountID)
        forged.sign(with: keyset.signingKey)
        let record2 = SyncManifestRecord(vaultID: bankID, version: forged.version, manifest: Data(forged.encoded), meta: current.meta)
        w.proxy.armRewrite { path, request, body in
            guard path == "/v1/sync/pull", (try? ProtocolCoding.wireDecode(SyncPullRequest.self, from: Data(request)))?.orgID == orgID,
                var reply = try? ProtocolCoding.wireDecode(SyncPullReply.self, from: Data(body))
            else { return nil }
            reply.manifests.append(record2)
            for i in reply.vaults.indices where reply.vaults[i].vaultID == bankID { reply.vaults[i].manifestVersion = record2.version }
            return (try? ProtocolCoding.wireEncode(reply)).map(Array.init)
        }
        let refused = try passbox(ann, ["sync"], [password])
        #expect(refused.status == 1 && refused.stderr.contains("vault \(bankID) does not match what this device verified (signature)"), "\(refused.stdout)\(refused.stderr)")
        w.proxy.disarm()
        #expect(try passbox(ann, ["show", "Safe code"], [password]).stdout.contains("4711"), "what Ann had is kept")
        #expect(try passbox(ann, ["sync"], [password]).status == 0, "the honest answer syncs again")
    }

    /// The server withholds a removal (a new member list version) from one member: when another member's write
    /// that relied on it reaches that member, their device reads the list again, then refuses the shared vault's
    /// sync with a sharing warning (security.md §6b, "a withheld removal").
    @Test func aWithheldRemovalIsCaughtWhenAWriteThatReliedOnItArrives() throws {
        let w = try world("withheld", people: ["ann", "bob", "cat"])
        let ann = w.data("ann"), bob = w.data("bob")
        #expect(try passbox(ann, ["org", "create", "family", "Doe family"], [password]).status == 0)
        for person in ["bob", "cat"] { try SharingIntegrationTests.addMember(person, data: w.data(person), to: "Doe family", by: ann) }
        #expect(try passbox(ann, ["sync"], [password]).status == 0)
        #expect(try passbox(ann, ["add", "note", "--title", "Before", "--vault", "Doe family"], [password]).status == 0)
        #expect(try passbox(ann, ["sync"], [password]).status == 0)
        #expect(try passbox(bob, ["sync"], [password]).status == 0)
        #expect(try passbox(ann, ["org", "remove", "Doe family", "cat@example.org"], [password]).status == 0)
        #expect(try passbox(ann, ["add", "note", "--title", "After", "--vault", "Doe family"], [password]).status == 0)
        #expect(try passbox(ann, ["sync"], [password]).status == 0)

        // Bob's list answers leave out every version from the removal on.
        w.proxy.armRewrite { path, _, body in
            guard path == "/v1/orgs/fetch", var reply = try? ProtocolCoding.wireDecode(OrgFetchReply.self, from: Data(body)) else { return nil }
            reply.versions.removeAll { ((try? MemberListVersion(decoding: Array($0)))?.epoch ?? 0) >= 2 }
            reply.more = false
            return (try? ProtocolCoding.wireEncode(reply)).map(Array.init)
        }
        let caught = try passbox(bob, ["sync"], [password])
        #expect(caught.status == 1 && caught.stderr.contains("relied on a newer member list than version"), "\(caught.stdout)\(caught.stderr)")
        #expect(try passbox(bob, ["sharing", "warnings"]).stdout.contains("relied on a newer member list than the server shows you"))
        #expect(!(try passbox(bob, ["list"], [password]).stdout.contains("After")), "nothing of the refused pull was taken")
        w.proxy.disarm()
        #expect(try passbox(bob, ["sync"], [password]).status == 0, "with the list shown whole, the sync goes through")
        #expect(try passbox(bob, ["show", "After"], [password]).status == 0)
    }
}
