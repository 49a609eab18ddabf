import Foundation
import PassboxCore
import PassboxCrypto
internal import CLinux

/// The local vault in a data directory: one slot file (`vault.pbx`) with sixteen equal slots, plus the
/// machine-local attempt counter and unlock timing. See docs/FORMATS.md and security.md §7.
public final class VaultStore: @unchecked Sendable {
    // @unchecked: configuration is immutable; `lastWork` is written only by the thread running an unlock.
    public let directory: String
    public let vaultPath: String
    let lockPath: String
    let fileSystem: FileSystem
    let clock: UnlockClock
    public let attempts: AttemptCounter
    let timing: UnlockTiming
    /// Work done by the most recent unlock (for tests).
    public private(set) var lastWork = UnlockWork()
    /// How a password becomes a slot key (Argon2id for a local vault; the account's keys for an account's).
    public let keySource: SlotKeySource
    /// Called after each step of an erase (tests stop it there to check that the next open finishes it).
    public var eraseStepHook: ((EraseStep) throws -> Void)?

    public init(directory: String, fileSystem: FileSystem = POSIXFileSystem(), clock: UnlockClock = SystemClock(), keySource: SlotKeySource = .password) {
        self.directory = directory
        self.keySource = keySource
        vaultPath = directory + "/vault.pbx"
        lockPath = directory + "/vault.lock"
        self.fileSystem = fileSystem
        self.clock = clock
        attempts = AttemptCounter(directory: directory)
        timing = UnlockTiming(directory: directory)
    }

    /// Whether a vault file exists in the directory.
    public var exists: Bool { FileManager.default.fileExists(atPath: vaultPath) && !FileManager.default.fileExists(atPath: eraseJournalPath) }

    // MARK: Creating

    /// Creates a new vault file with one empty vault in a random slot; the other fifteen are random bytes.
    public func create(password: String, parameters: Argon2Parameters) throws -> OpenVault {
        // An account's vault is made from its keyset (sign-in, or `createAccountVault`), never from a password
        // that might not be the master password.
        if isAccountVault { throw StoreError.accountVaultPassword }
        try PasswordRules.checkLocalVaultPassword(password)
        return try create(parameters: parameters) { header in try derivePasswordKey(Self.passwordBytes(password), header: header) }
    }

    /// Creates an account's vault with its slot key (from the keyset just opened at sign-up or sign-in: no
    /// second key derivation).
    public func create(slotKey: SecretBytes, parameters: Argon2Parameters) throws -> OpenVault {
        precondition(isAccountVault, "a local vault is made from its password")
        return try create(parameters: parameters) { _ in slotKey }
    }

    func create(parameters: Argon2Parameters, key: (VaultHeader) throws -> SecretBytes) throws -> OpenVault {
        try POSIX.ensurePrivateDirectory(directory)
        // Before the lock: the erase takes the write lock itself.
        try finishInterruptedErase()
        let lock = try FileLock(path: lockPath)
        defer { withExtendedLifetime(lock) {} }
        guard !exists else { throw StoreError.vaultExists(path: vaultPath) }
        try settleLocked()
        // An account's vault gets a one-slot file (sized below, once its slot is sealed); a local vault sixteen
        // slots, its own a random one.
        var header = VaultHeader(
            slotSize: VaultHeader.minimumSlotSize, kdf: parameters, salt: SecureRandom.bytes(count: 32),
            formatVersion: isAccountVault ? VaultHeader.singleSlotVersion : VaultHeader.currentVersion,
            slotCount: isAccountVault ? VaultHeader.singleSlot : VaultHeader.slotCount)
        let start = clock.monotonic()
        let passwordKey = try key(header)
        let derivationSeconds = clock.monotonic() - start
        let index = Int(SecureRandom.uniform(UInt32(header.slotCount)))
        let slotNonce = SecureRandom.bytes(count: SlotCodec.nonceLength)
        let wrapKey = try SlotCodec.wrapKey(passwordKey: passwordKey, slotNonce: slotNonce)
        let generation = UInt64(SecureRandom.uniform(UInt32.max - 1)) + 1
        let opened = OpenVault(
            store: self, header: header, slotIndex: index, slotNonce: slotNonce, wrapKey: wrapKey,
            dataKey: .generate(count: 32), generation: generation, layout: .format2,
            vault: isAccountVault
                ? Vault(slotOrder: Self.randomPermutation(VaultHeader.slotCount), created: clock.now())
                : .newLocal(slotOrder: Self.randomPermutation(VaultHeader.slotCount), created: clock.now()))
        let (ownSlot, groups) = try opened.sealedSlot(for: opened.vault, header: &header, generation: generation)
        opened.header = header
        // Written one slot at a time: the file is never held in memory whole.
        try commitFreshFile(target: resolvedVaultPath(), header: header, index: index, slot: ownSlot)
        opened.replaceGroupChunks(groups)
        _ = timing.deadline(forWork: derivationSeconds)
        try attempts.succeeded()
        return opened
    }

