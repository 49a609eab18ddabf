import Foundation
import PassboxCore
import PassboxCrypto
internal import CLinux

/// An unlocked vault: its contents and the keys of its own slot (never the password or password key).
public final class OpenVault: @unchecked Sendable {
    // @unchecked: used from one thread at a time (the CLI, or the agent's serial queue).
    let store: VaultStore
    /// The file's header as this vault last read or wrote it (set by `VaultStore.create` once a one-slot
    /// file's slot is sized).
    var header: VaultHeader
    /// This vault's slot (0 once an account's vault moved to its one-slot file).
    private(set) var slotIndex: Int
    private(set) var slotNonce: [UInt8]
    private(set) var wrapKey: SecretBytes
    private(set) var dataKey: SecretBytes
    private(set) var generation: UInt64
    /// The layout this vault's slot is in on disk (format 1 until its first save in a format-1 file).
    private(set) var layout: SlotCodec.Layout
    /// The decrypted vault as last loaded or saved.
    public private(set) var vault: Vault
    /// The compressed chunk of each group of `ChunkedPayload.groupSize` items of `vault`, as its slot holds
    /// them, so a save re-packs and re-compresses only the groups that changed; nil when not known (a slot
    /// in the single-stream layout, or cut differently), and the next save compresses every group. Only
    /// compressed bytes: derived from the plaintext, but no larger a risk than `vault` itself in memory.
    private(set) var groupChunks: [[UInt8]]?
    /// The ids of `vault.items` as last saved, in order: a save compares each unnamed group's ids with them
    /// (the saved items themselves may be out on loan to an in-place change, see `takeVaultForChange`).
    var savedIDs: [String]
    /// While the vault is out for an in-place change: its packed prelude and trailer, from which (with the
    /// kept group chunks) it is rebuilt if the change fails.
    private var loan: (prelude: [UInt8], trailer: [UInt8])?
    #if DEBUG
        /// Debug builds keep the lent vault to check that an unnamed item is unchanged (release builds do not
        /// copy it: that copy is what the loan avoids).
        var loanedOriginal: Vault?
    #endif
    /// Set when a failed in-place change could not be undone: nothing is saved any more.
    public private(set) var isUnusable = false

    init(
        store: VaultStore, header: VaultHeader, slotIndex: Int, slotNonce: [UInt8], wrapKey: SecretBytes,
        dataKey: SecretBytes, generation: UInt64, layout: SlotCodec.Layout, vault: Vault, groupChunks: [[UInt8]]? = nil
    ) {
        self.groupChunks = groupChunks
        self.layout = layout
        self.store = store
        self.header = header
        self.slotIndex = slotIndex
        self.slotNonce = slotNonce
        self.wrapKey = wrapKey
        self.dataKey = dataKey
        self.generation = generation
        self.vault = vault
        self.savedIDs = vault.items.map(\.id)
    }

    /// The Argon2id parameters kept in the file's header.
    public var kdfParameters: Argon2Parameters { header.kdf }
    /// Whether this is an account's vault (its password is the master password; no duress or phrases).
    public var isAccountVault: Bool { store.isAccountVault }
    /// A local vault's file (not an account's), whose slots may hide one another.
    public var isLocalVault: Bool { !store.isAccountVault }
    /// The encrypted attachments of this vault file's slots, beside it.
    public var blobs: BlobStore { BlobStore(vaultDirectory: store.directory) }
    /// The current slot size in bytes.
    public var slotSize: Int { header.slotSize }

    /// The first slot of a new vault (every group compressed), and the chunks to keep once it is committed.
    /// A one-slot header gets the slot size that fits the vault.
    func sealedSlot(for vault: Vault, header: inout VaultHeader, generation: UInt64) throws -> (slot: [UInt8], groups: [[UInt8]]) {
        let groups = try compressedGroups(of: vault, changedItemIDs: nil)
        let chunks = try payloadChunks(of: vault, groups: groups)
        if header.isSingleSlot { header.slotSize = VaultHeader.singleSlotSize(forCompressedLength: ChunkedPayload.encodedLength(chunks)) }
        precondition(ChunkedPayload.encodedLength(chunks) <= SlotCodec.capacity(slotSize: header.slotSize), "a new vault fits the smallest slot")
        let slot = try seal(chunks, header: header, index: slotIndex, generation: generation, nonce: slotNonce, wrapKey: wrapKey, dataKey: dataKey)
        return (slot, groups)
    }

