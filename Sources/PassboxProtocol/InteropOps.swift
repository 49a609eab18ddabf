import Foundation

/// `import-items`: another app's file read and shown as a preview (`confirm` false), or brought in (`confirm`
/// true) in one save: all or nothing. `format` "kdbx" (KeePass 3.1 and 4.x), "bitwarden-json" (Bitwarden's
/// unencrypted JSON export), "1pux" (1Password), "proton-pass" (Proton Pass's unencrypted export, data.json or its ZIP), "aegis" or "2fas" (authenticator exports, plain or encrypted), "otpauth" (a list of otpauth:// and otpauth-migration:// links, one a line) or "csv" (Chrome, Firefox, Bitwarden and 1Password CSV, or any CSV with
/// `mapping`: target → column, targets title, username, password, url, notes, otp, folder, tags, favorite).
/// The file comes from `path` (the
/// CLI: the agent reads it) or `base64`; its own `password` travels after the JSON, and a `keyFilePath` names a
/// KeePass key file. Groups become tags (`groups` "tags", the default) or vaults ("vaults"); items go into
/// `vault` (a name or id; the first vault when nil). Items that duplicate one already here (same category,
/// title, username, website and password) are left out unless `keepDuplicates`.
public struct ItemsImportRequest: Codable, Sendable {
    public var format: String
    public var path: String?
    public var base64: String?
    public var password: SecretText?
    public var keyFilePath: String?
    public var groups: String?
    public var vault: String?
    public var keepDuplicates: Bool
    public var confirm: Bool
    public var mapping: [String: String]?
    /// The file's name, which tells a CSV file when `format` is "auto" (told by the file's first bytes).
    public var name: String?
    public init(
        format: String, path: String? = nil, base64: String? = nil, password: SecretText?, keyFilePath: String? = nil, groups: String? = nil, vault: String? = nil,
        keepDuplicates: Bool = false, confirm: Bool, mapping: [String: String]? = nil
    ) {
        self.mapping = mapping
        self.format = format
        self.path = path
        self.base64 = base64
        self.password = password
        self.keyFilePath = keyFilePath
        self.groups = groups
        self.vault = vault
        self.keepDuplicates = keepDuplicates
        self.confirm = confirm
    }
}

/// An item the import cannot make, and why (the item model's check, worded as for an edit).
public struct ImportRefusal: Codable, Sendable, Equatable {
    public var title: String
    public var error: ProtocolError
    public init(title: String, error: ProtocolError) {
        self.title = title
        self.error = error
    }
}

/// What `import-items` would make, or made (`imported`).
public struct ImportPreviewReply: Codable, Sendable, Equatable {
    public var format: String
    /// The source as read: "KDBX 4.0, ChaCha20, Argon2d, 64 MiB × 10 passes × 2 lanes".
    public var source: String
    /// Items to make (or made) outside the trash, and in it.
    public var items: Int
    public var trashed: Int
    /// Category (raw name) → items, of those made.
    public var categories: [String: Int]
    /// Items left out as duplicates of items already here (none when `keepDuplicates`), with up to 20 titles.
    public var duplicates: Int
    public var duplicateTitles: [String]
    /// What cannot be brought over, by reason ("attachment", "emptyEntry", "recoveryPhrase", "privateKey",
    /// "linkedField", "unknownType", "unsupportedCode", "invalidCode").
    public var notBrought: [String: Int]
    /// Items that fail the item model's checks (left out), with the first 20 named.
    public var refused: Int
    public var refusals: [ImportRefusal]
    /// The vault items go into, and the vaults to be made (groups as vaults).
    public var vault: String
    public var newVaults: [String]
    /// Whether the items were written (a confirmed import).
    public var imported: Bool
    /// Seconds the file's key derivation took (the rest of the import is the benchmark's figure).
    public var kdfSeconds: Double
    /// Files the items carry (KeePass attachments), kept as encrypted attachments when confirmed.
    public var attachments: Int?
    /// Where the import's time went and the parse child's peak memory (`passbox bench import`).
    public var phases: ImportPhases?
    public init(
        format: String, source: String, items: Int, trashed: Int, categories: [String: Int], duplicates: Int, duplicateTitles: [String], notBrought: [String: Int],
        refused: Int, refusals: [ImportRefusal], vault: String, newVaults: [String], imported: Bool, kdfSeconds: Double
    ) {
        self.format = format
        self.source = source
        self.items = items
        self.trashed = trashed
        self.categories = categories
        self.duplicates = duplicates
        self.duplicateTitles = duplicateTitles
        self.notBrought = notBrought
        self.refused = refused
        self.refusals = refusals
        self.vault = vault
        self.newVaults = newVaults
        self.imported = imported
        self.kdfSeconds = kdfSeconds
    }
}

