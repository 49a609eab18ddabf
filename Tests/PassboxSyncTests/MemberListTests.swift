import Foundation
import PassboxCrypto
import PassboxManifest
import Testing

/// The member list chain, grants, security codes and invitation links (security.md §6, §6b): what a client
/// believes of membership, and every way a server could try to make it believe something else.
@Suite struct MemberListTests {
    struct Person {
        let id: String
        let email: String
        let sign: SigningKey
        let box: BoxKeyPair
        var keys: IdentityKeys { IdentityKeys(signPublicKey: sign.publicKey, boxPublicKey: box.publicKey) }
        init(_ id: String) throws {
            self.id = id
            email = id.lowercased() + "@example.org"
            sign = try .generate()
            box = try .generate()
        }
        func entry(_ role: MemberRole) -> ListMember { ListMember(accountID: id, email: email, role: role, keys: keys) }
    }

    /// A family: Ann creates it, adds Bob as admin and Cat as member, each version signed by Ann.
    static func family() throws -> (ann: Person, bob: Person, cat: Person, chain: [MemberListVersion]) {
        let ann = try Person("ANN001"), bob = try Person("BOB002"), cat = try Person("CAT003")
        var v1 = MemberListVersion.genesis(orgID: "org1", kind: .family, name: "Doe family", creator: ann.entry(.owner))
        v1.sign(with: ann.sign)
        var v2 = v1.next(signer: ann.id)
        v2.set(member: bob.id, bob.entry(.admin))
        v2.sign(with: ann.sign)
        var v3 = v2.next(signer: ann.id)
        v3.set(member: cat.id, cat.entry(.member))
        v3.set(vault: "fam", account: ann.id, .manage)
        v3.set(vault: "fam", account: cat.id, .edit)
        v3.sign(with: ann.sign)
        return (ann, bob, cat, [v1, v2, v3])
    }