    deinit {
        if groupChunks != nil {
            for g in groupChunks!.indices { ConstantTime.wipe(&groupChunks![g]) }
        }
    }

    /// Saves `newVault` into this vault's slot, compressing every item group afresh (as
    /// `save(_:changedItemIDs:)` with nil).
    public func save(_ newVault: Vault) throws {
        try save(newVault, changedItemIDs: nil)
    }

    /// Saves `newVault` into this vault's slot. When the slot size stays, only this slot is written, in place,
    /// through a synced journal; when it doubles (or a format-1 file is converted), a new file is written one
    /// slot at a time, the other slots copied from the old one. Memory is updated only after the file is
    /// committed.
    ///
    /// `changedItemIDs` names every item changed since `vault` (added, edited, marked, trashed, restored;
    /// deleted ones need not be named), or is nil when that is not known: then every group of items is packed
    /// and compressed again. Otherwise a group keeps its compressed chunk when it holds none of the named
    /// items and the same number of items with the same ids in the same places as before; so an add
    /// re-compresses only the last group, an edit its item's group, a deletion every group from its own on.
    /// An item changed but not named would be saved as it was: a caller that cannot name every change
    /// passes nil (debug builds check the promise).
    public func save(_ newVault: Vault, changedItemIDs: Set<String>?) throws {
        guard !isUnusable else { throw StoreError.damaged(path: store.vaultPath, reason: "an earlier change could not be undone in memory; unlock again") }
        let groups = try rewriteOwnSlot(vault: newVault, changedItemIDs: changedItemIDs)
        vault = newVault
        savedIDs = newVault.items.map(\.id)
        endLoan()
        replaceGroupChunks(groups)
    }

    // MARK: Changing in place

    /// Hands the vault out to be changed in place and saved with `save(_:changedItemIDs:)`, so that a change
    /// does not copy every item (at 100,000 items the copy and its release were half the time of an add).
    /// While it is out `vault` is empty; if the change or its save fails, `restoreAfterFailedChange()` rebuilds
    /// it from the kept compressed chunks. Nil when there are no chunks to rebuild from (a format-1 or
    /// differently cut slot before its first save): the caller then changes a copy.
    public func takeVaultForChange() -> Vault? {
        guard loan == nil, !isUnusable, let chunks = groupChunks,
            chunks.count == (vault.items.count + ChunkedPayload.groupSize - 1) / ChunkedPayload.groupSize
        else { return nil }
        loan = (vault.packedPrelude(), vault.packedTrailer())
        #if DEBUG
            loanedOriginal = vault
        #endif
        var out = Vault()
        swap(&out, &vault)
        return out
    }

    /// Puts back the vault as last saved after a change on loan failed (or saved nothing).
    public func restoreAfterFailedChange() {
        guard let loan, let chunks = groupChunks else { return }
        do {
            let compressed = [try loan.prelude.withUnsafeBytes { try Deflate.compress($0) }] + chunks + [try loan.trailer.withUnsafeBytes { try Deflate.compress($0) }]
            var layout = ChunkedPayload.encoded(compressed)
            defer { ConstantTime.wipe(&layout) }
            var inflated = try layout.withUnsafeBytes { try ChunkedPayload.decompress($0, limit: .max, keepingChunks: false) }
            defer { ConstantTime.wipe(&inflated.payload) }
            let restored = try PayloadCodec.decode(inflated.payload, path: store.vaultPath)
            guard restored.items.map(\.id) == savedIDs else { throw StoreError.damaged(path: store.vaultPath, reason: "the kept chunks do not match") }
            vault = restored
            endLoan()
        } catch {
            // The saved vault cannot be rebuilt in memory (it is intact on disk): refuse every further save.
            isUnusable = true
        }
    }

    private func endLoan() {
        if var l = loan {
            ConstantTime.wipe(&l.prelude)
            ConstantTime.wipe(&l.trailer)
        }
        loan = nil
        #if DEBUG
            loanedOriginal = nil
        #endif
    }

