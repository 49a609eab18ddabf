import Foundation
import PassboxCore
import PassboxCrypto
internal import CLinux

/// Duress passwords (security.md §7, G12–G16): a vault's duress vault lives in the slot after its own in the
/// file's secret cyclic slot order, which every vault of the file keeps inside its payload. Setting or
/// changing one writes that slot only, so a chain of duress vaults never touches a vault up the chain for
/// fifteen levels; the sixteenth would take the slot of the chain's first vault.
extension OpenVault {
    /// Where this vault's duress vault goes: the slot after this one in the secret cyclic order.
    var duressSlotIndex: Int? {
        let order = vault.slotOrder
        guard Set(order) == Set(0..<VaultHeader.slotCount), order.count == VaultHeader.slotCount, let at = order.firstIndex(of: slotIndex) else { return nil }
        return order[(at + 1) % order.count]
    }

    /// Sets a new duress password: after the current password is checked (a counted attempt held to the
    /// deadline, G76), a new empty vault with its own keys and keyrings is written into the next slot of the
    /// order, replacing whatever was there (an earlier duress vault of this vault is gone). Nothing else in
    /// the file changes. A duress password equal to this vault's own is refused, and it is tried against no
    /// other slot (G14).
    public func setDuressPassword(current: SecretBytes, duress: SecretBytes) throws {
        try checkCurrentPassword(current)
        try duress.withUnsafeBytes { try PasswordRules.checkLocalVaultPassword(utf8: $0) }
        let duressKey = try store.derivePasswordKey(duress, header: header)
        try refuseOwnPassword(duressKey)
        let target = try duressTarget()
        let nonce = SecureRandom.bytes(count: SlotCodec.nonceLength)
        let fresh = OpenVault(
            store: store, header: header, slotIndex: target, slotNonce: nonce, wrapKey: try SlotCodec.wrapKey(passwordKey: duressKey, slotNonce: nonce),
            dataKey: .generate(count: 32), generation: UInt64(SecureRandom.uniform(UInt32.max - 1)) + 1, layout: .format2,
            vault: .newLocal(slotOrder: vault.slotOrder, created: store.clock.now()))
        try fresh.writeFreshSlot()
    }

    /// Changes the duress password of this vault's duress vault, keeping what that vault holds: the current
    /// password is checked as for setting one, then the old duress password (counted too) is tried on the
    /// next slot only, and that slot alone is re-keyed exactly as `passbox passwd` re-keys a vault.
    public func changeDuressPassword(current: SecretBytes, duress: SecretBytes, new: SecretBytes) throws {
        try checkCurrentPassword(current)
        try new.withUnsafeBytes { try PasswordRules.checkLocalVaultPassword(utf8: $0) }
        let target = try duressTarget()
        try store.attempts.beginAttempt(now: store.clock.now())
        guard let duressVault = try store.openSlot(target, passwordKey: try store.derivePasswordKey(duress, header: header)) else {
            throw StoreError.wrongDuressPassword
        }
        try store.attempts.succeeded()
        let newKey = try store.derivePasswordKey(new, header: header)
        try refuseOwnPassword(newKey)
        try duressVault.rekey(current: duress, new: new)
    }

    /// The current password, checked as a counted unlock attempt held to the deadline, must open this very
    /// slot. The tenth attempt in a row is left to the unlock prompt (G20).
    func checkCurrentPassword(_ current: SecretBytes) throws {
        if store.isAccountVault { throw StoreError.localVaultOnly }
        try store.attempts.refuseTenthOutsideUnlock()
        let check = try store.unlock(password: current)
        try checkSameSlot(check)
    }

    /// Refuses a password key that opens this vault's own slot (and tries it on no other).
    private func refuseOwnPassword(_ key: SecretBytes) throws {
        let fd = try store.openVaultFile()
        defer { close(fd) }
        let prefix = try POSIX.readExactly(fd: fd, offset: store.slotOffset(slotIndex, header), count: SlotCodec.prefixLength, path: store.vaultPath)
        let wrap = try SlotCodec.wrapKey(passwordKey: key, slotNonce: Array(prefix[0..<SlotCodec.nonceLength]))
        if SlotCodec.layouts(for: header).contains(where: { SlotCodec.openKeyBox(slotPrefix: prefix, header: header, index: slotIndex, wrapKey: wrap, layout: $0) != nil }) {
            throw StoreError.duressSameAsOwn
        }
    }

