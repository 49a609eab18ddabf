import Foundation
import PassboxAgent
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxManifest
import PassboxProtocol
import PassboxService
import PassboxSync
import PassboxTestKit
import PassboxTestSupport
import Testing

/// The sync protocol at the server: compare-and-swap, a retried push applied once, pages; and live updates
/// between two agents.
@Suite struct SyncProtocolTests {
    @Test(arguments: Backend.cases) func pushesAreComparedAndSwappedAndARetryIsAppliedOnce(_ backend: Backend) throws {
        let dir = try TemporaryDirectory("passbox-sync-protocol")
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir, extra: try backend.serverArguments(directory: dir.path + "/server/server"))
        let (a, _) = try SyncDevice.signUp("a", server: server.origin, email: "p@example.org", in: dir)
        try a.session.update { vault in for i in 0..<2_500 { try vault.add(Item(category: .password, title: "P\(i)"), now: Date()) } }
        _ = try onLargeStack { try a.sync() }
        // 2,500 items went in several pushes; a pull from the start comes in pages that end on a push.
        var since: Int64 = 0, pages = 0, items = 0
        while true {
            let page = try a.client.pull(since: since)
            pages += 1
            items += page.items.count
            #expect(page.revision > since)
            since = page.revision
            if !page.more { break }
        }
        #expect(pages >= 2 && items >= 2_500, "\(pages) pages, \(items) items")

        // A push made on an old manifest is refused (409) and changes nothing.
        let st = a.vault.sync!
        let (vaultID, v) = st.vaults.first!
        let signer = try SigningKey(seed: SecretBytes(copying: st.signSeed))
        var stale = Manifest(vaultID: vaultID, version: v.manifestVersion, previous: Manifest.noPrevious, root: [UInt8](repeating: 0, count: 32),
            metaHash: Hash.sha256(Array(v.meta ?? Data())), keyVersion: v.keyVersion, signer: st.accountID)
        stale.sign(with: signer)
        let old = SyncPushRequest(opID: "stale-1", vaults: [SyncVaultWrite(vaultID: vaultID, baseVersion: v.manifestVersion - 1, manifest: Data(stale.encoded), keyVersion: v.keyVersion, key: nil, meta: nil, items: [])])
        #expect(throws: ProtocolError(.syncConflict)) { try a.client.push(Array(try ProtocolCoding.wireEncode(old))) }
        // An unsigned manifest is a bad request.
        var unsigned = stale
        unsigned.version = v.manifestVersion + 1
        let forged = SyncPushRequest(opID: "forged-1", vaults: [SyncVaultWrite(vaultID: vaultID, baseVersion: v.manifestVersion, manifest: Data(unsigned.encoded), keyVersion: v.keyVersion, key: nil, meta: nil, items: [])])
        #expect(throws: ProtocolError.self) { try a.client.push(Array(try ProtocolCoding.wireEncode(forged))) }

        // A push whose answer is lost is sent again with the same operation id: applied once.
        let id = a.vault.items[0].id
        try a.session.update(reindexing: { _ in [id] }) { vault in try vault.update(id: id, now: Date()) { $0.title = "Renamed" } }
        let once = Once()
        a.client.losesAnswer = { @Sendable in once.first() }
        #expect(throws: ProtocolError.self) { try a.sync() }
        a.client.losesAnswer = nil
        let kept = try #require(a.session.syncInFlight)
        let replay = try a.client.push(kept)
        #expect(replay.replayed, "the server recognised the operation")
        try a.sync()
        #expect(a.session.syncInFlight == nil)
        #expect(a.service.syncStatus()?.queued == 0)
        let renamed = try a.client.pull(since: since)
        #expect(renamed.items.filter { $0.itemID == id }.count == 1, "one write of the renamed item")