    /// Keeps `groups` as the chunks of `vault`, wiping the chunks no longer used.
    func replaceGroupChunks(_ groups: [[UInt8]]) {
        if var old = groupChunks {
            groupChunks = nil
            for g in old.indices where g >= groups.count || !old[g].withUnsafeBytes({ o in groups[g].withUnsafeBytes { o.baseAddress == $0.baseAddress } }) {
                ConstantTime.wipe(&old[g])
            }
        }
        groupChunks = groups
    }

    /// Changes this vault's password: the current one is checked as an unlock attempt (counted, held to the
    /// deadline); then only this slot is rewritten, with a new slot nonce and a new data key (G16, G66).
    public func changePassword(current: String, new: String) throws {
        try changePassword(current: VaultStore.passwordBytes(current), new: VaultStore.passwordBytes(new))
    }

    /// The same with NFC UTF-8 bytes (the agent's, which never become Strings).
    public func changePassword(current: SecretBytes, new: SecretBytes) throws {
        if store.isAccountVault { throw StoreError.accountVaultPassword }
        try store.attempts.refuseTenthOutsideUnlock()
        let check = try store.unlock(password: current)
        try checkSameSlot(check)
        try check.rekey(current: current, new: new)
        slotNonce = check.slotNonce
        wrapKey = check.wrapKey
        dataKey = check.dataKey
        generation = check.generation
        layout = check.layout
        header = check.header
        vault = check.vault
        savedIDs = check.savedIDs
    }

    /// That `check`, just unlocked with the password given to confirm a change, is this vault: the same slot
    /// (else the password is another vault's, as a duress password is). A file saved since in another layout
    /// (an account's vault moved into one slot by another process) is a conflict, not a wrong password.
    func checkSameSlot(_ check: OpenVault) throws {
        guard check.header.slotCount == header.slotCount else { throw StoreError.conflict }
        guard check.slotIndex == slotIndex else { throw StoreError.wrongPassword }
    }

    /// Rewrites this (just unlocked with `current`) vault's slot under `new`.
    func rekey(current: SecretBytes, new: SecretBytes) throws {
        guard !current.isEqual(to: new) else { throw StoreError.passwordUnchanged }
        try new.withUnsafeBytes { try PasswordRules.checkLocalVaultPassword(utf8: $0) }
        let passwordKey = try store.derivePasswordKey(new, header: header)
        let newNonce = SecureRandom.bytes(count: SlotCodec.nonceLength)
        let newWrap = try SlotCodec.wrapKey(passwordKey: passwordKey, slotNonce: newNonce)
        let newData = SecretBytes.generate(count: 32)
        let groups = try rewriteOwnSlot(vault: vault, changedItemIDs: [], nonce: newNonce, wrapKey: newWrap, dataKey: newData)
        replaceGroupChunks(groups)
        slotNonce = newNonce
        wrapKey = newWrap
        dataKey = newData
    }