    /// The next slot of the order. A vault whose payload has no valid order (made before duress existed) is
    /// given one that starts at its own slot, saved first; a file still in format 1 is converted first.
    private func duressTarget() throws -> Int {
        if duressSlotIndex == nil || header.formatVersion != VaultHeader.currentVersion {
            var updated = vault
            if duressSlotIndex == nil {
                var rest = VaultStore.randomPermutation(VaultHeader.slotCount).filter { $0 != slotIndex }
                rest.insert(slotIndex, at: 0)
                updated.slotOrder = rest
            }
            try save(updated, changedItemIDs: [])
        }
        return duressSlotIndex!
    }

    /// Writes this (new) vault's slot in place through the journal, whatever the slot held before: the one
    /// write of setting a duress password. The header on disk must be the one this vault was made with.
    func writeFreshSlot() throws {
        try store.withWriteLock {
            try store.settleLocked()
            let target = store.resolvedVaultPath()
            let fd = CLinux_openFile(target, O_RDONLY | O_CLOEXEC, 0)
            guard fd >= 0 else { throw StoreError.io(operation: "open", path: target, errno: errno) }
            defer { close(fd) }
            var st = stat()
            guard fstat(fd, &st) == 0 else { throw StoreError.io(operation: "stat", path: target, errno: errno) }
            guard Int(st.st_size) >= VaultHeader.length else { throw StoreError.conflict }
            let onDisk = try VaultHeader.decode(try POSIX.readExactly(fd: fd, offset: 0, count: VaultHeader.length, path: target), path: target)
            guard onDisk.salt == header.salt, onDisk.kdf == header.kdf, onDisk.formatVersion == VaultHeader.currentVersion, Int(st.st_size) == onDisk.fileSize
            else { throw StoreError.conflict }
            var sized = onDisk
            let (slot, groups) = try sealedSlot(for: vault, header: &sized, generation: generation)
            try writeInPlace(slot, header: onDisk, target: target)
            replaceGroupChunks(groups)
        }
    }
}

extension VaultStore {
    /// The vault in slot `index` if `passwordKey` opens it (one key-box trial, then its body), else nil.
    func openSlot(_ index: Int, passwordKey: SecretBytes) throws -> OpenVault? {
        let fd = try openVaultFile()
        defer { close(fd) }
        let header = try readHeader(fd: fd)
        return try withWriteLock { () -> OpenVault? in
            try settleLocked()
            let prefix = try POSIX.readExactly(fd: fd, offset: slotOffset(index, header), count: SlotCodec.prefixLength, path: vaultPath)
            let nonce = Array(prefix[0..<SlotCodec.nonceLength])
            let wrapKey = try SlotCodec.wrapKey(passwordKey: passwordKey, slotNonce: nonce)
            for layout in SlotCodec.layouts(for: header) {
                guard let box = SlotCodec.openKeyBox(slotPrefix: prefix, header: header, index: index, wrapKey: wrapKey, layout: layout) else { continue }
                let length = min(box.bodyLength, header.slotSize - layout.bodyOffset)
                let body = try POSIX.readExactly(fd: fd, offset: slotOffset(index, header) + layout.bodyOffset, count: length, path: vaultPath)
                return try openedVault(FoundSlot(index: index, nonce: nonce, wrapKey: wrapKey, box: box, layout: layout), body: body, header: header)
            }
            return nil
        }
    }
}

extension OpenVault {
    /// Turns erasing after ten wrong passwords on or off for this machine (G18, G19): from any vault, after
    /// its current password is checked as for a password change (G94).
    public func setEraseAfterFailures(_ on: Bool, current: SecretBytes) throws {
        try checkCurrentPassword(current)
        try store.attempts.setErase(on)
    }

    /// Delete All Data (G15), from any vault: after the current password is checked, every vault of the file
    /// is erased as ten wrong passwords would (the same journaled steps).
    public func deleteAllData(current: SecretBytes) throws {
        try checkCurrentPassword(current)
        try store.eraseEverything()
    }
}
