import Foundation
import PassboxCore
import PassboxCrypto
internal import CLinux

/// The vault file's descriptors, header, write lock, journal and verified writes.
extension VaultStore {
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
        // A one-slot file is an account's vault; where a local vault is expected it was copied or edited there.
        if header.isSingleSlot, !isAccountVault {
            throw StoreError.damaged(path: vaultPath, reason: "it is an account's vault file (one slot), not a local vault")
        }
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

    /// A file of `header` whose only vault is `slot` at `index`, every other slot random bytes (a new vault's
    /// file, or an account's one-slot file at each save), committed over `target` by `commitNewFile`.
    func commitFreshFile(target: String, header: VaultHeader, index: Int, slot: [UInt8]) throws {
        try commitNewFile(target: target, size: header.fileSize, check: (slotOffset(index, header), slot)) { append in
            try header.encoded().withUnsafeBytes { try append($0) }
            for other in 0..<header.slotCount {
                if other == index {
                    try slot.withUnsafeBytes { try append($0) }
                } else {
                    try SecureRandom.bytes(count: header.slotSize).withUnsafeBytes { try append($0) }
                }
            }
        }
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
