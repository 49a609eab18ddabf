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

    public init(directory: String, fileSystem: FileSystem = POSIXFileSystem(), clock: UnlockClock = SystemClock()) {
        self.directory = directory
        vaultPath = directory + "/vault.pbx"
        lockPath = directory + "/vault.lock"
        self.fileSystem = fileSystem
        self.clock = clock
        attempts = AttemptCounter(directory: directory)
        timing = UnlockTiming(directory: directory)
    }

    /// Whether a vault file exists in the directory.
    public var exists: Bool { FileManager.default.fileExists(atPath: vaultPath) }

    // MARK: Creating

    /// Creates a new vault file with one empty vault in a random slot; the other fifteen are random bytes.
    public func create(password: String, parameters: Argon2Parameters) throws -> OpenVault {
        try PasswordRules.checkLocalVaultPassword(password)
        try POSIX.ensurePrivateDirectory(directory)
        let lock = try FileLock(path: lockPath)
        defer { withExtendedLifetime(lock) {} }
        guard !exists else { throw StoreError.vaultExists(path: vaultPath) }
        try settleLocked()
        let header = VaultHeader(slotSize: VaultHeader.minimumSlotSize, kdf: parameters, salt: SecureRandom.bytes(count: 32))
        let start = clock.monotonic()
        let passwordKey = try derivePasswordKey(Self.passwordBytes(password), header: header)
        let derivationSeconds = clock.monotonic() - start
        let index = Int(SecureRandom.uniform(UInt32(VaultHeader.slotCount)))
        let slotNonce = SecureRandom.bytes(count: SlotCodec.nonceLength)
        let wrapKey = try SlotCodec.wrapKey(passwordKey: passwordKey, slotNonce: slotNonce)
        let generation = UInt64(SecureRandom.uniform(UInt32.max - 1)) + 1
        let opened = OpenVault(
            store: self, header: header, slotIndex: index, slotNonce: slotNonce, wrapKey: wrapKey,
            dataKey: .generate(count: 32), generation: generation, layout: .format2,
            vault: Vault(slotOrder: Self.randomPermutation(VaultHeader.slotCount), created: clock.now()))
        let (ownSlot, groups) = try opened.sealedSlot(for: opened.vault, header: header, generation: generation)
        // Written one slot at a time: the file is never held in memory whole.
        try commitNewFile(target: resolvedVaultPath(), size: header.fileSize, check: (slotOffset(index, header), ownSlot)) { append in
            try header.encoded().withUnsafeBytes { try append($0) }
            for slot in 0..<VaultHeader.slotCount {
                if slot == index {
                    try ownSlot.withUnsafeBytes { try append($0) }
                } else {
                    try SecureRandom.bytes(count: header.slotSize).withUnsafeBytes { try append($0) }
                }
            }
        }
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
    /// sixteen key-box trials and one body open, and is answered at the same deadline.
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
        let fd = try openVaultFile()
        defer { close(fd) }
        let header = try readHeader(fd: fd)
        try cleanUpIfIdle()
        try attempts.beginAttempt(now: clock.now())
        var work = UnlockWork()
        let start = clock.monotonic()
        defer { lastWork = work }

        let passwordKey = try derive(header, &work)
        // Slots are read under the write lock: a save writes its slot in place, and a reader must never see
        // half of it. A journal a crash left is settled first.
        let (found, body, bodyIndex) = try withWriteLock {
            try settleLocked()
            var found: (index: Int, nonce: [UInt8], wrapKey: SecretBytes, box: SlotCodec.KeyBox, layout: SlotCodec.Layout)?
            for index in 0..<VaultHeader.slotCount {
                // Every slot is tried, with no early exit, so the work does not depend on which slot opens.
                let prefix = try POSIX.readExactly(fd: fd, offset: slotOffset(index, header), count: SlotCodec.prefixLength, path: vaultPath)
                let nonce = Array(prefix[0..<SlotCodec.nonceLength])
                let wrapKey = try SlotCodec.wrapKey(passwordKey: passwordKey, slotNonce: nonce)
                work.slotTrials += 1
                // In a format-2 file both layouts are tried in every slot (a converted file may hold format-1
                // slots of other vaults, and no clear byte says which).
                for layout in SlotCodec.layouts(for: header) {
                    if let box = SlotCodec.openKeyBox(slotPrefix: prefix, header: header, index: index, wrapKey: wrapKey, layout: layout), found == nil {
                        found = (index, nonce, wrapKey, box, layout)
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
            let key = found?.box.dataKey ?? SecretBytes.generate(count: 32)
            let nonce = found?.nonce ?? SecureRandom.bytes(count: SlotCodec.nonceLength)
            var inflated = try body.withUnsafeBytes {
                try SlotCodec.openBody(
                    body: $0, header: header, index: bodyIndex, slotNonce: nonce, dataKey: key,
                    layout: found?.layout ?? SlotCodec.layouts(for: header)[0], path: vaultPath, keepingChunks: true)
            }
            defer { ConstantTime.wipe(&inflated.payload) }
            guard let found else { throw StoreError.wrongPassword }
            var itemEnds = [Int]()
            let vault = try PayloadCodec.decode(inflated.payload, path: vaultPath, itemEnds: &itemEnds)
            let groups = PayloadCodec.groupChunks(of: inflated, vault: vault, itemEnds: itemEnds)
            inflated.chunks = []
            outcome = .success(
                OpenVault(
                    store: self, header: header, slotIndex: found.index, slotNonce: found.nonce, wrapKey: found.wrapKey,
                    dataKey: found.box.dataKey, generation: found.box.generation, layout: found.layout, vault: vault,
                    groupChunks: groups))
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
        work.deadlineSeconds = deadline
        clock.sleep(until: start + deadline)
        return (try outcome.get(), passwordKey)
    }

    /// Changes the password of the vault `current` opens: one counted unlock attempt held to the deadline,
    /// then only that vault's slot is rewritten with a new nonce and data key.
    public func changePassword(current: String, new: String) throws {
        try changePassword(current: Self.passwordBytes(current), new: Self.passwordBytes(new))
    }

    /// The same with NFC UTF-8 bytes.
    public func changePassword(current: SecretBytes, new: SecretBytes) throws {
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
        try password.withUnsafeBytes { try Argon2.derive(password: $0, salt: header.salt, parameters: header.kdf) }
    }

    // MARK: Files

    func withWriteLock<R>(_ body: () throws -> R) throws -> R {
        let lock = try FileLock(path: lockPath)
        defer { withExtendedLifetime(lock) {} }
        return try body()
    }

    func slotOffset(_ index: Int, _ header: VaultHeader) -> Int { VaultHeader.length + index * header.slotSize }

    func openVaultFile() throws -> Int32 {
        let fd = open(vaultPath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { throw StoreError.noVault(path: vaultPath) }
            throw StoreError.io(operation: "open", path: vaultPath, errno: errno)
        }
        return fd
    }

    /// Reads and checks the header through `fd`, and the file's length (fstat on the same descriptor).
    func readHeader(fd: Int32) throws -> VaultHeader {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw StoreError.io(operation: "stat", path: vaultPath, errno: errno) }
        guard st.st_size >= 8 else {
            if st.st_size == 0 { throw StoreError.damaged(path: vaultPath, reason: "the file is empty") }
            throw StoreError.notAVault(path: vaultPath)
        }
        let bytes = try POSIX.readExactly(fd: fd, offset: 0, count: min(VaultHeader.length, Int(st.st_size)), path: vaultPath)
        let header = try VaultHeader.decode(bytes, path: vaultPath)
        guard Int(st.st_size) == header.fileSize else {
            let reason = Int(st.st_size) < header.fileSize ? "it is truncated" : "it has bytes past its last slot"
            throw StoreError.damaged(path: vaultPath, reason: "\(reason): \(st.st_size) bytes instead of \(header.fileSize)")
        }
        return header
    }

    /// The file saves write: the vault path itself or, when it is a symbolic link, the file it points to,
    /// so the link stays a link and its target keeps getting the updates (temporary file, journal and
    /// rename all happen beside the target).
    func resolvedVaultPath() -> String {
        var st = stat()
        guard lstat(vaultPath, &st) == 0, st.st_mode & S_IFMT == S_IFLNK, let resolved = realpath(vaultPath, nil) else {
            return vaultPath
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func journalPath(for target: String) -> String { target + ".journal" }

    static func parentDirectory(of path: String) -> String { (path as NSString).deletingLastPathComponent }

    /// Removes temporary copies a crashed save left behind (they may hold deleted items).
    func removeStrayTemporaryFiles() {
        var places = [(directory, "vault.pbx.tmp-")]
        let target = resolvedVaultPath()
        if target != vaultPath { places.append((Self.parentDirectory(of: target), (target as NSString).lastPathComponent + ".tmp-")) }
        for (folder, prefix) in places {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(prefix) {
                try? fileSystem.remove(folder + "/" + name)
            }
        }
    }

    /// Finishes or rolls back a save a crash interrupted; the caller holds the write lock. A complete journal
    /// whose header hash, index, offset and length fit the vault file is written over its slot (again, if
    /// it was already: the bytes are the same) and synced; anything else is a journal torn before the slot
    /// was touched, and only removed.
    func settleJournal(target: String) throws {
        let journal = Self.journalPath(for: target)
        guard let bytes = try POSIX.readFile(journal) else { return }
        if case .complete(let entry) = try SaveJournal.read(bytes), try journalFits(entry, target: target) {
            try entry.slot.withUnsafeBytes { try fileSystem.overwrite(at: target, offset: entry.offset, contents: $0) }
        }
        try fileSystem.remove(journal)
        try fileSystem.syncDirectory(Self.parentDirectory(of: target))
    }

    private func journalFits(_ entry: SaveJournal.Entry, target: String) throws -> Bool {
        let fd = CLinux_openFile(target, O_RDONLY | O_CLOEXEC, 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, Int(st.st_size) >= VaultHeader.length else { return false }
        let headerBytes = try POSIX.readExactly(fd: fd, offset: 0, count: VaultHeader.length, path: target)
        guard let header = try? VaultHeader.decode(headerBytes, path: target) else { return false }
        return Hash.sha256(headerBytes) == entry.vaultHeaderHash && Int(st.st_size) == header.fileSize
            && entry.slot.count == header.slotSize && entry.offset == slotOffset(entry.index, header)
    }

    /// Everything a crash may have left, settled; the caller holds the write lock.
    func settleLocked() throws {
        removeStrayTemporaryFiles()
        try settleJournal(target: resolvedVaultPath())
    }

    /// Settles what a crash left when no other process is saving (never under a running save).
    func cleanUpIfIdle() throws {
        if let lock = try? FileLock(path: lockPath, timeout: 0) {
            try settleLocked()
            withExtendedLifetime(lock) {}
        }
    }

    /// Writes a whole new vault file beside `target` one slot at a time (`produce` appends the header, then
    /// the slots in order), syncs it, reads back the slot `check` names and compares it, renames it over
    /// `target` and syncs the directory. A failure before the rename leaves the old file and removes the
    /// temporary one.
    func commitNewFile(
        target: String, size: Int, check: (offset: Int, bytes: [UInt8]),
        produce: (_ append: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws {
        let temporary = target + ".tmp-" + Hexadecimal.random(8)
        do {
            try fileSystem.writeNewFile(at: temporary, producing: produce)
            try verify(path: temporary, size: size, offset: check.offset, expected: check.bytes)
            try fileSystem.rename(temporary, to: target)
        } catch {
            try? fileSystem.remove(temporary)
            throw error
        }
        // The rename is the commit point: a failed directory sync after it does not undo the save.
        try? fileSystem.syncDirectory(Self.parentDirectory(of: target))
    }

    /// Reads back only the bytes just written (and the file's length) and compares them.
    func verify(path: String, size: Int, offset: Int, expected: [UInt8]) throws {
        let fd = CLinux_openFile(path, O_RDONLY | O_CLOEXEC, 0)
        guard fd >= 0 else { throw StoreError.io(operation: "open", path: path, errno: errno) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw StoreError.io(operation: "stat", path: path, errno: errno) }
        guard Int(st.st_size) == size else { throw StoreError.io(operation: "verify", path: path, errno: EIO) }
        // Read back a mebibyte at a time into one buffer and compare with memcmp: no second copy of the slot
        // (a fresh 16 MiB array is zero-filled and page-faulted in, a tenth of an add at 100,000 items).
        let step = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: step, alignment: 16)
        defer { buffer.deallocate() }
        try expected.withUnsafeBytes { e in
            var done = 0
            while done < e.count {
                let want = min(step, e.count - done)
                var got = 0
                while got < want {
                    let n = pread(fd, buffer + got, want - got, off_t(offset + done + got))
                    if n < 0 {
                        if errno == EINTR { continue }
                        throw StoreError.io(operation: "read", path: path, errno: errno)
                    }
                    guard n > 0 else { throw StoreError.io(operation: "verify", path: path, errno: EIO) }
                    got += n
                }
                guard memcmp(buffer, e.baseAddress! + done, want) == 0 else { throw StoreError.io(operation: "verify", path: path, errno: EIO) }
                done += want
            }
        }
    }
}

/// Decodes the vault payload (MessagePack inside the compressed body), and tells which of a chunked body's
/// chunks an open vault can keep.
enum PayloadCodec {
    static func decode(_ bytes: [UInt8], path: String) throws -> Vault {
        var ends = [Int]()
        return try decode(bytes, path: path, itemEnds: &ends)
    }

    static func decode(_ bytes: [UInt8], path: String, itemEnds: inout [Int]) throws -> Vault {
        do {
            return try bytes.withUnsafeBytes { try Vault(unpacking: $0, itemEnds: &itemEnds) }
        } catch {
            throw StoreError.damaged(path: path, reason: "the vault's contents cannot be read")
        }
    }

    /// The compressed chunks of `vault`'s item groups, when the body was cut as this version cuts it: a
    /// prelude chunk that is exactly `vault.packedPrelude()`, one chunk per `ChunkedPayload.groupSize` items
    /// ending where the group's last item ends, then one trailer chunk. Otherwise nil (an older or
    /// differently cut body: the first save compresses every group).
    static func groupChunks(of inflated: ChunkedPayload.Inflated, vault: Vault, itemEnds: [Int]) -> [[UInt8]]? {
        let size = ChunkedPayload.groupSize
        let groupCount = (vault.items.count + size - 1) / size
        let chunks = inflated.chunks
        guard chunks.count == groupCount + 2, itemEnds.count == vault.items.count else { return nil }
        let prelude = vault.packedPrelude()
        guard chunks[0].end == prelude.count, inflated.payload.prefix(prelude.count).elementsEqual(prelude) else { return nil }
        for g in 0..<groupCount where chunks[1 + g].end != itemEnds[min((g + 1) * size, vault.items.count) - 1] {
            return nil
        }
        return chunks[1..<(1 + groupCount)].map(\.compressed)
    }
}
