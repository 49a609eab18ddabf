import Foundation
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxManifest
import PassboxProtocol
import PassboxStore

/// The items of shared vaults (issue 32): after the account's own vaults, a sync takes each organisation this
/// device trusts, verifies its member list, opens the grants of its vaults with the box key the sync state
/// keeps, and runs the same sync engine over the organisation's vaults (`AccountSync` with a realm): manifests
/// signed by members the list lets edit, items sealed under the vault's key at an epoch.
extension VaultService {
    /// What the shared vaults' sync did, summed over organisations; the first failure is thrown after every
    /// organisation had its turn (one that does not verify does not hold up the others).
    func syncShared(record: AccountRecord, began: UInt64, gate: VaultGate, given: SyncClient?) throws -> (pulled: Int, pushed: Int) {
        let boxKey = try gate.run { () throws -> Data? in
            guard generation == began, let session else { throw ProtocolError(.locked) }
            return session.vault.sync?.boxKey
        }
        // A state made before sharing: the next unlock with the master password adds the key.
        guard let boxKey else { return (0, 0) }
        let box = try BoxKeyPair(privateKey: SecretBytes(copying: boxKey))
        // sharing.json is read and written below: no `passbox org` (nor the web UI's) runs meanwhile.
        let held = try SharingFile.lock(dataDirectory)
        defer { withExtendedLifetime(held) {} }
        let trusted = try SharingFile.load(dataDirectory).lists.filter { $0.server == record.server && $0.trusted == true }.map(\.orgID)
        guard !trusted.isEmpty else { return (0, 0) }
        let account = try AccountClient(server: record.server)
        var pulled = 0, pushed = 0
        var failure: Error?
        for orgID in trusted {
            do {
                // A write by a member who relied on a newer list than this device holds: the list is read again
                // once (it may have moved on since), then the server is taken to withhold it.
                for attempt in 1...2 {
                    let head: MemberListVersion
                    let reply: OrgFetchReply
                    // Who could edit each vault at each epoch the new versions passed through: within an epoch
                    // editors are only added (losing access raises it), so the last version of each is enough.
                    var lastOfEpoch: MemberListVersion?
                    var seen: [SharedEditor] = []
                    do {
                        // The first sync of an organisation here reads its whole list again for who could edit when.
                        let first = try gate.run { () -> Bool in session?.vault.sync?.shared?[orgID] == nil }
                        (head, reply) = try SharingOperations.refreshed(orgID, record: record, client: account, dataDirectory: dataDirectory, fromStart: first) { version in
                            if let last = lastOfEpoch, version.epoch > last.epoch { seen += Self.editors(last) }
                            lastOfEpoch = version
                        }
                    } catch let error as ProtocolError where error.code == .notAMember {
                        // Removed (or the server says so): nothing more is synced or written there; what this
                        // device holds of it stays, to view only.
                        try gate.run { try closeShared(orgID, began: began) }
                        break
                    }
                    let vaults = reply.vaults ?? []
                    let keys = SharingOperations.grantedKeys(head, vaults, own: record.accountID, box: box, record: record, dataDirectory: dataDirectory)
                    var client = try given ?? SyncClient(server: record.server, token: record.token ?? "")
                    client.orgID = orgID
                    do {
                        let member = try gate.run { try installShared(head, vaults: vaults, keys: keys, seen: seen, own: record.accountID, began: began) }
                        guard member else { break }
                        let outcome = try AccountSync(service: self, generation: began, gate: gate, client: client, now: now, limits: syncLimits, realm: Self.realm(head)).run()
                        pulled += outcome.pulled
                        pushed += outcome.pushed
                        break
                    } catch let error as ProtocolError where error.code == .syncRefused && ["listBehind", "listForked"].contains(error.facts["reason"] ?? "") {
                        if error.facts["reason"] == "listBehind", attempt == 1 { continue }
                        throw try listMismatch(error, head: head, record: record)
                    }
                }
            } catch let error as ProtocolError where error.code == .locked {
                throw error
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
        return (pulled, pushed)
    }

    /// A shared vault's newest manifest relied on another member list than this device verified: the same
    /// version with another hash (the server showed two lists: `listForked`), or a newer one it does not show
    /// this device (`listWithheld`). A sharing warning, and the sync of that organisation refused.
    func listMismatch(_ error: ProtocolError, head: MemberListVersion, record: AccountRecord) throws -> ProtocolError {
        let problem = error.facts["reason"] == "listForked" ? "listForked" : "listWithheld"
        let vault = error.facts["vault"] ?? ""
        var file = try SharingFile.load(dataDirectory)
        file.warn(SharingOperations.warning(problem, record, subject: head.name, detail: "vault \(vault): a member's write relied on another version of the list than \(head.version)"))
        try file.save(dataDirectory)
        return ProtocolError(.sharingRefused, ["problem": problem, "version": String(head.version), "detail": vault])
    }

    /// The active members a list version lets edit or manage each of its vaults, at its epoch.
    static func editors(_ version: MemberListVersion) -> [SharedEditor] {
        var out: [SharedEditor] = []
        for vault in Set(version.vaults.map(\.vaultID)).sorted() {
            for (member, access) in version.members(of: vault) where member.state == .active && access >= .edit {
                out.append(SharedEditor(vaultID: vault, accountID: member.accountID, key: member.keys.signPublicKey, epoch: version.epoch))
            }
        }
        return out
    }

    /// Who may sign each vault's manifests: the active members the list lets edit or manage it.
    static func realm(_ head: MemberListVersion) -> SyncRealmInfo {
        var editors: [String: [String: [UInt8]]] = [:]
        for e in Self.editors(head) { editors[e.vaultID, default: [:]][e.accountID] = Array(e.key) }
        return SyncRealmInfo(orgID: head.orgID, editors: editors, head: ListHead(version: head.version, hash: head.hash), epoch: head.epoch)
    }

    /// Brings the organisation's state in line with its verified list and the keys its grants gave: a vault
    /// with a key at its current epoch is synced (new writes use the newest key at once); one this account may
    /// only view is view-only; one it no longer has access to, or holds no key for at the vault's current epoch
    /// (its grant has not come), is closed (kept here, view-only, not synced, what was verified of it kept as a
    /// floor). A vault id that is already one of the account's own vaults or another organisation's is refused
    /// with a warning (a server and a manager could otherwise pull the account's own items into a shared vault).
    /// A vault that joins (or comes back) after the organisation's revisions moved on makes the next pull start
    /// from the beginning, each vault held to what this device verified of it before.
    /// Writes the vault only when something changed; whether this account is an active member.
    func installShared(_ head: MemberListVersion, vaults: [SharedVaultRecord], keys: [SharedVaultKey], seen: [SharedEditor] = [], own: String, began: UInt64) throws -> Bool {
        guard generation == began, let session else { throw ProtocolError(.locked) }
        guard let sync = session.vault.sync else { throw ProtocolError(.syncKeysMissing) }
        let org = head.orgID
        var st = sync.shared?[org] ?? sync.organisation(name: head.name)
        let before = st
        st.orgName = head.name
        var kept = st.epochKeys ?? []
        for key in keys where !kept.contains(where: { $0.vaultID == key.vaultID && $0.epoch == key.epoch }) { kept.append(key) }
        st.epochKeys = kept.sorted { ($0.vaultID, $0.epoch) < ($1.vaultID, $1.epoch) }
        var infos = session.vault.vaults
        let active = head.member(own)?.state == .active
        var closed = Set(st.closed ?? [])
        var floors = st.floors ?? [:]
        func close(_ id: String) {
            if let v = st.vaults.removeValue(forKey: id) { floors[id] = v }
            closed.insert(id)
        }
        // Ids taken elsewhere: the account's own vaults, and other organisations'.
        var taken = Set(sync.vaults.keys).union(infos.map(\.id))
        for (other, state) in sync.shared ?? [:] where other != org { taken.formUnion(state.vaults.keys); taken.formUnion(state.closed ?? []) }
        taken.subtract(st.vaults.keys)
        taken.subtract(closed)
        var collided: [String] = []
        var joined = false
        for record in vaults {
            let id = record.vaultID
            if taken.contains(id) {
                collided.append(id)
                continue
            }
            // A vault key epoch past the verified list's: a manager relied on a newer list than this device got.
            if record.epoch > head.epoch { throw ProtocolError(.syncRefused, ["vault": id, "reason": "listBehind"]) }
            // No access any more (or none yet), or no key at the vault's epoch: not synced; what is here stays, to view only.
            guard head.access(vault: id, account: own) != nil, let key = kept.first(where: { $0.vaultID == id && $0.epoch == record.epoch }) else {
                if st.vaults[id] != nil { close(id) }
                continue
            }
            if var v = st.vaults[id] {
                if v.keyVersion < record.epoch {
                    // New writes use the new key at once; an editor's device seals every item again under it.
                    v.keyVersion = record.epoch
                    v.key = key.key
                    st.vaults[id] = v
                    if active, (head.access(vault: id, account: own).map { $0 >= .edit } ?? false), !(st.rekey ?? []).contains(id) {
                        st.rekey = (st.rekey ?? []) + [id]
                    }
                }
            } else {
                // New here, or back: held to what was verified of it before, and never to an older key than this
                // device knows for it (a server could otherwise put a vault back on a key a removed member holds).
                let floor = floors[id]
                let newest = max(floor?.keyVersion ?? 0, floor?.manifestEpoch ?? 0, kept.filter { $0.vaultID == id }.map(\.epoch).max() ?? 0)
                guard record.epoch >= newest else { continue }
                floors[id] = nil
                var v = floor ?? SyncedVault(keyVersion: record.epoch, key: Array(key.key), wrappedKey: [], metaPending: false)
                if let floor, record.epoch > floor.keyVersion, active, (head.access(vault: id, account: own).map { $0 >= .edit } ?? false) {
                    st.rekey = (st.rekey ?? []).filter { $0 != id } + [id]
                }
                (v.keyVersion, v.key) = (record.epoch, key.key)
                st.vaults[id] = v
                closed.remove(id)
                joined = true
            }
            if !infos.contains(where: { $0.id == id }) {
                let name = SharingOperations.openName(Array(record.meta), key: SecretBytes(copying: key.key), org: org, vault: id, epoch: record.epoch)
                infos.append(VaultInfo(id: id, name: name ?? head.name))
            }
        }
        // Vaults the server no longer lists for this account are closed too.
        let listed = Set(vaults.map(\.vaultID))
        for id in Array(st.vaults.keys) where !listed.contains(id) { close(id) }
        st.closed = closed.isEmpty ? nil : closed.sorted()
        st.floors = floors.isEmpty ? nil : floors
        st.rekey = st.rekey.map { $0.filter { st.vaults[$0] != nil } }.flatMap { $0.isEmpty ? nil : $0 }
        st.viewOnly = st.vaults.keys.filter { id in !active || (head.access(vault: id, account: own).map { $0 < .edit } ?? true) }.sorted()
        // Who may edit each vault now, remembered with the list's epoch; an entry below a vault's newest
        // verified epoch can match no manifest any more.
        // (Every vault of the list: one granted later may have been written by someone removed before.)
        var editors = st.editors ?? []
        func slot(_ e: SharedEditor) -> String { e.vaultID + "|" + e.accountID + "|" + e.key.base64EncodedString() }
        var index = Dictionary(editors.enumerated().map { (slot($0.element), $0.offset) }, uniquingKeysWith: { a, _ in a })
        for e in seen + Self.editors(head) {
            if let i = index[slot(e)] {
                editors[i].epoch = max(editors[i].epoch, e.epoch)
            } else {
                index[slot(e)] = editors.count
                editors.append(e)
            }
        }
        editors.removeAll { e in e.epoch < (st.vaults[e.vaultID]?.manifestEpoch ?? floors[e.vaultID]?.manifestEpoch ?? 0) }
        st.editors = editors.isEmpty ? nil : editors
        if joined, st.revision > 0 {
            // Its history is behind the revision this device reached: the organisation is pulled again from the
            // start (older versions of vaults verified here are passed over; none may end below them).
            st.revision = 0
            st.ownRevisions = nil
        }
        if !collided.isEmpty, let record = try? signedInRecord(), var file = try? SharingFile.load(dataDirectory) {
            file.warn(SharingOperations.warning("vaultCollides", record, subject: head.name, detail: "vault \(collided.joined(separator: ", "))"))
            try? file.save(dataDirectory)
        }
        guard st != before || sync.shared?[org] == nil || infos != session.vault.vaults else { return active }
        // The trees kept in memory are made again from what is here.
        session.syncState.sharedTrees[org] = nil
        try session.updateNaming([]) { vault in
            vault.sync!.shared = (vault.sync!.shared ?? [:]).merging([org: st]) { $1 }
            vault.vaults = infos
        }
        return active
    }

    /// An organisation this account is no longer in: its vaults are closed (kept here to view only, not synced).
    func closeShared(_ org: String, began: UInt64) throws {
        guard generation == began, let session else { throw ProtocolError(.locked) }
        guard var st = session.vault.sync?.shared?[org], !st.vaults.isEmpty else { return }
        st.closed = Array(Set(st.closed ?? []).union(st.vaults.keys)).sorted()
        st.floors = (st.floors ?? [:]).merging(st.vaults) { $1 }
        st.vaults = [:]
        st.rekey = nil
        session.syncState.sharedTrees[org] = nil
        try session.updateNaming([]) { $0.sync!.shared![org] = st }
    }
}