    static func randomPermutation(_ n: Int) -> [Int] {
        var order = Array(0..<n)
        for i in stride(from: n - 1, to: 0, by: -1) {
            order.swapAt(i, Int(SecureRandom.uniform(UInt32(i + 1))))
        }
        return order
    }

    // MARK: Unlocking

    /// Opens the vault whose slot `password` unlocks. Every password, right or wrong, does one derivation,
    /// a key-box trial in every slot (sixteen, or an account's one) and one body open, and is answered at the
    /// same deadline.
    public func unlock(password: String) throws -> OpenVault {
        try unlockKeepingKey(password: password).vault
    }

    public func unlock(password: SecretBytes) throws -> OpenVault {
        try unlockKeepingKey(password: password).vault
    }

    /// Like `unlock(password:)`, and also hands back the password's Argon2id output, which the agent may
    /// keep sealed for quick unlock (never the password itself).
    public func unlockKeepingKey(password: String) throws -> (vault: OpenVault, passwordKey: SecretBytes) {
        try unlockKeepingKey(password: Self.passwordBytes(password))
    }

    /// The same with the password's NFC UTF-8 bytes (as the agent receives them), which never become a String.
    public func unlockKeepingKey(password: SecretBytes) throws -> (vault: OpenVault, passwordKey: SecretBytes) {
        try unlock { header, work in
            let start = clock.monotonic()
            let key = try derivePasswordKey(password, header: header)
            work.derivations += 1
            work.derivationSeconds = clock.monotonic() - start
            return key
        }
    }

    /// Opens the vault with a password key kept from an earlier unlock, skipping Argon2id. Fails as a wrong
    /// password would if the slot was re-keyed since (the password was changed).
    public func unlock(passwordKey: SecretBytes) throws -> OpenVault {
        try unlock { _, _ in passwordKey }.vault
    }

    func unlock(deriving derive: (VaultHeader, inout UnlockWork) throws -> SecretBytes) throws -> (vault: OpenVault, passwordKey: SecretBytes) {
        // One descriptor for the whole unlock: the size check, the header and every slot come from the same
        // file, so a save that renames a grown file over this one meanwhile cannot mix two files (which would
        // turn the right password into a counted failure); this unlock then opens the file as it was.
        try POSIX.ensurePrivateDirectory(directory, creating: false)
        try finishInterruptedErase()
        let fd = try openVaultFile()
        defer { close(fd) }
        let header = try readHeader(fd: fd)
        // A local vault's header asking for more than `init` can choose was edited: refused before the attempt
        // is counted and before anything is derived.
        if case .password = keySource, !KDFLimits.initCanChoose(header.kdf) {
            throw StoreError.damaged(path: vaultPath, reason: "the header asks for key-derivation parameters out of range")
        }
        try cleanUpIfIdle()
        // An erase that was due and did not happen (the process was stopped) comes before anything else,
        // before a wait too.
        if try attempts.eraseIsDue() {
            try eraseEverything()
            throw StoreError.wrongPassword
        }
        try attempts.beginAttempt(now: clock.now())
        if try attempts.eraseWasDue() {
            // An erase that was due and did not happen (the process was stopped) comes before any trial.
            try eraseEverything()
            throw StoreError.wrongPassword
        }
        var work = UnlockWork()
        let start = clock.monotonic()
        defer { lastWork = work }

        let passwordKey = try derive(header, &work)
        // Slots are read under the write lock: a save writes its slot in place, and a reader must never see
        // half of it. A journal a crash left is settled first.
        let (found, body, bodyIndex) = try withWriteLock {
            try settleLocked()
            var found: FoundSlot?
            for index in 0..<header.slotCount {
                // Every slot is tried, with no early exit, so the work does not depend on which slot opens.
                let prefix = try POSIX.readExactly(fd: fd, offset: slotOffset(index, header), count: SlotCodec.prefixLength, path: vaultPath)
                let nonce = Array(prefix[0..<SlotCodec.nonceLength])
                let wrapKey = try SlotCodec.wrapKey(passwordKey: passwordKey, slotNonce: nonce)
                work.slotTrials += 1
                // In a format-2 file both layouts are tried in every slot (a converted file may hold format-1
                // slots of other vaults, and no clear byte says which).
                for layout in SlotCodec.layouts(for: header) {
                    // Two slots a password opens (a duress password set equal to another vault's): the vault
                    // wrapped most recently wins (G14).
                    if let box = SlotCodec.openKeyBox(slotPrefix: prefix, header: header, index: index, wrapKey: wrapKey, layout: layout),
                        found == nil || box.wrappedAt > found!.box.wrappedAt
                    {
                        found = FoundSlot(index: index, nonce: nonce, wrapKey: wrapKey, box: box, layout: layout)
                    }
                }
            }
            // Exactly one body is opened: the found slot's, or slot 0's with a throwaway key.
            let bodyIndex = found?.index ?? 0
            let bodyOffset = (found?.layout ?? SlotCodec.layouts(for: header)[0]).bodyOffset
            let bodyLength = min(found?.box.bodyLength ?? Int.max, header.slotSize - bodyOffset)
            let body = try POSIX.readExactly(fd: fd, offset: slotOffset(bodyIndex, header) + bodyOffset, count: bodyLength, path: vaultPath)
            return (found, body, bodyIndex)
        }
        work.bodyOpens += 1
        var outcome: Result<OpenVault, Error>
        do {
            guard let found else {
                // The same body open with a throwaway key (it cannot authenticate).
                _ = try? body.withUnsafeBytes {
                    try SlotCodec.openBody(
                        body: $0, header: header, index: bodyIndex, slotNonce: SecureRandom.bytes(count: SlotCodec.nonceLength),
                        dataKey: SecretBytes.generate(count: 32), layout: SlotCodec.layouts(for: header)[0], path: vaultPath, keepingChunks: true)
                }
                throw StoreError.wrongPassword
            }
            outcome = .success(try openedVault(found, body: body, header: header))
        } catch {
            outcome = .failure(found == nil ? StoreError.wrongPassword : error)
        }
        if found != nil {
            // The password opened a key box, so it is right: the count resets even when the body then turns out
            // damaged (a damaged file must not lock its owner out). If the reset cannot be written, stay locked.
            try attempts.succeeded()
        }
        work.workSeconds = clock.monotonic() - start
        let deadline = timing.deadline(forWork: work.workSeconds)
        if found == nil, try attempts.eraseIsDue() {
            // The tenth wrong password in a row with erasing on: every vault goes before the answer (G18). Its
            // time is not unlock work (the deadline, kept after the erase, must not tell of one).
            try eraseEverything()
        }
        work.deadlineSeconds = deadline
        clock.sleep(until: start + deadline)
        return (try outcome.get(), passwordKey)
    }

