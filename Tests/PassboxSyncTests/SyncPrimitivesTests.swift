import Foundation
import PassboxCore
import PassboxCrypto
import PassboxManifest
import PassboxProtocol
import PassboxSync
import Testing

/// The pure parts of sync: item envelopes and their padding, manifests, the Merkle tree, the three-way merge.
@Suite struct SyncPrimitivesTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func login(_ title: String = "Mail", user: String = "alice", password: String = "p1") -> Item {
        var item = Item(category: .login, title: title)
        item.setValue(user, for: "username")
        item.setValue(password, for: "password")
        return item
    }

    @Test func itemEnvelopesOpenOnlyInTheirPlace() throws {
        let key = SecretBytes.generate(count: 32)
        var item = login()
        item.lastUsed = now
        item.vaultID = "V1"
        let sealed = try ItemSeal.seal(item, vaultID: "V1", keyVersion: 1, key: key)
        #expect((sealed.count - Envelope.overhead) % 256 == 0, "padded to a multiple of 256 bytes")
        let opened = try ItemSeal.open(sealed, vaultID: "V1", itemID: item.id, keyVersion: 1, key: key)
        #expect(opened == item.synced, "device-local parts (last used, vault) are not in the envelope")
        #expect(opened.lastUsed == nil)
        // Another item id, vault, key version or key: it does not open.
        #expect(throws: CryptoError.authenticationFailed) { try ItemSeal.open(sealed, vaultID: "V1", itemID: "OTHER", keyVersion: 1, key: key) }
        #expect(throws: CryptoError.authenticationFailed) { try ItemSeal.open(sealed, vaultID: "V2", itemID: item.id, keyVersion: 1, key: key) }
        #expect(throws: CryptoError.authenticationFailed) { try ItemSeal.open(sealed, vaultID: "V1", itemID: item.id, keyVersion: 2, key: key) }
        #expect(throws: CryptoError.authenticationFailed) { try ItemSeal.open(sealed, vaultID: "V1", itemID: item.id, keyVersion: 1, key: .generate(count: 32)) }
        var newer = sealed
        newer[0] = 2
        #expect(throws: CryptoError.unsupportedVersion(2)) { try ItemSeal.open(newer, vaultID: "V1", itemID: item.id, keyVersion: 1, key: key) }
        var flipped = sealed
        flipped[40] ^= 1
        #expect(throws: CryptoError.authenticationFailed) { try ItemSeal.open(flipped, vaultID: "V1", itemID: item.id, keyVersion: 1, key: key) }
    }

    @Test func paddingHidesSizes() {
        #expect(ItemSeal.paddedSize(0) == 256)
        #expect(ItemSeal.paddedSize(255) == 256)
        #expect(ItemSeal.paddedSize(256) == 512)
        #expect(ItemSeal.paddedSize(64 * 1024 - 1) == 64 * 1024)
        #expect(ItemSeal.paddedSize(64 * 1024) == 128 * 1024)
        #expect(ItemSeal.paddedSize(200 * 1024) == 256 * 1024)
        for n in [0, 1, 255, 256, 1000, 70_000] {
            let bytes = [UInt8](repeating: 7, count: n)
            let padded = Padding.pad(bytes, blockSize: ItemSeal.paddedSize(n))
            #expect(padded.count == ItemSeal.paddedSize(n))
            #expect(Padding.unpad(padded, blockSize: padded.count) == bytes)
        }
        #expect(Padding.unpad([1, 2, 3, 4], blockSize: 4) == nil, "no 0x80 marker")
    }

    @Test func vaultKeysAndNamesAreBoundToTheirVault() throws {
        let wrap = SecretBytes.generate(count: 32), key = SecretBytes.generate(count: 32)
        let wrapped = try ItemSeal.wrapVaultKey(key, accountID: "ABC123", vaultID: "V1", keyVersion: 1, wrapKey: wrap)
        #expect(try ItemSeal.unwrapVaultKey(wrapped, accountID: "ABC123", vaultID: "V1", keyVersion: 1, wrapKey: wrap).isEqual(to: key))
        #expect(throws: CryptoError.authenticationFailed) { try ItemSeal.unwrapVaultKey(wrapped, accountID: "ABC123", vaultID: "V2", keyVersion: 1, wrapKey: wrap) }
        #expect(throws: CryptoError.authenticationFailed) { try ItemSeal.unwrapVaultKey(wrapped, accountID: "XYZ789", vaultID: "V1", keyVersion: 1, wrapKey: wrap) }
        let info = VaultInfo(id: "V1", name: "Work", icon: .briefcase, colour: .green, created: now)
        let meta = try ItemSeal.sealMeta(info, keyVersion: 1, key: key)
        #expect(try ItemSeal.openMeta(meta, vaultID: "V1", keyVersion: 1, key: key) == info)
        #expect(throws: CryptoError.authenticationFailed) { try ItemSeal.openMeta(meta, vaultID: "V2", keyVersion: 1, key: key) }
    }

    @Test func manifestsRoundTripAndVerifyOnlyUnderTheirSigner() throws {
        let signer = try SigningKey.generate()
        var m = Manifest(vaultID: "V1", version: 7, previous: [UInt8](repeating: 3, count: 32), root: [UInt8](repeating: 4, count: 32),
            metaHash: [UInt8](repeating: 5, count: 32), keyVersion: 1, signer: "ABC123")
        m.sign(with: signer)
        let decoded = try Manifest(decoding: m.encoded)
        #expect(decoded == m)
        #expect(decoded.isSigned(by: signer.publicKey))
        #expect(!decoded.isSigned(by: try SigningKey.generate().publicKey))
        var changed = decoded
        changed.version = 8
        #expect(!changed.isSigned(by: signer.publicKey), "the version is signed")
        #expect(changed.hash != m.hash)
        #expect(throws: ManifestError.malformed) { try Manifest(decoding: Array(m.encoded.dropLast())) }
        var newer = m.encoded
        newer[0] = 3
        #expect(throws: ManifestError.newerFormat(3)) { try Manifest(decoding: newer) }
        // Format 1 (written before issue 28) still reads, and its format is signed.
        var old = m
        old.format = 1
        old.sign(with: signer)
        let decodedOld = try Manifest(decoding: old.encoded)
        #expect(decodedOld.format == 1 && decodedOld.isSigned(by: signer.publicKey) && m.format == 2)
        var relabelled = old.encoded
        relabelled[0] = 2
        #expect(!(try Manifest(decoding: relabelled)).isSigned(by: signer.publicKey), "the format byte is signed")
    }

    /// Format 1's leaf (`id | 0x00 | hash | deleted`) lets an id holding a NUL stand for two leaves: two trees
    /// with other items then share a root. Format 2 prefixes each id with its length, and their roots differ.
    @Test func lengthPrefixedLeavesTellApartWhatANulBlurred() {
        func bucket(_ id: String) -> UInt8 { Hash.sha256(Array(id.utf8))[0] }
        let hashA = [UInt8](repeating: 0x41, count: 32), hashB = [UInt8](repeating: 0x42, count: 32)
        // Two items "a" and "b…" in one bucket, and one item whose id spells out the first leaf and the second id.
        var found: (String, String)?
        for i in 0..<2_000_000 where found == nil {
            let second = "b\(i)"
            let joined = "a\u{0}" + String(decoding: hashA, as: UTF8.self) + "\u{0}" + second
            if bucket(second) == bucket("a"), bucket(joined) == bucket("a") { found = (second, joined) }
        }
        guard let (second, joined) = found else {
            Issue.record("no ids sharing a bucket were found")
            return
        }
        var two = ManifestTree()
        two.set("a", .init(hash: hashA, deleted: false))
        two.set(second, .init(hash: hashB, deleted: false))
        var one = ManifestTree()
        one.set(joined, .init(hash: hashB, deleted: false))
        #expect(two.root(format: 1) == one.root(format: 1), "format 1 blurs them")
        #expect(two.root(format: 2) != one.root(format: 2), "format 2 tells them apart")
        #expect(two.root() == two.root(format: 2))
        // Sync ids never carry such bytes: the server refuses them in a push, a device in a pull.
        #expect(!SyncIdentifier.isValid(joined) && SyncIdentifier.isValid(second) && !SyncIdentifier.isValid(String(repeating: "a", count: 65)))
    }

    @Test func theTreeUpdatedInPlaceEqualsOneBuiltFresh() {
        var grown = ManifestTree()
        let empty = grown.root()
        var ids: [String] = []
        for i in 0..<600 {
            let id = "item\(i)"
            ids.append(id)
            grown.set(id, envelope: Array("envelope \(i)".utf8))
            if i % 50 == 0 { _ = grown.root() }
        }
        grown.setDeleted("item5")
        grown.set("item6", nil)
        var fresh = ManifestTree()
        for id in ids.reversed() where id != "item5" && id != "item6" {
            fresh.set(id, envelope: Array("envelope \(id.dropFirst(4))".utf8))
        }
        fresh.setDeleted("item5")
        #expect(grown.root() == fresh.root())
        #expect(grown.root() != empty)
        // Each of: another envelope, the deleted flag, a missing item: another root.
        var other = fresh
        other.set("item7", envelope: Array("replayed".utf8))
        #expect(other.root() != fresh.root())
        var undeleted = fresh
        undeleted.set("item5", envelope: Array("envelope 5".utf8))
        #expect(undeleted.root() != fresh.root())
        var dropped = fresh
        dropped.set("item8", nil)
        #expect(dropped.root() != fresh.root())
    }

    @Test func changesToDifferentFieldsBothWin() {
        let base = login()
        var local = base, remote = base
        local.setValue("bob", for: "username")
        remote.setValue("p2", for: "password")
        remote.tags = ["work"]
        local.websites = ["https://mail.example.org"]
        let merged = ItemMerge.merge(base: base, local: local, remote: remote, now: now)
        #expect(merged.conflicts.isEmpty)
        #expect(merged.item.username == "bob")
        #expect(merged.item.password == "p2")
        #expect(merged.item.tags == ["work"])
        #expect(merged.item.websites == ["https://mail.example.org"])
    }

    @Test func theSameFieldChangedTwiceKeepsBothValues() {
        var base = login()
        base.history = [ItemVersion(id: "h0", replacedAt: now.addingTimeInterval(-100), item: login(password: "p0"))]
        var local = base, remote = base
        local.setValue("mine", for: "password")
        local.history.append(ItemVersion(id: "h1", replacedAt: now.addingTimeInterval(-10), item: base.synced))
        remote.setValue("theirs", for: "password")
        remote.history.append(ItemVersion(id: "h2", replacedAt: now.addingTimeInterval(-5), item: base.synced))
        let merged = ItemMerge.merge(base: base, local: local, remote: remote, now: now)
        #expect(merged.conflicts == ["Password"])
        #expect(merged.item.password == "theirs", "the server's value stays current")
        let old = merged.item.history.compactMap(\.item.password)
        #expect(old.contains("mine") && old.contains("p1") && old.contains("p0"), "\(old)")
        // h1 and h2 hold the same version (each device kept the base when it edited): it is kept once, as h1.
        #expect(Set(merged.item.history.map(\.id)).isSuperset(of: ["h0", "h1"]))
        #expect(!merged.item.history.contains { $0.id == "h2" })
        #expect(merged.item.history.count == 3, "h0, the base once, and this device's conflicting version")
        // The same result whichever device merges the same versions.
        let again = ItemMerge.merge(base: base, local: local, remote: remote, now: now)
        #expect(again.item == merged.item)
    }

    @Test func deletionAgainstAnEditKeepsTheEdit() {
        var base = login()
        base.fields.append(Field(label: "PIN", kind: .hidden, value: "1234"))
        var local = base, remote = base
        local.fields.removeAll { $0.label == "PIN" }
        remote.fields[remote.fields.count - 1].value = "9999"
        let merged = ItemMerge.merge(base: base, local: local, remote: remote, now: now)
        #expect(merged.item.value(of: "PIN") == "9999")
        var trashed = base
        trashed.trashedAt = now
        var edited = base
        edited.title = "Mail (new)"
        let untrashed = ItemMerge.merge(base: base, local: edited, remote: trashed, now: now)
        #expect(untrashed.untrashed)
        #expect(untrashed.item.trashedAt == nil && untrashed.item.title == "Mail (new)")
        let onlyTrashed = ItemMerge.merge(base: base, local: base, remote: trashed, now: now)
        #expect(onlyTrashed.item.trashedAt != nil && !onlyTrashed.untrashed)
    }

    @Test func fieldsAddedOnBothSidesAreAllKeptInOrder() {
        let base = login()
        var local = base, remote = base
        local.fields.append(Field(id: "l", label: "Mine", kind: .text, value: "a"))
        remote.fields.append(Field(id: "r", label: "Theirs", kind: .text, value: "b"))
        let merged = ItemMerge.merge(base: base, local: local, remote: remote, now: now)
        // A field added here stays after the field it follows here.
        #expect(merged.item.fields.map(\.label).suffix(2) == ["Mine", "Theirs"])
        #expect(merged.conflicts.isEmpty)
    }
}