/// `export-items`: the open vault's items (or one `vault`'s) written as `format` "kdbx" (KeePass 4,
/// encrypted under `password`, which travels after the JSON), "bitwarden-json" (Bitwarden's JSON) or "cxf"
/// (the FIDO Credential Exchange Format), the last two not encrypted: only with `plainConfirmed`, which a
/// surface sets after asking twice, to `path`, a new file
/// (0600, never over one). Hidden items, trashed items and items locked with their own password are left
/// out, and counted.
public struct ItemsExportRequest: Codable, Sendable {
    public var format: String
    /// Where the file is written (absolute, new); absent: the file comes back as base64 (the web UI's download).
    public var path: String?
    public var password: SecretText?
    public var vault: String?
    public var plainConfirmed: Bool?
    /// A plain export ("bitwarden-json", "cxf") carries the passkeys' private keys only with this too (a surface
    /// asks a third time first); without it they are counted as left out ("passkeyPlain").
    public var passkeysConfirmed: Bool?
    public init(format: String, path: String?, password: SecretText?, vault: String? = nil, plainConfirmed: Bool? = nil, passkeysConfirmed: Bool? = nil) {
        self.format = format
        self.path = path
        self.password = password
        self.vault = vault
        self.plainConfirmed = plainConfirmed
        self.passkeysConfirmed = passkeysConfirmed
    }
}

/// What `export-items` wrote.
public struct ExportedReply: Codable, Sendable, Equatable {
    /// The file written; absent for a download.
    public var path: String?
    public var entries: Int
    public var bytes: Int
    /// Reason ("trashed", "sealed") → items left out.
    public var leftOut: [String: Int]
    /// A download's file (without `path`): its bytes, a name to save it under, and its media type.
    public var base64: String?
    public var name: String?
    public var mediaType: String?
    public init(path: String?, entries: Int, bytes: Int, leftOut: [String: Int], base64: String? = nil, name: String? = nil, mediaType: String? = nil) {
        self.path = path
        self.entries = entries
        self.bytes = bytes
        self.leftOut = leftOut
        self.base64 = base64
        self.name = name
        self.mediaType = mediaType
    }
}

/// Where an import's time went, phase by phase, and the memory its parsing took: for `passbox bench import`
/// and anyone who wants to know why an import is slow. A KeePass file splits into every phase; other formats
/// read and map in one step, counted as `parse`.
public struct ImportPhases: Codable, Sendable, Equatable {
    /// Seconds of the file's key derivation.
    public var kdf: Double
    /// Seconds to check, decrypt and decompress the file's payload.
    public var decrypt: Double
    /// Seconds to read its text (a KeePass file's XML) into entries.
    public var parse: Double
    /// Seconds to map the entries to items.
    public var map: Double
    /// Seconds to check the items as an edit is and find duplicates (in the agent).
    public var check: Double
    /// Seconds of the one save (0 when only previewed).
    public var save: Double
    /// The bytes of text parsed (a KeePass file's XML once decompressed; the file itself for other formats).
    public var textBytes: Int
    /// The parse child's peak resident memory in KiB after the file's key derivation (its start included),
    /// 0 when unknown.
    public var parsePeakKiB: Int

    public init(kdf: Double = 0, decrypt: Double = 0, parse: Double = 0, map: Double = 0, check: Double = 0, save: Double = 0, textBytes: Int = 0, parsePeakKiB: Int = 0) {
        self.kdf = kdf
        self.decrypt = decrypt
        self.parse = parse
        self.map = map
        self.check = check
        self.save = save
        self.textBytes = textBytes
        self.parsePeakKiB = parsePeakKiB
    }
}
