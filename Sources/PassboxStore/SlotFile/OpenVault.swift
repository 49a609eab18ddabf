import Foundation
import PassboxCore
import PassboxCrypto
internal import CLinux

/// An unlocked vault: its contents and the keys of its own slot (never the password or password key).
public final class OpenVault: @unchecked Sendable {
    // @unchecked: used from one thread at a time (the CLI, or the agent's serial queue).
    let store: VaultStore
    private(set) var header: VaultHeader
    let slotIndex: Int
    private(set) var slotNonce: [UInt8]
    private(set) var wrapKey: SecretBytes
    private(set) var dataKey: SecretBytes
    private(set) var generation: UInt64
    /// The layout this vault's slot is in on disk (format 1 until its first save in a format-1 file).
    private(set) var layout: SlotCodec.Layout
    /// The decrypted vault as last loaded or saved.
    public private(set) var vault: Vault

    init(
        store: VaultStore, header: VaultHeader, slotIndex: Int, slotNonce: [UInt8], wrapKey: SecretBytes,
        dataKey: SecretBytes, generation: UInt64, layout: SlotCodec.Layout, vault: Vault
    ) {
        self.layout = layout
        self.store = store
        self.header = header
        self.slotIndex = slotIndex
        self.slotNonce = slotNonce
        self.wrapKey = wrapKey
        self.dataKey = dataKey
        self.generation = generation
        self.vault = vault
    }

    /// The Argon2id parameters kept in the file's header.
    public var kdfParameters: Argon2Parameters { header.kdf }
    /// The current slot size in bytes.
    public var slotSize: Int { header.slotSize }

    func sealedSlot(for vault: Vault, header: VaultHeader, generation: UInt64, nonce: [UInt8]? = nil, wrapKey: SecretBytes? = nil, dataKey: SecretBytes? = nil) throws -> [UInt8] {
        var json = try PayloadCodec.encode(vault)
        defer { ConstantTime.wipe(&json) }
        var compressed = try json.withUnsafeBytes { try Deflate.compress($0) }
        defer { ConstantTime.wipe(&compressed) }
        return try SlotCodec.sealSlot(
            header: header, index: slotIndex, slotNonce: nonce ?? slotNonce, wrapKey: wrapKey ?? self.wrapKey,
            dataKey: dataKey ?? self.dataKey, generation: generation, compressed: compressed, now: store.clock.now())
    }

    /// Saves `newVault` into this vault's slot. When the slot size stays, only this slot is written, in place,
    /// through a synced journal; when it doubles (or a format-1 file is converted), a new file is written one
    /// slot at a time, the other slots copied from the old one. Memory is updated only after the file is
    /// committed.
    public func save(_ newVault: Vault) throws {
        try rewriteOwnSlot(vault: newVault)
        vault = newVault
    }

    /// Changes this vault's password: the current one is checked as an unlock attempt (counted, held to the
    /// deadline); then only this slot is rewritten, with a new slot nonce and a new data key (G16, G66).
    public func changePassword(current: String, new: String) throws {
        let check = try store.unlock(password: current)
        guard check.slotIndex == slotIndex else { throw StoreError.wrongPassword }
        try check.rekey(current: current, new: new)
        slotNonce = check.slotNonce
        wrapKey = check.wrapKey
        dataKey = check.dataKey
        generation = check.generation
        layout = check.layout
        header = check.header
        vault = check.vault
    }

    /// Rewrites this (just unlocked with `current`) vault's slot under `new`.
    func rekey(current: String, new: String) throws {
        guard current.precomposedStringWithCanonicalMapping != new.precomposedStringWithCanonicalMapping else {
            throw StoreError.passwordUnchanged
        }
        try PasswordRules.checkLocalVaultPassword(new)
        let passwordKey = try store.derivePasswordKey(new, header: header)
        let newNonce = SecureRandom.bytes(count: SlotCodec.nonceLength)
        let newWrap = try SlotCodec.wrapKey(passwordKey: passwordKey, slotNonce: newNonce)
        let newData = SecretBytes.generate(count: 32)
        try rewriteOwnSlot(vault: vault, nonce: newNonce, wrapKey: newWrap, dataKey: newData)
        slotNonce = newNonce
        wrapKey = newWrap
        dataKey = newData
    }