        // A vault without the keys to sync (made before sync existed, opened by quick unlock) says what to do.
        try a.session.update { $0.sync = nil }
        #expect(throws: ProtocolError(.syncKeysMissing)) { try a.sync() }
    }

    /// The same field changed on two devices: the second to sync hears it (a notice naming the field), the
    /// first device's value is current everywhere, and the second's is in the item's history.
    /// Passkeys across devices (issue 35): made on device a through the extension's operation, synced, and
    /// signed with on device b (the signature verifies with the public key a's registration gave the site);
    /// each device's "last used" stays its own; a passkey deleted on a while b had made another in the same
    /// login: both changes reach both devices (merged by credential id).
    @Test func aPasskeyMadeOnOneDeviceSignsOnTheOther() throws {
        let dir = try TemporaryDirectory("passbox-sync-passkey")
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir)
        let (a, key) = try SyncDevice.signUp("a", server: server.origin, email: "k@example.org", in: dir)
        let made = try a.service.perform(Request(Operations.browserPasskeyCreate, BrowserPasskeyCreateRequest(
            url: "https://bank.example/", rp: nil, userHandle: Base64URL.encode([1, 2, 3]), userName: "ada", displayName: "Ada", algorithms: [-7]))).answer(PasskeyCreatedReply.self)
        try a.sync()
        let b = try SyncDevice.signIn("b", server: server.origin, email: "k@example.org", secretKey: key, in: dir)
        try b.sync()
        let json = #"{"type":"webauthn.get","challenge":"Y2hhbGxlbmdl","origin":"https://bank.example"}"#
        let signed = try b.service.perform(Request(Operations.browserPasskeySign, BrowserPasskeySignRequest(
            url: "https://bank.example/", rp: nil, item: made.item, credential: made.credential, clientData: Base64URL.encode(Array(json.utf8))))).answer(PasskeySignedReply.self)
        let point = Array(try #require(Base64URL.decode(made.publicKey)).suffix(65))
        let authData = try #require(Base64URL.decode(signed.authenticatorData))
        let signature = try #require(Base64URL.decode(signed.signature))
        #expect(P256.isValidSignature(signature, for: authData + Hash.sha256(Array(json.utf8)), publicPoint: point))
        for task in b.session.takeDeferred() { task() }
        #expect(b.vault.items.first { $0.id == made.item }?.passkeys.first?.lastUsed != nil)
        try b.sync()
        try a.sync()
        #expect(a.vault.items.first { $0.id == made.item }?.passkeys.map(\.lastUsed) == [nil], "b's last use is b's")

        // b makes a second passkey in the same login while a deletes the first: both changes meet.
        let second = try b.service.perform(Request(Operations.browserPasskeyCreate, BrowserPasskeyCreateRequest(
            url: "https://bank.example/", rp: nil, userHandle: Base64URL.encode([4]), userName: "ada", displayName: "Ada", algorithms: [-7]))).answer(PasskeyCreatedReply.self)
        #expect(second.item == made.item)
        var removal = ItemChanges()
        removal.removePasskeys = [made.credential]
        _ = try a.service.perform(.edit(EditRequest(item: made.item, changes: removal)))
        try a.sync()
        try b.sync()
        try a.sync()
        for d in [a, b] {
            let keys = try #require(d.vault.items.first { $0.id == made.item }).passkeys
            #expect(keys.map(\.credentialText) == [second.credential], "\(d.name): \(keys.map(\.credentialText))")
        }
    }

    @Test func aConflictIsMergedAndTold() throws {
        let dir = try TemporaryDirectory("passbox-sync-notice")
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir)
        let (a, key) = try SyncDevice.signUp("a", server: server.origin, email: "c@example.org", in: dir)
        var item = Item(category: .login, title: "Shared")
        item.setValue("first", for: "username")
        try a.session.update(reindexing: { [$0.id] }) { try $0.add(item, now: Date()) }
        try a.sync()
        let b = try SyncDevice.signIn("b", server: server.origin, email: "c@example.org", secretKey: key, in: dir)
        try b.sync()
        for (d, name) in [(a, "from-a"), (b, "from-b")] {
            try d.session.update(reindexing: { _ in [item.id] }) { vault in
                try vault.update(id: item.id, now: Date()) { $0.setValue(name, for: "username"); $0.notes = d === a ? "" : "b's note" }
            }
        }
        #expect(try a.sync().status.notices.isEmpty)
        let merged = try b.sync()
        let notice = try #require(merged.status.notices.first)
        #expect(notice.kind == "fieldConflict" && notice.fields == ["Username"] && notice.title == "Shared")
        #expect(b.vault.sync?.notices.isEmpty == true, "handed over once")
        try a.sync()
        for d in [a, b] {
            let shared = try #require(d.vault.items.first { $0.id == item.id })
            #expect(shared.username == "from-a", "the first push's value is current")
            #expect(shared.notes == "b's note", "a change to another field is kept")
            #expect(shared.history.contains { $0.item.username == "from-b" }, "the other value is in history")
        }
    }

    /// Vaults and moves between devices: a vault's name, icon and colour reach the other device and so does a
    /// rename; several items moved at once keep their ids, history, dates and favourite there, in one push;
    /// an item deleted for good on one device and edited on the other comes back with the edit, and the
    /// editing device is told (deletedEdited).
    @Test func vaultsMovesAndADeletionAgainstAnEditSync() throws {
        let dir = try TemporaryDirectory("passbox-sync-vaults")
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir)
        let (a, key) = try SyncDevice.signUp("a", server: server.origin, email: "v@example.org", in: dir)
        let travel = try a.service.perform(.vaultCreate(VaultCreateRequest(name: "Travel", icon: "globe", colour: "teal"))).vault()
        var ids: [String] = []
        for title in ["Airline", "Hotel"] {
            let saved = try a.service.perform(.add(AddRequest(category: "login", changes: ItemChanges(title: title, username: "me", favorite: true)))).saved()
            _ = try a.service.perform(.edit(EditRequest(item: saved.id, changes: ItemChanges(username: "me@example.org"))))
            ids.append(saved.id)
        }
        try a.sync()
        let b = try SyncDevice.signIn("b", server: server.origin, email: "v@example.org", secretKey: key, in: dir)
        try b.sync()
        let seen = try b.service.perform(.vaultList).vaults().vaults
        #expect(seen.contains { $0.id == travel.id && $0.name == "Travel" && $0.icon == "globe" && $0.colour == "teal" })

        // A rename with a new look, and both items moved into the vault in one operation.
        _ = try a.service.perform(.vaultEdit(VaultEditRequest(vault: "Travel", name: "Trips", icon: "briefcase", colour: "orange")))
        let before = Dictionary(uniqueKeysWithValues: a.vault.items.filter { ids.contains($0.id) }.map { ($0.id, $0) })
        #expect(try a.service.perform(.move(MoveRequest(items: ids, vault: "Trips"))).count().count == 2)
        let pushed = try a.sync()
        #expect(pushed.pushed >= 1 && pushed.status.queued == 0)
        try b.sync()
        let renamed = try b.service.perform(.vaultList).vaults().vaults
        #expect(renamed.contains { $0.id == travel.id && $0.name == "Trips" && $0.icon == "briefcase" && $0.colour == "orange" && $0.items == 2 })
        for id in ids {
            let moved = try #require(b.vault.items.first { $0.id == id })
            let original = try #require(before[id])
            #expect(moved.vaultID == travel.id && moved.isFavorite && moved.username == "me@example.org")
            #expect(moved.history.count == original.history.count && moved.history.contains { $0.item.username == "me" })
            #expect(moved.created != nil && moved.created == original.created && moved.lastChanged == original.lastChanged, "the item's dates are kept")
        }
        #expect(b.vault.items.filter { ids.contains($0.id) }.count == 2, "moved, not copied")

        // Deleted for good on a, edited on b: the edit comes back and b hears of it; a gets the item again.
        _ = try a.service.perform(.delete(ItemRequest(item: ids[0])))
        _ = try a.service.perform(.trashDelete(ItemRequest(item: ids[0])))
        _ = try b.service.perform(.edit(EditRequest(item: ids[0], changes: ItemChanges(username: "edited-on-b"))))
        try a.sync()
        let told = try b.sync()
        #expect(told.status.notices.contains { $0.kind == "deletedEdited" && $0.itemID == ids[0] }, "\(told.status.notices)")
        try a.sync()
        for d in [a, b] {
            let kept = try #require(d.vault.items.first { $0.id == ids[0] }, "the edited item lives on \(d.name)")
            #expect(kept.username == "edited-on-b" && kept.trashedAt == nil)
        }
    }

    /// The trash is purged after 30 days at an unlock, and the purge syncs: the other device loses the item too.
    @Test func aTrashPurgedAtUnlockIsPurgedOnTheOtherDevice() throws {
        let dir = try TemporaryDirectory("passbox-sync-purge")
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir)
        let (a, key) = try SyncDevice.signUp("a", server: server.origin, email: "t@example.org", in: dir)
        let old = try a.service.perform(.add(AddRequest(category: "login", changes: ItemChanges(title: "Old login")))).saved()
        let kept = try a.service.perform(.add(AddRequest(category: "login", changes: ItemChanges(title: "Kept login")))).saved()
        _ = try a.service.perform(.delete(ItemRequest(item: old.id)))
        try a.sync()
        let b = try SyncDevice.signIn("b", server: server.origin, email: "t@example.org", secretKey: key, in: dir)
        try b.sync()
        #expect(b.vault.items.first { $0.id == old.id }?.trashedAt != nil, "in b's trash")
        // Device a, 31 days later: its unlock purges the trash, and its next sync tells the server.
        a.service.lock()
        let later = try SyncDevice(name: "a", directory: a.directory, server: server.origin, now: { Date().addingTimeInterval(31 * 86_400) })
        try later.service.unlock(password: SecretText(SyncDevice.password))
        #expect(!later.vault.items.contains { $0.id == old.id }, "purged at unlock")
        try later.sync()
        try b.sync()
        #expect(!b.vault.items.contains { $0.id == old.id }, "the purge reached the other device")
        #expect(b.vault.items.contains { $0.id == kept.id && $0.trashedAt == nil })
    }

    /// An entry that a newer Passbox wrote (here: an envelope of version 2, rightly in a signed manifest) is
    /// listed as undecryptable on a device that cannot open it (ERR-6), never deleted, and kept on the server.
    @Test func anEntryThisDeviceCannotOpenIsListedAndKept() throws {
        let dir = try TemporaryDirectory("passbox-sync-undecryptable")
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir)
        let (a, key) = try SyncDevice.signUp("a", server: server.origin, email: "u@example.org", in: dir)
        try a.session.update { try $0.add(Item(category: .secureNote, title: "Readable"), now: Date()) }
        try a.sync()
        let b = try SyncDevice.signIn("b", server: server.origin, email: "u@example.org", secretKey: key, in: dir)
        try b.sync()
        // A newer client's write: its envelope version is one this one does not know, its manifest is right.
        let st = a.vault.sync!
        let (vaultID, v) = try #require(st.vaults.first)
        var tree = ManifestTree()
        var since: Int64 = 0
        while true {
            let page = try a.client.pull(since: since)
            for r in page.items where r.vaultID == vaultID {
                if let e = r.envelope { tree.set(r.itemID, envelope: Array(e)) } else { tree.setDeleted(r.itemID) }
            }
            since = page.revision
            if !page.more { break }
        }
        let newer = [2] + SecureRandom.bytes(count: 300)
        tree.set("newerclientitem0000000000a", envelope: newer)
        var m = Manifest(vaultID: vaultID, version: v.manifestVersion + 1, previous: Array(v.manifestHash), root: tree.root(),
            metaHash: Hash.sha256(Array(v.meta ?? Data())), keyVersion: v.keyVersion, signer: st.accountID)
        m.sign(with: try SigningKey(seed: SecretBytes(copying: st.signSeed)))
        let push = SyncPushRequest(opID: "newer-1", vaults: [SyncVaultWrite(vaultID: vaultID, baseVersion: v.manifestVersion, manifest: Data(m.encoded),
            keyVersion: v.keyVersion, key: nil, meta: nil, items: [SyncItemWrite(itemID: "newerclientitem0000000000a", envelope: Data(newer))])])
        _ = try a.client.push(Array(try ProtocolCoding.wireEncode(push)))
        let synced = try b.sync()
        let listed = try #require(synced.status.undecryptable.first)
        #expect(synced.status.undecryptable.count == 1)
        #expect(listed.itemID == "newerclientitem0000000000a" && listed.reason == "envelope version 2")
        #expect(b.vault.items.map(\.title) == ["Readable"], "the entry is not an item here")
        // Later syncs keep listing it, and never delete it on the server.
        try b.session.update { try $0.add(Item(category: .secureNote, title: "After"), now: Date()) }
        try b.sync()
        #expect(b.service.syncStatus()?.undecryptable.count == 1)
        let all = try b.client.pull(since: 0)
        #expect(all.items.contains { $0.itemID == "newerclientitem0000000000a" && $0.envelope == Data(newer) })
        // The first device accepts what the second signed over a tree that counts the entry.
        try a.sync()
        #expect(a.vault.items.contains { $0.title == "After" })
    }

    /// With PostgreSQL, a long poll at one server process wakes when another process takes a push
    /// (LISTEN/NOTIFY), well before the poll's 20 seconds are up.
    @Test(.enabled(if: Backend.cases.contains(.postgres), "PostgreSQL is not installed (make test installs it)"))
    func aPushAtOneServerProcessWakesALongPollAtAnother() throws {
        let dir = try TemporaryDirectory("passbox-sync-notify")
        let extra = try Backend.postgres.serverArguments(directory: dir.path + "/unused")
        let first = try ServerProcess(dataDirectory: dir.path + "/first", in: dir, extra: extra, name: "first")
        let second = try ServerProcess(dataDirectory: dir.path + "/second", in: dir, extra: extra, name: "second")
        let (a, key) = try SyncDevice.signUp("a", server: first.origin, email: "n@example.org", in: dir)
        let b = try SyncDevice.signIn("b", server: second.origin, email: "n@example.org", secretKey: key, in: dir)
        try a.sync()
        try b.sync()
        let since = b.vault.sync!.revision
        let woke = ThreadResult<Int64>()
        let done = DispatchSemaphore(value: 0)
        let client = b.client
        let waiter = Thread {
            woke.result = Result { try client.wait(since: since).revision }
            done.signal()
        }
        waiter.start()
        Thread.sleep(forTimeInterval: 0.3)
        try a.session.update { try $0.add(Item(category: .secureNote, title: "Across processes"), now: Date()) }
        try a.sync()
        #expect(done.wait(timeout: .now() + 10) == .success, "the long poll at the other process woke")
        // A poll that ran out would answer the revision it was given: a later one means the push woke it.
        let revision = try #require(try woke.result?.get())
        #expect(revision > since, "woken by the notification, not by the poll's end")
        try b.sync()
        #expect(b.vault.items.contains { $0.title == "Across processes" })
    }

    /// Two agents of one account: a change made through one appears in the other without a command there
    /// (the other's long poll wakes it).
    @Test func aChangeOnOneDeviceAppearsOnTheOther() throws {
        let dir = try TemporaryDirectory("passbox-sync-live")
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir)
        let (a, key) = try SyncDevice.signUp("a", server: server.origin, email: "live@example.org", in: dir)
        let b = try SyncDevice.signIn("b", server: server.origin, email: "live@example.org", secretKey: key, in: dir)
        a.service.lock()
        b.service.lock()
        let bin = try Transcript.executablePath()
        var agents: [Int32] = []
        defer { for pid in agents { Transcript.stop(pid) } }
        for d in [a, b] {
            agents.append(try Transcript.startBackground(bin, ["--data", d.directory, "agent"], environment: ["XDG_RUNTIME_DIR": ""]))
            let socket = d.directory + "/run/agent.sock"
            for _ in 0..<500 where (try? AgentClient.send(.status, socketPath: socket)) == nil { usleep(10_000) }
            #expect(try AgentClient.send(.unlock(UnlockRequest(password: SecretText(SyncDevice.password))), socketPath: socket) == .done)
        }
        let socketA = a.directory + "/run/agent.sock", socketB = b.directory + "/run/agent.sock"
        // b's agent is connected once its first sync after unlock is done.
        for _ in 0..<200 where (try? AgentClient.send(.status, socketPath: socketB)?.status().sync?.live) != true { usleep(50_000) }
        #expect(try AgentClient.send(.status, socketPath: socketB)?.status().sync?.live == true)
        let reply = try AgentClient.send(.add(AddRequest(category: "login", changes: ItemChanges(title: "Live one"))), socketPath: socketA)
        let added = try #require(reply).saved()
        let start = Date()
        var seen = false
        for _ in 0..<200 where !seen {
            seen = (try? AgentClient.send(.list(ListRequest()), socketPath: socketB)?.items().items.contains { $0.id == added.id }) == true
            if !seen { usleep(25_000) }
        }
        #expect(seen, "the item reached the other agent")
        print("a change on one agent appeared on the other after \(Int(Date().timeIntervalSince(start) * 1000)) ms")
        let statusReply = try AgentClient.send(.status, socketPath: socketA)
        let status = try #require(try statusReply?.status().sync)
        #expect(status.queued == 0 && status.lastSync != nil)
    }
}
