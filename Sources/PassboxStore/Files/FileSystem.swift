import Foundation
import PassboxCrypto
internal import CLinux

/// The file operations a save performs, behind a protocol so tests can inject a crash at any step.
public protocol FileSystem: Sendable {
    func writeNewFile(at path: String, contents: UnsafeRawBufferPointer) throws
    func syncFile(at path: String) throws
    func rename(_ from: String, to: String) throws
    func syncDirectory(_ path: String) throws
    func remove(_ path: String) throws
    /// Creates `path` (0600, never over an existing file), lets `produce` append to it piece by piece, then
    /// syncs it: a file larger than memory can be written one slot at a time.
    func writeNewFile(at path: String, producing produce: (_ append: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws
    /// Writes `contents` over the existing file's bytes at `offset` (never changing its length) and syncs it.
    func overwrite(at path: String, offset: Int, contents: UnsafeRawBufferPointer) throws
}

extension FileSystem {
    public func writeNewFile(at path: String, producing produce: (_ append: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        let fd = CLinux_openFile(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError.io(operation: "create", path: path, errno: errno) }
        defer { close(fd) }
        try produce { piece in try POSIX.writeAll(fd: fd, piece, offset: nil, path: path) }
        guard fsync(fd) == 0 else { throw StoreError.io(operation: "sync", path: path, errno: errno) }
    }

    public func overwrite(at path: String, offset: Int, contents: UnsafeRawBufferPointer) throws {
        let fd = CLinux_openFile(path, O_WRONLY | O_CLOEXEC, 0)
        guard fd >= 0 else { throw StoreError.io(operation: "open", path: path, errno: errno) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw StoreError.io(operation: "stat", path: path, errno: errno) }
        // A file someone loosened (0644, 0666) is tightened by any save, as a save that replaces it would. Best
        // effort: a file system without modes (vfat, some FUSE mounts) refuses, and the save goes on.
        if st.st_mode & 0o7777 != 0o600 { _ = fchmod(fd, 0o600) }
        // An in-place write never extends the file: past the end it would be a different file.
        guard offset + contents.count <= Int(st.st_size) else { throw StoreError.io(operation: "write", path: path, errno: EINVAL) }
        try POSIX.writeAll(fd: fd, contents, offset: offset, path: path)
        // fdatasync: the bytes written in place, without the inode's times (the size is unchanged and the blocks
        // were allocated when the file was made, so nothing else is needed to read them back after a crash).
        guard fdatasync(fd) == 0 else { throw StoreError.io(operation: "sync", path: path, errno: errno) }
    }
}

/// The real POSIX file system.
public struct POSIXFileSystem: FileSystem {
    public init() {}

    public func writeNewFile(at path: String, contents: UnsafeRawBufferPointer) throws {
        let fd = CLinux_openFile(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError.io(operation: "create", path: path, errno: errno) }
        defer { close(fd) }
        try POSIX.writeAll(fd: fd, contents, offset: nil, path: path)
        guard fsync(fd) == 0 else { throw StoreError.io(operation: "sync", path: path, errno: errno) }
    }

    public func syncFile(at path: String) throws {
        let fd = CLinux_openFile(path, O_RDONLY | O_CLOEXEC, 0)
        guard fd >= 0 else { throw StoreError.io(operation: "open", path: path, errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw StoreError.io(operation: "sync", path: path, errno: errno) }
    }

    public func rename(_ from: String, to: String) throws {
        guard Glibc.rename(from, to) == 0 else { throw StoreError.io(operation: "rename", path: from, errno: errno) }
    }

    public func syncDirectory(_ path: String) throws {
        let fd = CLinux_openFile(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        guard fd >= 0 else { throw StoreError.io(operation: "open", path: path, errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw StoreError.io(operation: "sync", path: path, errno: errno) }
    }

    public func remove(_ path: String) throws {
        guard unlink(path) == 0 || errno == ENOENT else { throw StoreError.io(operation: "remove", path: path, errno: errno) }
    }
}

/// Small POSIX helpers shared by the store.
enum POSIX {
    /// Reads a whole file, or nil when it does not exist.
    static func readFile(_ path: String) throws -> [UInt8]? {
        let fd = CLinux_openFile(path, O_RDONLY | O_CLOEXEC, 0)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw StoreError.io(operation: "open", path: path, errno: errno)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw StoreError.io(operation: "stat", path: path, errno: errno) }
        return try readExactly(fd: fd, offset: 0, count: Int(st.st_size), path: path)
    }

    /// Writes all of `bytes` at `offset` (pwrite) or at the file position (write) when `offset` is nil.
    static func writeAll(fd: Int32, _ bytes: UnsafeRawBufferPointer, offset: Int?, path: String) throws {
        var done = 0
        while done < bytes.count {
            let n =
                if let offset { pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done)) } else {
                    write(fd, bytes.baseAddress! + done, bytes.count - done)
                }
            if n < 0 {
                if errno == EINTR { continue }
                throw StoreError.io(operation: "write", path: path, errno: errno)
            }
            done += n
        }
    }

    static func readExactly(fd: Int32, offset: Int, count: Int, path: String) throws -> [UInt8] {
        // Read straight into uninitialised storage: zero-filling a slot-sized array first costs a pass over
        // 16 MiB and its page faults.
        let out = try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var done = 0
            while done < count {
                let n = pread(fd, buffer.baseAddress! + done, count - done, off_t(offset + done))
                if n < 0 {
                    if errno == EINTR { continue }
                    initialized = done
                    throw StoreError.io(operation: "read", path: path, errno: errno)
                }
                if n == 0 { break }
                done += n
            }
            initialized = done
        }
        guard out.count == count else { throw StoreError.damaged(path: path, reason: "the file is shorter than its header says") }
        return out
    }

    /// Makes `path` a 0700 directory of this user: creates it (and its parents) when missing, tightens an
    /// existing one of ours to 0700, and refuses one that belongs to another user rather than use or change
    /// it. With `creating` false a missing directory is left missing (the caller reports what is missing).
    static func ensurePrivateDirectory(_ path: String, creating: Bool = true) throws {
        var st = stat()
        if stat(path, &st) != 0 {
            guard errno == ENOENT else { throw StoreError.io(operation: "inspect", path: path, errno: errno) }
            guard creating else { return }
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw StoreError.io(operation: "create directory", path: path, errno: EACCES)
            }
            guard stat(path, &st) == 0 else { throw StoreError.io(operation: "inspect", path: path, errno: errno) }
        }
        guard st.st_mode & S_IFMT == S_IFDIR else { throw StoreError.io(operation: "use directory", path: path, errno: ENOTDIR) }
        guard st.st_uid == geteuid() else { throw StoreError.directoryNotOwned(path: path, owner: st.st_uid) }
        if st.st_mode & 0o7777 != 0o700 {
            guard chmod(path, 0o700) == 0 else { throw StoreError.io(operation: "make private (0700)", path: path, errno: errno) }
        }
    }

    /// Writes a small state file atomically: temporary file, fsync, rename, fsync the directory.
    static func writeAtomically(_ bytes: [UInt8], to path: String, fileSystem: FileSystem = POSIXFileSystem()) throws {
        let temporary = path + ".tmp-" + Hexadecimal.random(8)
        do {
            try bytes.withUnsafeBytes { try fileSystem.writeNewFile(at: temporary, contents: $0) }
            try fileSystem.rename(temporary, to: path)
        } catch {
            try? fileSystem.remove(temporary)
            throw error
        }
        try? fileSystem.syncDirectory((path as NSString).deletingLastPathComponent)
    }
}

enum Hexadecimal {
    static func random(_ bytes: Int) -> String {
        SecureRandom.bytes(count: bytes).map { String(format: "%02x", $0) }.joined()
    }
}

/// File helpers for other modules: small state files written atomically into the private data directory.
/// The `v` every versioned state file starts with.
private struct FormatVersion: Decodable { let v: Int }

public enum StoreFiles {
    public static func writeAtomically(_ bytes: [UInt8], to path: String, directory: String) throws {
        try POSIX.ensurePrivateDirectory(directory)
        try POSIX.writeAtomically(bytes, to: path)
    }

    /// A small versioned JSON state file (`{"v": N, …}`): nil when it is missing; `damaged` when it is not
    /// one (`what` says what it should be) or a field does not read; `newerFormat` above `current`. A file
    /// that exists but cannot be read is an I/O error, never "missing".
    public static func readVersioned<T: Decodable>(_ type: T.Type, at path: String, current: Int, what: String, decoder: JSONDecoder = JSONDecoder()) throws -> T? {
        // Most data directories lack most of these files: one access(2) call answers that first.
        if access(path, F_OK) != 0, errno == ENOENT { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            if FileManager.default.fileExists(atPath: path) { throw StoreError.io(operation: "read", path: path, errno: EACCES) }
            return nil
        }
        guard let version = try? JSONDecoder().decode(FormatVersion.self, from: data) else { throw StoreError.damaged(path: path, reason: what) }
        guard version.v <= current else { throw StoreError.newerFormat(version: version.v) }
        guard let value = try? decoder.decode(T.self, from: data) else { throw StoreError.damaged(path: path, reason: "a field is missing or of the wrong kind") }
        return value
    }
}
