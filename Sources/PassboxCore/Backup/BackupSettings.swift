import Foundation
import PassboxCrypto

/// A vault's own backup settings (G17, G59, G62, G79), kept inside its encrypted payload (key `backup`) and
/// never synced: the key derived from its backup password (never the password), the auto-backup folder and
/// what auto-backup wrote there, and when the last backup was saved.
public struct BackupSettings: Sendable, Equatable {
    /// Argon2id of the backup password under `salt` at `kdf`: 32 bytes.
    public var key: [UInt8]
    /// Chosen when the password is set and kept until it changes (the accepted limit AL-4).
    public var salt: [UInt8]
    public var kdf: Argon2Parameters
    /// The hint printed on a PDF backup (G58); empty unless the user wrote one.
    public var hint: String
    /// Auto-backup's folder (an absolute path), or nil when auto-backup is off.
    public var folder: String?
    /// Auto-backup deletes its own files older than this many days, always keeping the newest.
    public var retentionDays: Int
    /// The files auto-backup wrote in `folder`, oldest first: the only ones it may delete.
    public var written: [WrittenBackup]
    /// When a backup (a file, a PDF or an auto-backup; never a transfer) was last saved.
    public var lastBackup: Date?
    /// Why the last auto-backup could not be written (the error as the service records it), until one is.
    public var problem: String?
    /// Attachments' blobs the vault stopped referring to while auto-backup was on, and when: auto-backups made
    /// before then still refer to them, so the copies in `folder`/blobs go once the retention has deleted those.
    public var retiredBlobs: [String: Date] = [:]
    /// Keys written by a newer Passbox, kept unchanged.
    public var unknown: [String: PackedValue]

    public init(key: [UInt8], salt: [UInt8], kdf: Argon2Parameters, hint: String = "") {
        self.key = key
        self.salt = salt
        self.kdf = kdf
        self.hint = hint
        folder = nil
        retentionDays = BackupSettings.defaultRetentionDays
        written = []
        lastBackup = nil
        problem = nil
        unknown = [:]
    }

    public static let defaultRetentionDays = 30
    /// The longest hint accepted (it is printed in the clear).
    public static let hintLimit = 120

    public struct WrittenBackup: Sendable, Equatable {
        public var name: String
        public var made: Date
        public init(name: String, made: Date) {
            self.name = name
            self.made = made.storedPrecision
        }
    }

    func pack(into w: inout MessagePackWriter) {
        w.writeMapHeader(9 + (folder == nil ? 0 : 1) + (lastBackup == nil ? 0 : 1) + (problem == nil ? 0 : 1) + (retiredBlobs.isEmpty ? 0 : 2) + unknown.count)
        w.write("key")
        w.write(binary: key)
        w.write("salt")
        w.write(binary: salt)
        w.write("memoryKiB")
        w.write(Int(kdf.memoryKiB))
        w.write("passes")
        w.write(Int(kdf.passes))
        w.write("lanes")
        w.write(Int(kdf.lanes))
        w.write("hint")
        w.write(hint)
        w.write("retentionDays")
        w.write(retentionDays)
        w.write("writtenNames")
        w.write(written.map(\.name))
        w.write("writtenMade")
        w.writeArrayHeader(written.count)
        for file in written { w.write(file.made.passboxMilliseconds) }
        if let folder {
            w.write("folder")
            w.write(folder)
        }
        if let lastBackup {
            w.write("lastBackup")
            w.write(lastBackup.passboxMilliseconds)
        }
        if let problem {
            w.write("problem")
            w.write(problem)
        }
        if !retiredBlobs.isEmpty {
            let retired = retiredBlobs.sorted { $0.key < $1.key }
            w.write("retiredIDs")
            w.write(retired.map(\.key))
            w.write("retiredAt")
            w.writeArrayHeader(retired.count)
            for (_, at) in retired { w.write(at.passboxMilliseconds) }
        }
        w.writeUnknown(unknown)
    }

    init(unpacking r: inout MessagePackReader) throws {
        self.init(key: [], salt: [], kdf: Argon2Parameters(memoryKiB: 0, passes: 0, lanes: 0))
        var names: [String] = [], made: [Int64] = []
        var retiredIDs: [String] = [], retiredAt: [Int64] = []
        for _ in 0..<(try r.readMapHeader()) {
            let key = try r.readString()
            switch key {
            case "key": self.key = try r.readBinary()
            case "salt": salt = try r.readBinary()
            case "memoryKiB": kdf.memoryKiB = UInt32(clamping: try r.readInt())
            case "passes": kdf.passes = UInt32(clamping: try r.readInt())
            case "lanes": kdf.lanes = UInt8(clamping: try r.readInt())
            case "hint": hint = try r.readString()
            case "retentionDays": retentionDays = Int(try r.readInt())
            case "writtenNames": names = try r.readStrings()
            case "writtenMade": for _ in 0..<(try r.readArrayHeader()) { made.append(try r.readInt()) }
            case "folder": folder = try r.readString()
            case "lastBackup": lastBackup = Date(passboxMilliseconds: try r.readInt())
            case "problem": problem = try r.readString()
            case "retiredIDs": retiredIDs = try r.readStrings()
            case "retiredAt": for _ in 0..<(try r.readArrayHeader()) { retiredAt.append(try r.readInt()) }
            default: unknown[key] = try r.readValue()
            }
        }
        guard self.key.count == 32, salt.count == 16, names.count == made.count, retiredIDs.count == retiredAt.count else {
            throw MessagePackError(reason: "the backup settings do not read")
        }
        written = zip(names, made).map { WrittenBackup(name: $0, made: Date(passboxMilliseconds: $1)) }
        for (id, at) in zip(retiredIDs, retiredAt) { retiredBlobs[id] = Date(passboxMilliseconds: at) }
    }
}
