import Foundation
import PassboxCrypto
import PassboxManifest
import PassboxProtocol
import PassboxStore

/// `passbox bench sharing`: what sharing costs where it grows with the organisation (issue 32). A member list
/// of `--members` members with `--versions` versions is made (each version changes one member's role, signed
/// by the owner) and verified the way a device verifies it: page by page (500 versions, the server's page)
/// from the head it kept, every step checked and every signature verified; then the key renewal that a
/// removal starts (a new vault key sealed and signed for every remaining member) and the size of a shared
/// vault's part of a sync answer when nothing changed; then the items of a shared vault (`SharingItemsBenchmark`).
enum SharingBenchmark {
    static func run(_ args: Arguments) throws {
        let memberCount = max(2, Int(args.value("members") ?? "1000") ?? 1000)
        let versionCount = max(2, Int(args.value("versions") ?? "10000") ?? 10000)
        let owner = try SigningKey.generate()
        let ownerBox = try BoxKeyPair.generate()
        func id(_ i: Int) -> String { String(format: "M%05d", i) }
        let boxes = try (0..<memberCount).map { _ in try BoxKeyPair.generate() }
        let signs = try (0..<memberCount).map { _ in try SigningKey.generate() }
        let members = (0..<memberCount).map { i in
            ListMember(
                accountID: i == 0 ? "M00000" : id(i), email: "member\(i)@example.org", role: i == 0 ? .owner : .member,
                keys: IdentityKeys(signPublicKey: i == 0 ? owner.publicKey : signs[i].publicKey, boxPublicKey: i == 0 ? ownerBox.publicKey : boxes[i].publicKey))
        }
        Console.out("Making a member list of \(memberCount) members with \(versionCount) versions (each changes one member's role; signed by the owner)…")
        var genesis = MemberListVersion.genesis(orgID: "benchorg", kind: .team, name: "Bench", creator: members[0])
        genesis.sign(with: owner)
        // Version 2 adds everyone; each later one flips one member between member and guest.
        let first = genesis.encoded
        var head = genesis
        var made = 1
        let makeStart = DispatchTime.now()
        var page: [[UInt8]] = []
        var pagesOfBytes: [[[UInt8]]] = []
        while made < versionCount {
            var next = head.next(signer: "M00000")
            if made == 1 {
                next.members = members
            } else {
                let i = 1 + (made % (memberCount - 1))
                next.members[i].role = next.members[i].role == .member ? .guest : .member
            }
            next.sign(with: owner)
            page.append(next.encoded)
            head = next
            made += 1
            if page.count == OrgFetchRequest.pageLimit {
                pagesOfBytes.append(page)
                page = []
            }
        }
        if !page.isEmpty { pagesOfBytes.append(page) }
        let makeSeconds = Double(DispatchTime.now().uptimeNanoseconds - makeStart.uptimeNanoseconds) / 1e9
        let bytes = pagesOfBytes.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } } + first.count
        Console.out(String(format: "Made in %.1f s; %.0f MiB of versions (%.0f KiB each at full size).", makeSeconds, Double(bytes) / 1_048_576, Double(head.encoded.count) / 1024))

        // Verify as a new device does: version 1 first, then each page on top of the head it kept.
        let start = DispatchTime.now()
        var kept = try MemberListChain.verify([try MemberListVersion(decoding: first)], organisation: MemberListChain.organisationCode(genesis))
        for page in pagesOfBytes {
            let versions = try page.map { try MemberListVersion(decoding: $0) }
            kept = try MemberListChain.verify(versions, from: kept, seen: ListHead(version: kept.version, hash: kept.hash))
        }
        let verifySeconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        precondition(kept.version == Int64(versionCount), "the whole chain was verified")
        Console.out(String(format: "Verify the whole list (%d versions, %d members): %.2f s, %.0f µs per version (decoded, linked, signature checked)", versionCount, memberCount, verifySeconds, verifySeconds / Double(versionCount) * 1e6))
        Console.out("  anchor: Bitwarden and 1Password verify no member list at all (the server's word is taken); the sync's whole budget is 300 s")

        // A removal renews a vault's key: one grant per remaining member.
        let key = SecretBytes.generate(count: 32)
        let grantStart = DispatchTime.now()
        var grantBytes = 0
        for member in members.dropFirst() {
            let grant = try VaultGrant.make(key: key, orgID: "benchorg", vaultID: "vault", epoch: 2, recipient: member.keys, access: .edit, granter: "M00000", signingKey: owner)
            grantBytes += grant.encoded.count
        }
        let grantSeconds = Double(DispatchTime.now().uptimeNanoseconds - grantStart.uptimeNanoseconds) / 1e9
        Console.out(String(format: "Renew one vault's key for %d members (seal + sign each): %.0f ms, %.0f KiB of grants", memberCount - 1, grantSeconds * 1000, Double(grantBytes) / 1024))
        Console.out("  new writes use the new key at once (the renewal is part of the removal)")

        // A member's fetch when nothing changed: no versions, one vault with this member's grant.
        let grant = try VaultGrant.make(key: key, orgID: "benchorg", vaultID: "vault", epoch: 2, recipient: members[1].keys, access: .edit, granter: "M00000", signingKey: owner)
        let idle = OrgFetchReply(
            versions: [], more: false, waiting: [], invitations: [],
            vaults: [SharedVaultRecord(vaultID: "01J0000000000000000000000V", epoch: 2, meta: Data(count: 296), grants: [Data(grant.encoded)])], departed: [])
        let idleBytes = try ProtocolCoding.wireEncode(idle).count
        Console.out("A shared vault's list answer with nothing new: \(idleBytes) bytes (target: under 4 KiB)")
        try SharingItemsBenchmark.run(args)
    }
}