    @Test func anHonestChainVerifiesAndRoundTrips() throws {
        let (_, _, cat, chain) = try Self.family()
        let head = try MemberListChain.verify(chain, organisation: MemberListChain.organisationCode(chain[0]))
        #expect(head.version == 3 && head.members.count == 3 && head.member(cat.id)?.role == .member)
        for version in chain { #expect(try MemberListVersion(decoding: version.encoded) == version) }
        // Continuing from a kept head needs only the new versions.
        #expect(try MemberListChain.verify([chain[2]], from: chain[1], seen: ListHead(version: 2, hash: chain[1].hash)).version == 3)
    }

    @Test func aListThatDoesNotVerifyIsRefused() throws {
        let (_, _, cat, chain) = try Self.family()
        // The server changes Cat's role to owner without a signature.
        var promoted = chain[2]
        promoted.set(member: cat.id, cat.entry(.owner))
        #expect(throws: SharingError.listInvalid(version: 3, reason: .notSigned)) { try MemberListChain.verify([chain[0], chain[1], promoted]) }
        // A version that does not name the one before.
        var unlinked = chain[2]
        unlinked.previous = MemberListVersion.noPrevious
        #expect(throws: SharingError.listInvalid(version: 3, reason: .brokenLink)) { try MemberListChain.verify([chain[0], chain[1], unlinked]) }
        // A version skipped.
        #expect(throws: SharingError.listInvalid(version: 3, reason: .notNextVersion)) { try MemberListChain.verify([chain[0], chain[2]]) }
        // Cut bytes never decode.
        let bytes = chain[2].encoded
        for cut in [0, 1, 40, bytes.count - 1] { #expect(throws: (any Error).self) { try MemberListVersion(decoding: Array(bytes.prefix(cut))) } }
    }

    @Test func aMemberNobodyMayAddIsRefused() throws {
        let (_, _, cat, chain) = try Self.family()
        // Cat, a plain member, signs a version that adds Eve (the server could hold Cat's session, not Ann's key).
        let eve = try Person("EVE666")
        var v4 = chain[2].next(signer: cat.id)
        v4.set(member: eve.id, eve.entry(.admin))
        v4.sign(with: cat.sign)
        #expect(throws: SharingError.listInvalid(version: 4, reason: .signerNotAllowed)) { try MemberListChain.verify(chain + [v4]) }
        // Eve signs her own entry: she is judged by the version before, where she is nobody.
        var self4 = chain[2].next(signer: eve.id)
        self4.set(member: eve.id, eve.entry(.owner))
        self4.sign(with: eve.sign)
        #expect(throws: SharingError.listInvalid(version: 4, reason: .signerNotAllowed)) { try MemberListChain.verify(chain + [self4]) }
    }

    @Test func anAdminCannotMakeOrRemoveOwners() throws {
        let (ann, bob, _, chain) = try Self.family()
        var v4 = chain[2].next(signer: bob.id)
        v4.set(member: bob.id, bob.entry(.owner))
        v4.sign(with: bob.sign)
        #expect(throws: SharingError.listInvalid(version: 4, reason: .adminChangedOwner)) { try MemberListChain.verify(chain + [v4]) }
        var v4b = chain[2].next(signer: bob.id)
        v4b.set(member: ann.id, nil)
        v4b.epoch += 1
        v4b.sign(with: bob.sign)
        #expect(throws: (any Error).self) { try MemberListChain.verify(chain + [v4b]) }
    }

    @Test func removalMustRaiseTheEpoch() throws {
        let (ann, _, cat, chain) = try Self.family()
        var v4 = chain[2].next(signer: ann.id)
        v4.set(member: cat.id, nil)
        v4.sign(with: ann.sign)
        #expect(throws: SharingError.listInvalid(version: 4, reason: .epochNotRaised)) { try MemberListChain.verify(chain + [v4]) }
        v4.epoch += 1
        v4.sign(with: ann.sign)
        #expect(try MemberListChain.verify(chain + [v4]).member(cat.id) == nil)
    }

    @Test func aForkOrAStepBackIsCaught() throws {
        let (ann, _, cat, chain) = try Self.family()
        let seen = ListHead(version: 3, hash: chain[2].hash)
        // The server shows version 2 to a device that saw 3.
        #expect(throws: SharingError.listWentBack(seen: 3, shown: 2)) { try MemberListChain.verify(Array(chain.prefix(2)), seen: seen) }
        // Another version 3, validly signed by Ann (she signed two; the server shows each side one).
        var other = chain[1].next(signer: ann.id)
        other.set(member: cat.id, cat.entry(.guest))
        other.sign(with: ann.sign)
        #expect(throws: SharingError.listForked(version: 3)) { try MemberListChain.verify([chain[0], chain[1], other], seen: seen) }
        // Continuing from the kept head: the old versions again are fine, only older ones went back, another 3 forked.
        #expect(try MemberListChain.verify(chain, from: chain[2], seen: seen).version == 3)
        #expect(throws: SharingError.listWentBack(seen: 3, shown: 2)) { try MemberListChain.verify(Array(chain.prefix(2)), from: chain[2], seen: seen) }
        #expect(throws: SharingError.listForked(version: 3)) { try MemberListChain.verify([chain[0], chain[1], other], from: chain[2], seen: seen) }
        // Continuing from the kept head, a fork cannot link.
        var after = other.next(signer: ann.id)
        after.sign(with: ann.sign)
        #expect(throws: SharingError.listInvalid(version: 4, reason: .brokenLink)) { try MemberListChain.verify([after], from: chain[2], seen: seen) }
    }

    @Test func aForgedInvitationOrganisationIsCaught() throws {
        let (_, _, _, chain) = try Self.family()
        let (_, _, _, forged) = try Self.family()
        let code = MemberListChain.organisationCode(chain[0])
        #expect(throws: SharingError.notTheOrganisation) { try MemberListChain.verify(forged, organisation: code) }
        // Same org id, kind and name, another creator: another code.
        #expect(MemberListChain.organisationCode(forged[0]) != code && forged[0].orgID == chain[0].orgID)
    }

    @Test func aGrantOpensOnlyForItsMemberFromAManager() throws {
        let (ann, _, cat, chain) = try Self.family()
        let list = chain[2]
        let key = SecretBytes.generate(count: 32)
        let grant = try VaultGrant.make(key: key, orgID: "org1", vaultID: "fam", epoch: 1, recipient: cat.keys, access: .edit, granter: ann.id, signingKey: ann.sign)
        let decoded = try VaultGrant(decoding: grant.encoded)
        #expect(try decoded.open(list: list, vault: "fam", own: cat.id, box: cat.box).isEqual(to: key))

        // Granted by Cat, who has edit access only (and the list does not let members grant).
        let eve = try Person("EVE666")
        let byCat = try VaultGrant.make(key: key, orgID: "org1", vaultID: "fam", epoch: 1, recipient: cat.keys, access: .edit, granter: cat.id, signingKey: cat.sign)
        #expect(throws: SharingError.grantRefused(.granterNotAllowed)) { try byCat.open(list: list, vault: "fam", own: cat.id, box: cat.box) }
        // Signed as Ann by someone else (the server seals a key of its own and claims Ann gave it).
        let forged = try VaultGrant.make(key: key, orgID: "org1", vaultID: "fam", epoch: 1, recipient: cat.keys, access: .edit, granter: ann.id, signingKey: eve.sign)
        #expect(throws: SharingError.grantRefused(.notSigned)) { try forged.open(list: list, vault: "fam", own: cat.id, box: cat.box) }
        // Sealed to a key the list does not hold for Cat.
        let toEve = try VaultGrant.make(key: key, orgID: "org1", vaultID: "fam", epoch: 1, recipient: eve.keys, access: .edit, granter: ann.id, signingKey: ann.sign)
        #expect(throws: SharingError.grantRefused(.notForThisDevice)) { try toEve.open(list: list, vault: "fam", own: cat.id, box: eve.box) }
        // Moved to another vault, epoch or access level.
        var moved = grant
        moved.vaultID = "other"
        #expect(throws: SharingError.grantRefused(.otherVault)) { try moved.open(list: list, vault: "fam", own: cat.id, box: cat.box) }
        var both = list
        both.set(vault: "other", account: cat.id, .edit)
        #expect(throws: SharingError.grantRefused(.notSigned)) { try moved.open(list: both, vault: "other", own: cat.id, box: cat.box).count }
        let more = try VaultGrant.make(key: key, orgID: "org1", vaultID: "fam", epoch: 1, recipient: cat.keys, access: .manage, granter: ann.id, signingKey: ann.sign)
        #expect(throws: SharingError.grantRefused(.accessNotGranted)) { try more.open(list: list, vault: "fam", own: cat.id, box: cat.box) }
        var swapped = grant
        swapped.sealed = try BoxKeyPair.seal(SecretBytes.generate(count: 32).revealBytes(), to: cat.box.publicKey)
        #expect(throws: SharingError.grantRefused(.notSigned)) { try swapped.open(list: list, vault: "fam", own: cat.id, box: cat.box) }
    }

    @Test func securityCodesArePinnedAndCoverTheBoxKey() throws {
        // Keys made once from fixed seeds: the code's derivation may never change.
        let sign = try SigningKey(seed: SecretBytes(copying: [UInt8](repeating: 7, count: 32)))
        let box = try BoxKeyPair(privateKey: SecretBytes(copying: [UInt8](repeating: 9, count: 32)))
        let keys = IdentityKeys(signPublicKey: sign.publicKey, boxPublicKey: box.publicKey)
        let code = keys.securityCode
        #expect(code.groups.count == 12 && code.groups.allSatisfy { $0.count == 5 && $0.allSatisfy(\.isNumber) })
        #expect(code.description == Self.pinnedCode, "\(code)")
        #expect(code.lines.count == 3)
        let otherBox = try BoxKeyPair.generate()
        #expect(IdentityKeys(signPublicKey: sign.publicKey, boxPublicKey: otherBox.publicKey).securityCode != code, "a substituted box key shows another code")
    }
    static let pinnedCode = "17927 31496 41575 06085 19326 39953 15233 90264 55822 15906 43257 06527"

    @Test func keyBundlesVerifyTheirSelfSignature() throws {
        let sign = try SigningKey.generate(), box = try BoxKeyPair.generate()
        let bound = Array("passbox/v1/keyset|ABC123|".utf8) + box.publicKey + sign.publicKey
        let bytes = [1] + box.publicKey + sign.publicKey + sign.signature(for: bound)
        let bundle = try KeyBundle(bytes, accountID: "ABC123")
        #expect(bundle.keys.boxPublicKey == box.publicKey && bundle.encoded == bytes)
        #expect(throws: SharingError.bundleInvalid) { try KeyBundle(bytes, accountID: "XYZ999") }
        var swapped = bytes
        swapped.replaceSubrange(1..<33, with: try BoxKeyPair.generate().publicKey)
        #expect(throws: SharingError.bundleInvalid) { try KeyBundle(swapped, accountID: "ABC123") }
        #expect(throws: SharingError.bundleInvalid) { try KeyBundle(Array(bytes.prefix(100)), accountID: "ABC123") }
    }

    @Test func groupsGiveAccessAndLosingItRaisesTheEpoch() throws {
        let (ann, bob, cat, chain) = try Self.family()
        var v4 = chain[2].next(signer: ann.id)
        v4.set(group: "@sales", ListGroup(id: "@sales", name: "Sales", members: [bob.id, cat.id]))
        v4.set(vault: "crm", account: "@sales", .view)
        v4.set(vault: "crm", account: bob.id, .edit)
        v4.sign(with: ann.sign)
        let head = try MemberListChain.verify(chain + [v4])
        #expect(try MemberListVersion(decoding: head.encoded) == head)
        #expect(head.access(vault: "crm", account: cat.id) == .view && head.access(vault: "crm", account: bob.id) == .edit, "the higher of own and group access")
        #expect(head.members(of: "crm").count == 2 && head.access(vault: "crm", account: ann.id) == nil)
        // Cat out of the group: she loses access, so the epoch must rise.
        var v5 = v4.next(signer: ann.id)
        v5.set(group: "@sales", ListGroup(id: "@sales", name: "Sales", members: [bob.id]))
        v5.sign(with: ann.sign)
        #expect(throws: SharingError.listInvalid(version: 5, reason: .epochNotRaised)) { try MemberListChain.verify(chain + [v4, v5]) }
        #expect(MemberListChain.losesAccess(from: v4, to: v5))
        v5.epoch += 1
        v5.sign(with: ann.sign)
        #expect(try MemberListChain.verify(chain + [v4, v5]).access(vault: "crm", account: cat.id) == nil)
        // Bob out of the group keeps his own edit access: nobody lost anything, no new epoch needed.
        var v6 = v5.next(signer: ann.id)
        v6.set(group: "@sales", ListGroup(id: "@sales", name: "Sales", members: []))
        v6.sign(with: ann.sign)
        #expect(!MemberListChain.losesAccess(from: v5, to: v6))
        #expect(try MemberListChain.verify(chain + [v4, v5, v6]).version == 6)
        // An entry for a group that does not exist, or a group holding a non-member, does not verify.
        var ghost = v6.next(signer: ann.id)
        ghost.vaults.append(VaultAccess(vaultID: "zzz", accountID: "@ghost", access: .view))
        ghost.sign(with: ann.sign)
        #expect(throws: SharingError.listInvalid(version: 7, reason: .duplicateMember)) { try MemberListChain.verify(chain + [v4, v5, v6, ghost]) }
        var stranger = v6.next(signer: ann.id)
        stranger.groups = [ListGroup(id: "@sales", name: "Sales", members: ["EVE666"])]
        stranger.sign(with: ann.sign)
        #expect(throws: SharingError.listInvalid(version: 7, reason: .duplicateMember)) { try MemberListChain.verify(chain + [v4, v5, v6, stranger]) }
    }

    @Test func invitationLinksAreFoundInMailsAndNeedTheOrganisation() throws {
        let mail = """
            Hi! Ann invited you to the Doe family on Passbox.
            Open <https://vault.example.org/invite/Ab3_x-9#org=Zm9vYmFy_-9> to join.
            """
        let link = try InvitationLink(finding: mail)
        #expect(link == InvitationLink(server: "https://vault.example.org", token: "Ab3_x-9", organisation: "Zm9vYmFy_-9"))
        #expect(link.text == "https://vault.example.org/invite/Ab3_x-9#org=Zm9vYmFy_-9")
        #expect(throws: InvitationLink.Problem.noOrganisation) { try InvitationLink(finding: "https://vault.example.org/invite/Ab3") }
        #expect(throws: InvitationLink.Problem.noLink) { try InvitationLink(finding: "no link here") }
        #expect(throws: InvitationLink.Problem.noLink) { try InvitationLink(finding: "https://x.org/invite/%2e%2e#org=a") }
        // The passbox:// forms (SHR-10): a wrapped https link, and a bare one for the account's own server.
        let wrapped = "passbox://invite?link=" + (link.text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        #expect(try InvitationLink(finding: wrapped) == link)
        #expect(try InvitationLink(finding: "open passbox://invite/Ab3_x-9#org=Zm9vYmFy_-9 now") == InvitationLink(server: "", token: "Ab3_x-9", organisation: "Zm9vYmFy_-9"))
        #expect(throws: InvitationLink.Problem.noOrganisation) { try InvitationLink(finding: "passbox://invite/Ab3") }
    }
}
