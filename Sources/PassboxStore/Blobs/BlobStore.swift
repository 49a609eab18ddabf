import Foundation
import PassboxCore
import PassboxCrypto
internal import CLinux

/// What goes wrong with an attachment's blob, as facts the surfaces word.
public enum AttachmentError: Error, Equatable, Sendable {
    /// The blob is not on this device (another device's attachment not fetched yet, or removed by hand).
    case missing(name: String)
    /// The blob is there but does not open: cut short, changed, or another file's (one answer).
    case damaged(name: String, reason: String)
    /// The file is larger than an attachment may be.
    case tooLarge(limitMiB: Int)
    /// The file to attach could not be read (`errno`'s reason).
    case unreadable(path: String, reason: String)
}

/// The encrypted files of one vault: `blobs/` beside its vault file, one file per attachment named by its
/// id, each 0600 in a 0700 folder (docs/FORMATS.md "Attachments"). Blobs are written whole to a temporary
/// file, synced and renamed, so a blob either is complete or is not there. A blob is read and written a
/// chunk at a time: memory stays at two chunks whatever the file's size.
public struct BlobStore: Sendable {
    public let directory: String

    public init(vaultDirectory: String) {
        directory = vaultDirectory + "/blobs"
    }

    public func path(_ id: String) -> String { directory + "/" + id }

    public func exists(_ id: String) -> Bool { Attachment.isValidID(id) && access(path(id), F_OK) == 0 }