    /// Seals the new slot and writes it. Only the header and this slot's key-box prefix are read to check
    /// that nobody else saved since (FMT-4). When the slot size stays, the slot goes through the journal and
    /// is written in place; when it must double, a new file is written one slot at a time and renamed over.
    /// Returns the compressed item groups of the slot written (for `groupChunks`, once the caller commits).
    private func rewriteOwnSlot(
        vault newVault: Vault, changedItemIDs: Set<String>?, nonce: [UInt8]? = nil, wrapKey newWrap: SecretBytes? = nil,
        dataKey newData: SecretBytes? = nil
    ) throws -> [[UInt8]] {
        try POSIX.ensurePrivateDirectory(store.directory, creating: false)
        return try store.withWriteLock {
            try store.settleLocked()
            let target = store.resolvedVaultPath()
            let fd = CLinux_openFile(target, O_RDONLY | O_CLOEXEC, 0)
            guard fd >= 0 else {
                if errno == ENOENT { throw StoreError.noVault(path: store.vaultPath) }
                throw StoreError.io(operation: "open", path: target, errno: errno)
            }
            defer { close(fd) }
            var st = stat()
            guard fstat(fd, &st) == 0 else { throw StoreError.io(operation: "stat", path: target, errno: errno) }
            guard Int(st.st_size) >= VaultHeader.length else { throw StoreError.conflict }
            let onDisk = try VaultHeader.decode(try POSIX.readExactly(fd: fd, offset: 0, count: VaultHeader.length, path: target), path: target)
            guard onDisk.salt == header.salt, onDisk.kdf == header.kdf, onDisk.slotCount == header.slotCount, Int(st.st_size) == onDisk.fileSize else {
                throw StoreError.conflict
            }
            // Refuse to write over a save made by another process since this one loaded (FMT-4).
            let prefix = try POSIX.readExactly(fd: fd, offset: store.slotOffset(slotIndex, onDisk), count: SlotCodec.prefixLength, path: target)
            guard let box = SlotCodec.openKeyBox(slotPrefix: prefix, header: onDisk, index: slotIndex, wrapKey: wrapKey, layout: layout),
                box.generation == generation
            else { throw StoreError.conflict }

            // No buffer of the whole payload: unchanged groups keep their chunks, the others are packed and
            // deflated group by group, and the slot is sealed from the chunks.
            let groups = try compressedGroups(of: newVault, changedItemIDs: changedItemIDs)
            let chunks = try payloadChunks(of: newVault, groups: groups)
            let compressedLength = ChunkedPayload.encodedLength(chunks)
            var newHeader = onDisk
            newHeader.formatVersion = VaultHeader.currentVersion
            let nextGeneration = generation &+ 1
            if store.isAccountVault {
                // An account's vault is kept in a one-slot file sized to it, written whole and renamed over
                // (once, instead of journal and slot); a sixteen-slot file it was made in before is moved into
                // one at this save (duress vaults are refused in an account's file, so no other slot holds a
                // vault). Slot index and slot count are bound in the associated data: the slot is sealed afresh.
                guard compressedLength <= SlotCodec.capacity(slotSize: VaultHeader.maximumSlotSize) else { throw StoreError.tooLarge }
                newHeader.formatVersion = VaultHeader.singleSlotVersion
                newHeader.slotCount = VaultHeader.singleSlot
                newHeader.slotSize = VaultHeader.singleSlotSize(forCompressedLength: compressedLength)
                let ownSlot = try seal(
                    chunks, header: newHeader, index: 0, generation: nextGeneration, nonce: nonce ?? slotNonce, wrapKey: newWrap ?? wrapKey,
                    dataKey: newData ?? dataKey)
                try store.commitFreshFile(target: target, header: newHeader, index: 0, slot: ownSlot)
                slotIndex = 0
            } else {
                while SlotCodec.capacity(slotSize: newHeader.slotSize) < compressedLength {
                    guard newHeader.slotSize < VaultHeader.maximumSlotSize else { throw StoreError.tooLarge }
                    newHeader.slotSize *= 2
                }
                let ownSlot = try seal(
                    chunks, header: newHeader, index: slotIndex, generation: nextGeneration, nonce: nonce ?? slotNonce, wrapKey: newWrap ?? wrapKey,
                    dataKey: newData ?? dataKey)
                if newHeader == onDisk {
                    try writeInPlace(ownSlot, header: onDisk, target: target)
                } else {
                    try writeNewFile(ownSlot, header: newHeader, from: fd, oldHeader: onDisk, target: target)
                }
            }
            header = newHeader
            generation = nextGeneration
            layout = .format2
            return groups
        }
    }

    /// Seals a slot whose body holds `chunks` in the chunked layout (compression id 2).
    private func seal(
        _ chunks: [[UInt8]], header: VaultHeader, index: Int, generation: UInt64, nonce: [UInt8], wrapKey: SecretBytes, dataKey: SecretBytes
    ) throws -> [UInt8] {
        try SlotCodec.sealSlot(
            header: header, index: index, slotNonce: nonce, wrapKey: wrapKey, dataKey: dataKey, generation: generation,
            compression: SlotCodec.compressionChunked, compressedLength: ChunkedPayload.encodedLength(chunks), now: store.clock.now()
        ) { ChunkedPayload.write(chunks, into: $0) }
    }

    /// The payload's chunks: the prelude, the item groups, the trailer (the first and last are a few bytes,
    /// compressed afresh every time).
    private func payloadChunks(of newVault: Vault, groups: [[UInt8]]) throws -> [[UInt8]] {
        var prelude = newVault.packedPrelude()
        var trailer = newVault.packedTrailer()
        defer {
            ConstantTime.wipe(&prelude)
            ConstantTime.wipe(&trailer)
        }
        return [try prelude.withUnsafeBytes { try Deflate.compress($0) }] + groups + [try trailer.withUnsafeBytes { try Deflate.compress($0) }]
    }
}
