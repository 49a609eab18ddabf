import Foundation
import PassboxCrypto
internal import CLinux

/// The steps of an erase (after ten wrong passwords with erasing on, or Delete All Data), in order. Each is
/// idempotent: an erase stopped after any of them is finished from the start at the next open (G18).
public enum EraseStep: Int, CaseIterable, Sendable {
    case journalWritten = 1
    case fileOverwritten
    case fileRemoved
    case leftoversRemoved
    case settingsRemoved
    case attemptsRemoved
    case journalRemoved
}

extension VaultStore {
    /// `erase-journal`: its presence says an erase is under way; nothing opens until it is finished.
    var eraseJournalPath: String { directory + "/erase-journal" }
    static let eraseJournalText = Array("passbox erase 1\n".utf8)

    /// Destroys every vault of the file, real and duress alike, without looking at which is open: the journal
    /// first, then every byte of the file (header and all sixteen slots) written over with random bytes and
    /// synced, the file removed, a save's journal, temporary copies and attachments' blobs removed, the settings and the attempt
    /// count removed, the journal last. What is left is a first-run data directory.
    public func eraseEverything() throws {
        try POSIX.ensurePrivateDirectory(directory, creating: false)
        try withWriteLock {
            if try POSIX.readFile(eraseJournalPath) == nil {
                try POSIX.writeAtomically(Self.eraseJournalText, to: eraseJournalPath, fileSystem: fileSystem)
                try fileSystem.syncDirectory(directory)
            }
            try eraseStepHook?(.journalWritten)
            let target = resolvedVaultPath()
            try overwriteWithRandomBytes(target)
            try eraseStepHook?(.fileOverwritten)
            try fileSystem.remove(target)
            if target != vaultPath { try fileSystem.remove(vaultPath) }
            try fileSystem.syncDirectory(Self.parentDirectory(of: target))
            try eraseStepHook?(.fileRemoved)
            removeStrayTemporaryFiles()
            // The attachments' keys were in the file: what is left of their blobs cannot be opened; remove it.
            BlobStore(vaultDirectory: directory).removeAll()
            try fileSystem.remove(Self.journalPath(for: target))
            try eraseStepHook?(.leftoversRemoved)
            try fileSystem.remove(directory + "/" + Settings.fileName)
            try eraseStepHook?(.settingsRemoved)
            try attempts.remove()
            try eraseStepHook?(.attemptsRemoved)
            try fileSystem.remove(eraseJournalPath)
            try fileSystem.syncDirectory(directory)
            try eraseStepHook?(.journalRemoved)
        }
    }

    /// Finishes an erase a crash stopped (the journal is there), before anything else touches the directory.
    public func finishInterruptedErase() throws {
        guard FileManager.default.fileExists(atPath: eraseJournalPath) else { return }
        try eraseEverything()
    }

    /// Writes random bytes over the whole file, a mebibyte at a time, and syncs it (a missing file is fine:
    /// an earlier run of the erase removed it).
    private func overwriteWithRandomBytes(_ path: String) throws {
        let fd = CLinux_openFile(path, O_WRONLY | O_CLOEXEC, 0)
        guard fd >= 0 else {
            if errno == ENOENT { return }
            throw StoreError.io(operation: "open", path: path, errno: errno)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw StoreError.io(operation: "stat", path: path, errno: errno) }
        var done = 0
        let size = Int(st.st_size)
        while done < size {
            let piece = SecureRandom.bytes(count: min(1 << 20, size - done))
            try piece.withUnsafeBytes { try POSIX.writeAll(fd: fd, $0, offset: done, path: path) }
            done += piece.count
        }
        guard fsync(fd) == 0 else { throw StoreError.io(operation: "sync", path: path, errno: errno) }
    }
}