    /// The ids of every blob here (this slot's, another slot's, and cover blobs look alike).
    public func allIDs() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter(Attachment.isValidID)
    }

    /// Encrypts what `read` yields (it fills the buffer it is given and returns how many bytes, 0 at the
    /// end) into a new blob under a new random key, and returns the reference to keep in the item. Nothing
    /// is left behind when it fails.
    public func add(
        name: String, mediaType: String, now: Date, read: (UnsafeMutableRawBufferPointer) throws -> Int
    ) throws -> Attachment {
        try add(id: Hexadecimal.random(16), name: name, mediaType: mediaType, now: now, read: read)
    }

    /// `add` under a given id (the fixture's, which tests pin).
    func add(
        id: String, name: String, mediaType: String, now: Date, read: (UnsafeMutableRawBufferPointer) throws -> Int
    ) throws -> Attachment {
        try POSIX.ensurePrivateDirectory(directory)
        let key = SecretBytes.generate(count: SecretStream.keyLength)
        let temporary = directory + "/.tmp-" + Hexadecimal.random(8)
        let fd = CLinux_openFile(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError.io(operation: "create", path: temporary, errno: errno) }
        var size = 0
        do {
            defer { close(fd) }
            let sealer = try SecretStream.Sealer(key: key)
            try sealer.header.withUnsafeBytes { try POSIX.writeAll(fd: fd, $0, offset: nil, path: temporary) }
            let chunk = AttachmentFormat.chunkSize
            let ad = AttachmentFormat.associatedData(id: id)
            // Two plaintext chunks: the one read last is sealed only once the next read tells whether it is
            // the final one.
            let plain = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 * chunk, alignment: 16)
            let sealed = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk + AttachmentFormat.chunkOverhead, alignment: 16)
            defer {
                memset(plain.baseAddress!, 0, plain.count)
                plain.deallocate()
                sealed.deallocate()
            }
            var current = 0
            var filled = try fill(UnsafeMutableRawBufferPointer(rebasing: plain[0..<chunk]), read)
            size = filled
            var sealedChunks = 0
            while true {
                let next = UnsafeMutableRawBufferPointer(rebasing: plain[(1 - current) * chunk..<(2 - current) * chunk])
                let nextFilled = filled == chunk ? try fill(next, read) : 0
                size += nextFilled
                guard size <= AttachmentFormat.maximumSize else { throw AttachmentError.tooLarge(limitMiB: AttachmentFormat.maximumSize >> 20) }
                let this = UnsafeMutableRawBufferPointer(rebasing: plain[current * chunk..<(current + 1) * chunk])
                // The rest of a short chunk is padding: zeros.
                if filled < chunk { memset(this.baseAddress! + filled, 0, chunk - filled) }
                let totalChunks = nextFilled == 0 ? AttachmentFormat.paddedSize(size) / chunk : Int.max
                try sealer.push(UnsafeRawBufferPointer(this), into: sealed, associatedData: ad, final: sealedChunks + 1 == totalChunks)
                try POSIX.writeAll(fd: fd, UnsafeRawBufferPointer(sealed), offset: nil, path: temporary)
                sealedChunks += 1
                if nextFilled == 0 {
                    // The file ended: padding chunks of zeros up to its bucket, the last one final.
                    memset(this.baseAddress!, 0, chunk)
                    while sealedChunks < totalChunks {
                        try sealer.push(UnsafeRawBufferPointer(this), into: sealed, associatedData: ad, final: sealedChunks + 1 == totalChunks)
                        try POSIX.writeAll(fd: fd, UnsafeRawBufferPointer(sealed), offset: nil, path: temporary)
                        sealedChunks += 1
                    }
                    break
                }
                current = 1 - current
                filled = nextFilled
            }
            guard fsync(fd) == 0 else { throw StoreError.io(operation: "sync", path: temporary, errno: errno) }
            try POSIXFileSystem().rename(temporary, to: path(id))
        } catch {
            unlink(temporary)
            throw error
        }
        try? POSIXFileSystem().syncDirectory(directory)
        return Attachment(id: id, name: name, mediaType: mediaType, size: size, key: key.revealBytes(), added: now)
    }

    /// Fills `buffer` from `read` until it is full or `read` says the end came (0).
    private func fill(_ buffer: UnsafeMutableRawBufferPointer, _ read: (UnsafeMutableRawBufferPointer) throws -> Int) throws -> Int {
        var done = 0
        while done < buffer.count {
            let n = try read(UnsafeMutableRawBufferPointer(rebasing: buffer[done...]))
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Encrypts the file at `path` (read a chunk at a time).
    public func add(file path: String, name: String, mediaType: String, now: Date) throws -> Attachment {
        let fd = CLinux_openFile(path, O_RDONLY | O_CLOEXEC, 0)
        guard fd >= 0 else { throw AttachmentError.unreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { throw AttachmentError.unreadable(path: path, reason: "it is not a regular file") }
        guard Int(st.st_size) <= AttachmentFormat.maximumSize else { throw AttachmentError.tooLarge(limitMiB: AttachmentFormat.maximumSize >> 20) }
        return try add(name: name, mediaType: mediaType, now: now) { buffer in
            while true {
                let n = Foundation.read(fd, buffer.baseAddress!, buffer.count)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw AttachmentError.unreadable(path: path, reason: String(cString: strerror(errno)))
                }
                return n
            }
        }
    }

    /// Encrypts bytes held in memory (an upload the web UI sent).
    public func add(bytes: [UInt8], name: String, mediaType: String, now: Date) throws -> Attachment {
        var offset = 0
        return try bytes.withUnsafeBytes { source in
            try add(name: name, mediaType: mediaType, now: now) { buffer in
                let n = min(buffer.count, source.count - offset)
                if n > 0 { buffer.baseAddress!.copyMemory(from: source.baseAddress! + offset, byteCount: n) }
                offset += n
                return n
            }
        }
    }

    /// Decrypts the attachment's blob and hands the file to `write` a chunk at a time (never the padding).
    /// Anything cut short, changed, reordered or another blob's is `damaged` before or while it is written:
    /// a caller writing a file removes what it wrote when this throws.
    public func read(_ attachment: Attachment, into write: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard Attachment.isValidID(attachment.id) else { throw AttachmentError.damaged(name: attachment.name, reason: "its reference is not valid") }
        let fd = CLinux_openFile(path(attachment.id), O_RDONLY | O_CLOEXEC, 0)
        guard fd >= 0 else {
            if errno == ENOENT { throw AttachmentError.missing(name: attachment.name) }
            throw StoreError.io(operation: "open", path: path(attachment.id), errno: errno)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw StoreError.io(operation: "stat", path: path(attachment.id), errno: errno) }
        let expected = AttachmentFormat.blobLength(attachment.size)
        guard Int(st.st_size) == expected else {
            let reason = Int(st.st_size) < expected ? "it is cut short" : "it is longer than it should be"
            throw AttachmentError.damaged(name: attachment.name, reason: "\(reason): \(st.st_size) bytes instead of \(expected)")
        }
        try BlobReader(attachment: attachment).read(fd: fd, path: path(attachment.id), into: write)
    }

    /// Removes a blob (its key goes with the item, so what is left on the disk cannot be opened). For an
    /// account's vault (`fromServer`) it is also remembered to be removed from the server at the next sync,
    /// whether or not this device ever fetched it.
    public func remove(_ id: String, fromServer: Bool = false) {
        guard Attachment.isValidID(id) else { return }
        unlink(path(id))
        unlink(path(id) + Self.uploadedSuffix)
        if fromServer {
            try? POSIX.ensurePrivateDirectory(directory)
            try? POSIX.writeAtomically([], to: path(id) + Self.removalSuffix)
        }
    }

    // MARK: Backups

    /// Copies blobs as they are (ciphertext; their keys are in the vault, so in the backup) into `folder`
    /// (made 0700), each written whole under a temporary name and renamed. A blob already there with its
    /// length is left (backups in one folder share them). Returns how many it copied or found there.
    public func copy(_ ids: [String], to folder: String) throws -> Int {
        try POSIX.ensurePrivateDirectory(folder)
        var done = 0
        for id in ids where Attachment.isValidID(id) {
            guard let length = length(id) else { continue }
            var st = stat()
            if stat(folder + "/" + id, &st) == 0, Int(st.st_size) == length {
                done += 1
                continue
            }
            let temporary = folder + "/.tmp-" + Hexadecimal.random(8)
            do {
                let fd = CLinux_openFile(path(id), O_RDONLY | O_CLOEXEC, 0)
                guard fd >= 0 else { throw StoreError.io(operation: "open", path: path(id), errno: errno) }
                defer { close(fd) }
                try POSIXFileSystem().writeNewFile(at: temporary) { append in try Self.pump(fd: fd, path: path(id), into: append) }
                try POSIXFileSystem().rename(temporary, to: folder + "/" + id)
            } catch {
                unlink(temporary)
                throw error
            }
            done += 1
        }
        try? POSIXFileSystem().syncDirectory(folder)
        return done
    }

    /// Brings back an attachment's blob from a backup's `blobs/` folder, checked whole before it is kept.
    /// False when it is not there.
    public func restore(_ attachment: Attachment, from folder: String) throws -> Bool {
        guard Attachment.isValidID(attachment.id), !exists(attachment.id) else { return exists(attachment.id) }
        let source = folder + "/" + attachment.id
        let fd = CLinux_openFile(source, O_RDONLY | O_CLOEXEC, 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        try install(attachment) { append in try Self.pump(fd: fd, path: source, into: append) }
        return true
    }

    /// Copies what is left of `fd` into `append`, a mebibyte at a time.
    static func pump(fd: Int32, path: String, into append: (UnsafeRawBufferPointer) throws -> Void) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = Foundation.read(fd, buffer.baseAddress!, buffer.count)
            if n < 0, errno == EINTR { continue }
            if n < 0 { throw StoreError.io(operation: "read", path: path, errno: errno) }
            if n == 0 { return }
            try append(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
    }

    // MARK: An account's blobs on its server

    /// A blob the server has whole is marked by an empty file beside it (`ID.uploaded`): an account's vault
    /// is not deniable, and its server knows every blob id anyway.
    static let uploadedSuffix = ".uploaded"

    public func isUploaded(_ id: String) -> Bool { Attachment.isValidID(id) && access(path(id) + Self.uploadedSuffix, F_OK) == 0 }

    public func markUploaded(_ id: String) throws {
        guard Attachment.isValidID(id) else { return }
        try POSIX.writeAtomically([], to: path(id) + Self.uploadedSuffix)
    }

    /// A blob to be removed from the server at the next sync is marked by an empty file `ID.removed`.
    static let removalSuffix = ".removed"

    /// The blobs waiting to be removed from the server.
    public func pendingRemovals() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).compactMap { name in
            guard name.hasSuffix(Self.removalSuffix) else { return nil }
            let id = String(name.dropLast(Self.removalSuffix.count))
            return Attachment.isValidID(id) ? id : nil
        }.sorted()
    }

    /// The server removed it, or an item refers to it again: it no longer waits to be removed.
    public func forgetRemoval(_ id: String) {
        guard Attachment.isValidID(id) else { return }
        unlink(path(id) + Self.removalSuffix)
    }

    /// The server said it lacks a blob marked as uploaded (removed since, or lost): it goes up again.
    public func unmarkUploaded(_ id: String) {
        guard Attachment.isValidID(id) else { return }
        unlink(path(id) + Self.uploadedSuffix)
    }

    /// The blob's length on disk (nil when it is not here).
    public func length(_ id: String) -> Int? {
        var st = stat()
        guard Attachment.isValidID(id), stat(path(id), &st) == 0 else { return nil }
        return Int(st.st_size)
    }

    /// Bytes of a blob, for an upload's part.
    public func read(_ id: String, range: Range<Int>) throws -> [UInt8] {
        let fd = CLinux_openFile(path(id), O_RDONLY | O_CLOEXEC, 0)
        guard fd >= 0 else { throw StoreError.io(operation: "open", path: path(id), errno: errno) }
        defer { close(fd) }
        return try POSIX.readExactly(fd: fd, offset: range.lowerBound, count: range.count, path: path(id))
    }

    /// Keeps a blob fetched from elsewhere (an account's server): written to a temporary file by `produce`,
    /// then opened whole with the attachment's key (every chunk and the final tag checked) before it takes its
    /// name. Anything cut short, changed or another blob's is refused as `damaged`, and nothing is kept.
    public func install(_ attachment: Attachment, produce: (_ append: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        guard Attachment.isValidID(attachment.id) else { throw AttachmentError.damaged(name: attachment.name, reason: "its reference is not valid") }
        try POSIX.ensurePrivateDirectory(directory)
        let temporary = directory + "/.tmp-" + Hexadecimal.random(8)
        do {
            try POSIXFileSystem().writeNewFile(at: temporary, producing: produce)
            let fd = CLinux_openFile(temporary, O_RDONLY | O_CLOEXEC, 0)
            guard fd >= 0 else { throw StoreError.io(operation: "open", path: temporary, errno: errno) }
            defer { close(fd) }
            var st = stat()
            guard fstat(fd, &st) == 0, Int(st.st_size) == AttachmentFormat.blobLength(attachment.size) else {
                throw AttachmentError.damaged(name: attachment.name, reason: "it is not as long as its file needs")
            }
            try BlobReader(attachment: attachment).read(fd: fd, path: temporary) { _ in }
            try POSIXFileSystem().rename(temporary, to: path(attachment.id))
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Writes a cover blob: random bytes as long as a blob of a file of `size` bytes, under a random name.
    /// No slot refers to it, and no one can tell it from a blob that some slot does.
    public func addCover(size: Int) throws {
        try POSIX.ensurePrivateDirectory(directory)
        let id = Hexadecimal.random(16)
        let temporary = directory + "/.tmp-" + Hexadecimal.random(8)
        do {
            var left = AttachmentFormat.blobLength(size)
            try POSIXFileSystem().writeNewFile(at: temporary) { append in
                while left > 0 {
                    let bytes = SecureRandom.bytes(count: min(left, 1 << 20))
                    try bytes.withUnsafeBytes { try append($0) }
                    left -= bytes.count
                }
            }
            try POSIXFileSystem().rename(temporary, to: path(id))
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Removes the whole folder (an erase: the keys are gone with the vault file).
    public func removeAll() {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] { unlink(directory + "/" + name) }
        rmdir(directory)
    }
}

/// Reads one blob's chunks in order, checking the header, every chunk and the final tag.
struct BlobReader {
    let attachment: Attachment

    func read(fd: Int32, path: String, into write: (UnsafeRawBufferPointer) throws -> Void) throws {
        let chunk = AttachmentFormat.chunkSize
        let sealedLength = chunk + AttachmentFormat.chunkOverhead
        let chunks = AttachmentFormat.paddedSize(attachment.size) / chunk
        let key = SecretBytes(copying: attachment.key)
        let header = try POSIX.readExactly(fd: fd, offset: 0, count: AttachmentFormat.headerLength, path: path)
        let opener = try header.withUnsafeBytes { try SecretStream.Opener(key: key, header: $0) }
        let ad = AttachmentFormat.associatedData(id: attachment.id)
        let sealed = UnsafeMutableRawBufferPointer.allocate(byteCount: sealedLength, alignment: 16)
        let plain = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer {
            memset(plain.baseAddress!, 0, chunk)
            plain.deallocate()
            sealed.deallocate()
        }
        var left = attachment.size
        for index in 0..<chunks {
            var got = 0
            while got < sealedLength {
                let n = pread(fd, sealed.baseAddress! + got, sealedLength - got, off_t(AttachmentFormat.headerLength + index * sealedLength + got))
                if n < 0, errno == EINTR { continue }
                if n < 0 { throw StoreError.io(operation: "read", path: path, errno: errno) }
                guard n > 0 else { throw AttachmentError.damaged(name: attachment.name, reason: "it is cut short") }
                got += n
            }
            do {
                try opener.pull(UnsafeRawBufferPointer(sealed), into: plain, associatedData: ad)
            } catch {
                throw AttachmentError.damaged(name: attachment.name, reason: "chunk \(index + 1) of \(chunks) does not authenticate")
            }
            guard opener.finished == (index == chunks - 1) else {
                throw AttachmentError.damaged(name: attachment.name, reason: opener.finished ? "it ends early" : "its last chunk is not the last")
            }
            let n = min(left, chunk)
            if n > 0 { try write(UnsafeRawBufferPointer(rebasing: plain[0..<n])) }
            left -= n
        }
    }
}