    /// A slot a password key opened: where, its nonce and wrap key, its key box and layout.
    struct FoundSlot {
        let index: Int
        let nonce: [UInt8]
        let wrapKey: SecretBytes
        let box: SlotCodec.KeyBox
        let layout: SlotCodec.Layout
    }

    /// The vault in a slot whose key box opened, from its body's bytes.
    func openedVault(_ found: FoundSlot, body: [UInt8], header: VaultHeader) throws -> OpenVault {
        var inflated = try body.withUnsafeBytes {
            try SlotCodec.openBody(
                body: $0, header: header, index: found.index, slotNonce: found.nonce, dataKey: found.box.dataKey, layout: found.layout, path: vaultPath,
                keepingChunks: true)
        }
        defer { ConstantTime.wipe(&inflated.payload) }
        var itemEnds = [Int]()
        let vault = try PayloadCodec.decode(inflated.payload, path: vaultPath, itemEnds: &itemEnds)
        let groups = PayloadCodec.groupChunks(of: inflated, vault: vault, itemEnds: itemEnds)
        inflated.chunks = []
        return OpenVault(
            store: self, header: header, slotIndex: found.index, slotNonce: found.nonce, wrapKey: found.wrapKey, dataKey: found.box.dataKey,
            generation: found.box.generation, layout: found.layout, vault: vault, groupChunks: groups)
    }

    /// Changes the password of the vault `current` opens: one counted unlock attempt held to the deadline,
    /// then only that vault's slot is rewritten with a new nonce and data key.
    public func changePassword(current: String, new: String) throws {
        try changePassword(current: Self.passwordBytes(current), new: Self.passwordBytes(new))
    }

    /// The same with NFC UTF-8 bytes.
    public func changePassword(current: SecretBytes, new: SecretBytes) throws {
        // An account's vault follows the master password, which `passwd --account` changes on the server.
        if isAccountVault { throw StoreError.accountVaultPassword }
        try attempts.refuseTenthOutsideUnlock()
        let opened = try unlock(password: current)
        try opened.rekey(current: current, new: new)
    }

    /// A typed password as the bytes the key is derived from: NFC first, so composed and decomposed accents
    /// give the same key (G65), then UTF-8, in locked memory.
    public static func passwordBytes(_ password: String) -> SecretBytes {
        var bytes = Array(password.precomposedStringWithCanonicalMapping.utf8)
        defer { ConstantTime.wipe(&bytes) }
        return SecretBytes(copying: bytes)
    }

    func derivePasswordKey(_ password: SecretBytes, header: VaultHeader) throws -> SecretBytes {
        switch keySource {
        case .password:
            // Within what `init` can choose, or the header was edited (KDFLimits); and the machine must have
            // their memory free (AL-6), or the derivation would push it into swap or the OOM killer.
            guard KDFLimits.initCanChoose(header.kdf) else {
                throw StoreError.damaged(path: vaultPath, reason: "the header asks for key-derivation parameters out of range")
            }
            try ItemSeal.checkMemory(for: header.kdf)
            return try password.withUnsafeBytes { try Argon2.derive(password: $0, salt: header.salt, parameters: header.kdf) }
        case .account(let account): return try account.slotKey(password: password)
        }
    }
}