    /// Seals the new slot and writes it. Only the header and this slot's key-box prefix are read to check
    /// that nobody else saved since (FMT-4). When the slot size stays, the slot goes through the journal and
    /// is written in place; when it must double, a new file is written one slot at a time and renamed over.
    private func rewriteOwnSlot(vault newVault: Vault, nonce: [UInt8]? = nil, wrapKey newWrap: SecretBytes? = nil, dataKey newData: SecretBytes? = nil) throws {
        try POSIX.ensurePrivateDirectory(store.directory, creating: false)
        try store.withWriteLock {
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
            guard onDisk.salt == header.salt, onDisk.kdf == header.kdf, Int(st.st_size) == onDisk.fileSize else {
                throw StoreError.conflict
            }
            // Refuse to write over a save made by another process since this one loaded (FMT-4).
            let prefix = try POSIX.readExactly(fd: fd, offset: store.slotOffset(slotIndex, onDisk), count: SlotCodec.prefixLength, path: target)
            guard let box = SlotCodec.openKeyBox(slotPrefix: prefix, header: onDisk, index: slotIndex, wrapKey: wrapKey, layout: layout),
                box.generation == generation
            else { throw StoreError.conflict }

            var json = try PayloadCodec.encode(newVault)
            defer { ConstantTime.wipe(&json) }
            var compressed = try json.withUnsafeBytes { try Deflate.compress($0) }
            defer { ConstantTime.wipe(&compressed) }
            var newHeader = onDisk
            newHeader.formatVersion = VaultHeader.currentVersion
            while SlotCodec.capacity(slotSize: newHeader.slotSize) < compressed.count {
                guard newHeader.slotSize < VaultHeader.maximumSlotSize else { throw StoreError.tooLarge }
                newHeader.slotSize *= 2
            }
            let nextGeneration = generation &+ 1
            let ownSlot = try SlotCodec.sealSlot(
                header: newHeader, index: slotIndex, slotNonce: nonce ?? slotNonce, wrapKey: newWrap ?? wrapKey,
                dataKey: newData ?? dataKey, generation: nextGeneration, compressed: compressed, now: store.clock.now())
            if newHeader == onDisk {
                try writeInPlace(ownSlot, header: onDisk, target: target)
            } else {
                try writeNewFile(ownSlot, header: newHeader, from: fd, oldHeader: onDisk, target: target)
            }
            header = newHeader
            generation = nextGeneration
            layout = .format2
        }
    }

    /// The journaled in-place save (security.md §7 "Saving"): journal written and synced, directory synced,
    /// slot written in place and synced, read back, journal removed, directory synced. Until the journal is
    /// synced the old slot is untouched; from then on the journal holds the whole new slot.
    private func writeInPlace(_ slot: [UInt8], header onDisk: VaultHeader, target: String) throws {
        let fileSystem = store.fileSystem
        let directory = VaultStore.parentDirectory(of: target)
        let journal = VaultStore.journalPath(for: target)
        let offset = store.slotOffset(slotIndex, onDisk)
        let head = SaveJournal.header(index: slotIndex, offset: offset, length: slot.count, vaultHeader: onDisk.encoded())
        let checksum = SaveJournal.checksum(header: head, slot: slot)
        do {
            try fileSystem.writeNewFile(at: journal) { append in
                try head.withUnsafeBytes { try append($0) }
                try slot.withUnsafeBytes { try append($0) }
                try checksum.withUnsafeBytes { try append($0) }
            }
            try fileSystem.syncDirectory(directory)
        } catch {
            // The slot was not touched: without the journal the old vault stands.
            try? fileSystem.remove(journal)
            throw error
        }
        // From here a failure leaves the journal, and the next open writes the new slot from it.
        try slot.withUnsafeBytes { try fileSystem.overwrite(at: target, offset: offset, contents: $0) }
        try store.verify(path: target, size: onDisk.fileSize, offset: offset, expected: slot)
        try fileSystem.remove(journal)
        // The slot is synced and was read back: a failed directory sync now leaves at most a journal whose
        // replay writes the same bytes again.
        try? fileSystem.syncDirectory(directory)
    }

    /// The growing or converting save: a new file (of the larger slot size, or in format 2), written one slot at a time (other slots copied
    /// from the old file, random fill appended), verified on this slot, renamed over the old one.
    private func writeNewFile(_ slot: [UInt8], header newHeader: VaultHeader, from fd: Int32, oldHeader: VaultHeader, target: String) throws {
        try store.commitNewFile(target: target, size: newHeader.fileSize, check: (store.slotOffset(slotIndex, newHeader), slot)) { append in
            try newHeader.encoded().withUnsafeBytes { try append($0) }
            for index in 0..<VaultHeader.slotCount {
                if index == slotIndex {
                    try slot.withUnsafeBytes { try append($0) }
                    continue
                }
                var other = try POSIX.readExactly(fd: fd, offset: store.slotOffset(index, oldHeader), count: oldHeader.slotSize, path: target)
                if oldHeader.formatVersion == 1 {
                    // Converting to format 2: the other slots cannot be re-sealed (their keys are not ours), but
                    // format 1's version bytes were never authenticated, so random bytes in their place leave
                    // any vault there opening (with the format-1 layout) and make it look like an unused slot.
                    for offset in SlotCodec.formatOneMarkerOffsets { other[offset] = SecureRandom.bytes(count: 1)[0] }
                }
                try other.withUnsafeBytes { try append($0) }
                if newHeader.slotSize > oldHeader.slotSize {
                    try SecureRandom.bytes(count: newHeader.slotSize - oldHeader.slotSize).withUnsafeBytes { try append($0) }
                }
            }
        }
    }
}
