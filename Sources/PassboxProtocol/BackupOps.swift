import Foundation

/// `backup-password`: sets or changes the open vault's backup password (G17, G59). `current` is the vault's
/// own password (a counted attempt); the backup password is derived once (about 6 s) and only the key is
/// kept. Both travel after the JSON.
public struct BackupPasswordRequest: Codable, Sendable {
    public var current: SecretText
    public var password: SecretText
    /// Printed on PDF backups (G58); empty unless written.
    public var hint: String?
    public init(current: SecretText, password: SecretText, hint: String? = nil) {
        self.current = current
        self.password = password
        self.hint = hint
    }
}

/// `backup-make`: `format` "file" (a .pbbackup), "pdf" (QR codes on `paper` "a4" or "letter") or
/// "transfer" (codes to show one after another, saving nothing). With `path` (the CLI) the agent writes the
/// file there itself, new and 0600; without it (the web UI) the bytes come back in the reply.
public struct BackupMakeRequest: Codable, Sendable {
    public var format: String
    public var paper: String?
    public var path: String?
    /// The language of the PDF's few words ("en" or "de").
    public var language: String?
    public init(format: String, paper: String? = nil, path: String? = nil, language: String? = nil) {
        self.format = format
        self.paper = paper
        self.path = path
        self.language = language
    }
}

/// `backup-auto`: auto-backup into `folder` (an absolute path of a directory the user owns; nil turns it
/// off), keeping its own files for `retentionDays`.
public struct BackupAutoRequest: Codable, Sendable {
    public var folder: String?
    public var retentionDays: Int?
    public init(folder: String?, retentionDays: Int? = nil) {
        self.folder = folder
        self.retentionDays = retentionDays
    }
}

/// `backup-restore`: a backup read from `path`, from `base64` bytes, or from QR `codes` (their texts, in any
/// order), opened with its own `password` (G59), restored as a new vault ("new") or in place of the open
/// vault ("replace", the local vault only).
public struct BackupRestoreRequest: Codable, Sendable {
    public var password: SecretText
    public var mode: String
    public var path: String?
    public var base64: String?
    public var codes: [String]?
    /// The language the restored vaults are named in ("en" or "de").
    public var language: String?
    public init(password: SecretText, mode: String, path: String? = nil, base64: String? = nil, codes: [String]? = nil, language: String? = nil) {
        self.password = password
        self.language = language
        self.mode = mode
        self.path = path
        self.base64 = base64
        self.codes = codes
    }
}

/// The open vault's backup settings, as `backup-view` and the changes answer.
public struct BackupView: Codable, Sendable, Equatable {
    public var passwordSet: Bool
    public var hint: String
    public var folder: String?
    public var retentionDays: Int
    /// Files auto-backup wrote and still keeps.
    public var autoBackups: Int
    /// When a backup was last saved (never a transfer, G79).
    public var lastBackup: Date?
    /// Why the last auto-backup could not be written, if it could not.
    public var problem: ProtocolError?
    public init(passwordSet: Bool, hint: String, folder: String?, retentionDays: Int, autoBackups: Int, lastBackup: Date?, problem: ProtocolError? = nil) {
        self.passwordSet = passwordSet
        self.hint = hint
        self.folder = folder
        self.retentionDays = retentionDays
        self.autoBackups = autoBackups
        self.lastBackup = lastBackup
        self.problem = problem
    }
}

/// One QR code to draw: `size` rows of `size` characters, "1" for a dark module.
public struct QRCodeView: Codable, Sendable, Equatable {
    public var size: Int
    public var modules: [String]
    public init(size: Int, modules: [String]) {
        self.size = size
        self.modules = modules
    }
}

/// What `backup-make` made.
public struct BackupMadeReply: Codable, Sendable, Equatable {
    /// The file's suggested name (the web UI's download).
    public var name: String
    public var mediaType: String
    /// The bytes, when no path was given (a file or PDF for the web UI).
    public var base64: String?
    /// Where it was written, when a path was given.
    public var path: String?
    /// The backup's own size (before any PDF), its QR codes and pages.
    public var bytes: Int
    public var codes: Int
    public var pages: Int
    /// A transfer's codes, in order.
    public var transfer: [QRCodeView]?
    /// Attachments' files: copied (encrypted, as they are) into `blobs/` beside a backup file written to a
    /// path, or left out (a PDF, a transfer, a download through the web UI), which the surfaces say.
    public var attachmentsCopied: Int?
    public var attachmentsLeftOut: Int?
    public init(name: String, mediaType: String, base64: String?, path: String?, bytes: Int, codes: Int, pages: Int, transfer: [QRCodeView]? = nil) {
        self.name = name
        self.mediaType = mediaType
        self.base64 = base64
        self.path = path
        self.bytes = bytes
        self.codes = codes
        self.pages = pages
        self.transfer = transfer
    }
}

/// What `backup-restore` brought in: items and vaults made or replaced, and codes left out.
public struct RestoredReply: Codable, Sendable, Equatable {
    public var mode: String
    public var items: Int
    public var trashed: Int
    public var vaults: [String]
    public var made: Date
    /// Codes read twice, and codes of another backup, left out.
    public var repeatedCodes: Int
    public var foreignCodes: Int
    /// Attachments' files brought back from `blobs/` beside the backup file, and those not found there whole
    /// (missing, or changed: refused and not kept).
    public var attachmentsRestored: Int?
    public var attachmentsMissing: Int?
    public init(mode: String, items: Int, trashed: Int, vaults: [String], made: Date, repeatedCodes: Int = 0, foreignCodes: Int = 0) {
        self.mode = mode
        self.items = items
        self.trashed = trashed
        self.vaults = vaults
        self.made = made
        self.repeatedCodes = repeatedCodes
        self.foreignCodes = foreignCodes
    }
}
