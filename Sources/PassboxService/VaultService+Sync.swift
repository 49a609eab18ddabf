import Foundation
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxProtocol
import PassboxStore
import PassboxSync

/// Sync and the vault list, for an account's vault (docs/PROTOCOL.md "Sync").
extension VaultService {
    /// The account this data directory is signed in to, with its session token.
    func signedInRecord() throws -> AccountRecord {
        guard store.isAccountVault, let record = try AccountRecord.load(dataDirectory) else { throw ProtocolError(.localVault) }
        guard record.token != nil else { throw ProtocolError(.notSignedIn) }
        return record
    }

    /// Syncs the account's vaults now. A failure is remembered (for `status`) and thrown; nothing is lost.
    /// `client` replaces the one made from the account record (benchmarks and tests count its traffic).
    ///
    /// `gate` is how the sync reaches the vault: inline (the CLI, tests), or the agent's queue, which the sync
    /// then holds only for short steps; every network call is made outside them, so a lock never waits for
    /// the server. A step that finds the vault locked (or locked and unlocked again) since the sync began
    /// throws `locked`, and what the network brought is dropped.
    public func sync(takeNotices: Bool = true, client given: SyncClient? = nil, gate: VaultGate = .inline) throws -> SyncReply {
        let (record, began) = try gate.run { () throws -> (AccountRecord, UInt64) in
            guard session != nil else { throw ProtocolError(.locked) }
            return (try signedInRecord(), generation)
        }
        let client = try given ?? SyncClient(server: record.server, token: record.token!)
        let outcome: SyncOutcome
        do {
            var own = try AccountSync(service: self, generation: began, gate: gate, client: client, now: now, limits: syncLimits).run()
            // Then the shared vaults of the organisations this device trusts (issue 32).
            let shared = try syncShared(record: record, began: began, gate: gate, given: given)
            own.pulled += shared.pulled
            own.pushed += shared.pushed
            outcome = own
            // Once per run of this service: a device signed in before device records existed signs its own.
            if !checkedOwnRecord {
                checkedOwnRecord = true
                let state = try? gate.run { () -> SyncState? in generation == began ? session?.vault.sync : nil }
                if let state = state ?? nil { AccountOperations.attestIfMissing(record: record, syncState: state) }
            }
        } catch {
            try? gate.run {
                guard generation == began, let session else { return }
                let code = ProtocolError.from(error).code.rawValue
                if session.vault.sync != nil, !session.isUnusable, session.vault.sync?.lastFailure != code { try? session.updateNaming([]) { $0.sync?.lastFailure = code } }
                if session.isUnusable { lock() }
            }
            throw error
        }
        return try gate.run {
            guard generation == began, let session else { throw ProtocolError(.locked) }
            let status = syncStatus(session)
            if takeNotices, !(session.vault.sync?.notices.isEmpty ?? true) { try session.updateNaming([]) { $0.sync?.notices = [] } }
            return SyncReply(pulled: outcome.pulled, pushed: outcome.pushed, status: status)
        }
    }

    /// Where the account's sync stands (nil for the local vault or while locked).
    public func syncStatus() -> SyncStatusView? {
        guard let session, store.isAccountVault else { return nil }
        return syncStatus(session)
    }

    func syncStatus(_ session: VaultSession) -> SyncStatusView {
        let vault = session.vault
        let state = vault.sync
        // (Changes to items of shared vaults this account may only view are never pushed: not counted.)
        let queued = vault.items.reduce(0) { $0 + ($1.syncPending && !(state?.isViewOnly($1.vaultID ?? "") ?? false) ? 1 : 0) } + (state?.removals.count ?? 0)
            + (state?.vaults.values.reduce(0) { $0 + ($1.metaPending ? 1 : 0) } ?? 0)
        let names = Dictionary(vault.vaults.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        let last = [state?.lastSync, session.syncState.lastSyncHere].compactMap { $0 }.max()
        return SyncStatusView(
            queued: queued, lastSync: last, lastFailure: state?.lastFailure, revision: state?.revision ?? 0,
            notices: (state?.notices ?? []).map { SyncNoticeView(kind: $0.kind.rawValue, at: $0.at, itemID: $0.itemID, title: $0.title, fields: $0.fields) },
            undecryptable: (state?.undecryptable ?? []).map { UndecryptableView(vault: names[$0.vaultID] ?? $0.vaultID, itemID: $0.itemID, reason: $0.reason) })
    }

    /// What a live connection needs: the server, the token and the revision this device has (nil when this
    /// data directory does not serve an unlocked account vault with its sync keys).
    public func liveTarget() -> (server: String, token: String, revision: Int64)? {
        guard let session, let state = session.vault.sync, let record = try? signedInRecord(), let token = record.token else { return nil }
        // This device's own pushes are past its pulled revision: waiting from there would wake at once.
        return (record.server, token, max(state.revision, state.ownRevisions?.max() ?? 0))
    }

    /// Whether changes wait to be pushed.
    public var hasQueuedChanges: Bool {
        guard let session, session.vault.sync != nil else { return false }
        return (syncStatus(session).queued) > 0
    }

    func vaultList() throws -> VaultListReply {
        guard let session else { throw ProtocolError(.locked) }
        if store.isAccountVault {
            let record = try? AccountRecord.load(dataDirectory)
            let local = VaultStore(directory: dataDirectory)
            return session.vaultList(kind: "account", account: record?.email, other: local.exists ? local.vaultPath : nil)
        }
        return session.vaultList(kind: "local", account: nil, other: nil)
    }

    /// Installs the sync keys into an account's vault opened with the master password, when it has none yet
    /// (a vault made before sync existed), or the box key that opens shared vaults' grants when its state
    /// predates sharing: the keyset is opened once more for them.
    func installSyncKeys(password: SecretBytes) throws {
        guard let session, session.vault.sync?.boxKey == nil, let account = store.accountKey, let keyset = try account.openedKeyset(password: password) else { return }
        let state = try keyset.syncState(accountID: account.accountID)
        try session.updateNaming([]) { vault in
            if vault.sync == nil { vault.sync = state } else { vault.sync!.boxKey = state.boxKey }
        }
    }
}
