import Foundation
import PassboxCore
import PassboxCrypto

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
    /// The decrypted vault as last loaded or saved.
    public private(set) var vault: Vault

    init(
        store: VaultStore, header: VaultHeader, slotIndex: Int, slotNonce: [UInt8], wrapKey: SecretBytes,
        dataKey: SecretBytes, generation: UInt64, vault: Vault
    ) {
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

    /// Saves `newVault` into this vault's slot: the other slots are copied byte for byte (with random fill
    /// appended when the slot size doubles). Memory is updated only after the file is committed.
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

    private func rewriteOwnSlot(vault newVault: Vault, nonce: [UInt8]? = nil, wrapKey newWrap: SecretBytes? = nil, dataKey newData: SecretBytes? = nil) throws {
        let lock = try FileLock(path: store.lockPath)
        defer { withExtendedLifetime(lock) {} }
        store.removeStrayTemporaryFiles()
        guard let current = try POSIX.readFile(store.vaultPath) else { throw StoreError.noVault(path: store.vaultPath) }
        let onDisk = try VaultHeader.decode(current, path: store.vaultPath)
        guard onDisk.salt == header.salt, onDisk.kdf == header.kdf, current.count == onDisk.fileSize else {
            throw StoreError.conflict
        }
        // Refuse to write over a save made by another process since this one loaded (FMT-4).
        let prefixStart = VaultHeader.length + slotIndex * onDisk.slotSize
        let prefix = Array(current[prefixStart..<(prefixStart + SlotCodec.bodyOffset)])
        guard let box = SlotCodec.openKeyBox(slotPrefix: prefix, header: onDisk, index: slotIndex, wrapKey: wrapKey),
            box.generation == generation
        else { throw StoreError.conflict }

        var json = try PayloadCodec.encode(newVault)
        defer { ConstantTime.wipe(&json) }
        var compressed = try json.withUnsafeBytes { try Deflate.compress($0) }
        defer { ConstantTime.wipe(&compressed) }
        var newHeader = onDisk
        while SlotCodec.capacity(slotSize: newHeader.slotSize) < compressed.count {
            guard newHeader.slotSize < VaultHeader.maximumSlotSize else { throw StoreError.tooLarge }
            newHeader.slotSize *= 2
        }
        let nextGeneration = generation &+ 1
        let ownSlot = try SlotCodec.sealSlot(
            header: newHeader, index: slotIndex, slotNonce: nonce ?? slotNonce, wrapKey: newWrap ?? wrapKey,
            dataKey: newData ?? dataKey, generation: nextGeneration, compressed: compressed, now: store.clock.now())
        var file = newHeader.encoded()
        file.reserveCapacity(newHeader.fileSize)
        for index in 0..<VaultHeader.slotCount {
            if index == slotIndex {
                file += ownSlot
            } else {
                let start = VaultHeader.length + index * onDisk.slotSize
                file += current[start..<(start + onDisk.slotSize)]
                if newHeader.slotSize > onDisk.slotSize {
                    file += SecureRandom.bytes(count: newHeader.slotSize - onDisk.slotSize)
                }
            }
        }
        try store.commit(file)
        header = newHeader
        generation = nextGeneration
    }
}
