import Foundation
import PassboxCore
import PassboxCrypto
import PassboxInterop
import PassboxProtocol
import PassboxStore

/// Imports of other apps' files and exports to them (docs/CLI.md "Imports and exports"): a preview first,
/// then everything in one save or nothing; exports written new and 0600.
extension VaultSession {
    static let importFormats = ["kdbx", "bitwarden-json", "1pux", "csv", "aegis", "2fas", "otpauth", "proton-pass", "cxf"]
    static let exportFormats = ["kdbx", "bitwarden-json", "cxf"]
    /// The largest key file read (KeePass key files are a few hundred bytes; any file may be one).
    static let keyFileLimit = 16 << 20

    /// An import file read into its plan, and where the time went (`ImportPhases`: a KeePass file's key
    /// derivation, decryption, XML and mapping; other formats' reading and mapping in one): run in the parse
    /// child only.
    static func plan(
        format: String, bytes: [UInt8], password: SecretBytes?, keyFile: [UInt8]?, mapping: [String: String], groupsAsVaults: Bool, now: Date,
        keyDerived: () -> Void = {}
    ) throws -> (ImportPlan, ImportPhases) {
        let started = Date()
        let plan: ImportPlan
        switch format {
        case "kdbx":
            let (database, info) = try KDBXFile.read(bytes, credentials: KeePassCredentials(password: password, keyFile: keyFile), keyDerived: keyDerived)
            let mapping = Date()
            var mapped = KeePassImport.plan(database, groupsAsVaults: groupsAsVaults, now: now)
            mapped.source = info.description
            return (
                mapped,
                ImportPhases(
                    kdf: info.kdfSeconds, decrypt: info.decryptSeconds, parse: info.xmlSeconds, map: Date().timeIntervalSince(mapping), textBytes: info.xmlBytes)
            )
        case "bitwarden-json": plan = try BitwardenImport.plan(bytes, password: password, groupsAsVaults: groupsAsVaults, now: now)
        case "1pux": plan = try OnePasswordImport.plan(bytes, groupsAsVaults: groupsAsVaults, now: now)
        case "aegis": plan = try AuthenticatorImport.planAegis(bytes, password: password, groupsAsVaults: groupsAsVaults)
        case "2fas": plan = try AuthenticatorImport.planTwoFAS(bytes, password: password, groupsAsVaults: groupsAsVaults)
        case "proton-pass": plan = try ProtonPassImport.plan(bytes, groupsAsVaults: groupsAsVaults, now: now)
        case "cxf": plan = try CXFImport.plan(bytes, groupsAsVaults: groupsAsVaults, now: now)
        case "otpauth": plan = try OTPAuthListImport.plan(bytes, groupsAsVaults: groupsAsVaults)
        case "csv": plan = try CSVImport.plan(bytes, mapping: mapping, groupsAsVaults: groupsAsVaults, now: now)
        default: throw ProtocolError(.unknownFormat, ["format": String(format.prefix(20)), "formats": importFormats.joined(separator: ", ")])
        }
        return (plan, ImportPhases(parse: Date().timeIntervalSince(started), textBytes: bytes.count))
    }

    /// Reads the file, plans the items and, when confirmed, adds them in one save (a failure adds none).
    func importItems(_ request: ItemsImportRequest) throws -> ImportPreviewReply {
        var r = request
        if r.format == "auto" {
            // The web UI's upload: told by its first bytes, else its name.
            let head = try Self.importBytes(path: r.path, base64: r.base64, limit: KDBXFile.sizeLimit).prefix(4096)
            guard let format = ImportFormat.detect(head: Array(head), name: r.name ?? r.path ?? "") else {
                throw ProtocolError(.unknownFormat, ["format": "auto", "formats": Self.importFormats.joined(separator: ", ")])
            }
            r.format = format
        }
        guard Self.importFormats.contains(r.format) else {
            throw ProtocolError(.unknownFormat, ["format": String(r.format.prefix(20)), "formats": Self.importFormats.joined(separator: ", ")])
        }
        guard r.groups == nil || r.groups == "tags" || r.groups == "vaults" else { throw ProtocolError(.invalidSetting, ["name": "groups", "value": String(r.groups!.prefix(20))]) }
        let groupsAsVaults = r.groups == "vaults"
        let bytes = try Self.importBytes(path: r.path, base64: r.base64, limit: KDBXFile.sizeLimit)
        let keyFile = r.format == "kdbx" ? try r.keyFilePath.map { try Self.importBytes(path: $0, base64: nil, limit: Self.keyFileLimit) } : nil
        // Read in the parse child (promise 33b): the file's password goes there, the vault's keys never do.
        var password = r.password.map { $0.withUnsafeBytes { Array($0) } }
        defer { if password != nil { ConstantTime.wipe(&password!) } }
        var (plan, phases) = try ParseChild.importPlan(
            ParseWire.ImportJob(
                format: r.format, bytes: bytes, password: password, keyFile: keyFile, mapping: r.mapping ?? [:], groupsAsVaults: groupsAsVaults, now: now()))
        let target = try r.vault.map(resolveVault) ?? vault.vaults.first
        // Into a shared vault only where this account may edit, and without files (blobs are an account's own).
        if let target, vault.sync?.org(of: target.id) != nil {
            try vault.requireWritable(vaultID: target.id)
            if plan.entries.contains(where: { !$0.files.isEmpty || !$0.versionFiles.isEmpty }) { throw ProtocolError(.invalidValue, ["reason": "attachment.shared"]) }
        }

        // Checked as an edit is; duplicates of what is here left out unless kept.
        let checking = Date()
        var accepted: [ImportPlan.Entry] = []
        var refusals: [ImportRefusal] = []
        var refused = 0
        var duplicates: [String] = []
        // A live item duplicates a live one here; a trashed one any item here (so a second import adds no
        // second copy to the trash).
        let known = Set(vault.activeItems.map(Self.duplicateKey))
        let knownAnywhere = Set(vault.items.map(Self.duplicateKey))
        for var entry in plan.entries {
            do {
                try Self.checkLimits(entry.item)
                entry.item = try entry.item.validated()
            } catch {
                refused += 1
                if refusals.count < 20 { refusals.append(ImportRefusal(title: String(entry.item.title.prefix(100)), error: ProtocolError.from(error))) }
                continue
            }
            if !r.keepDuplicates, (entry.item.isTrashed ? knownAnywhere : known).contains(Self.duplicateKey(entry.item)) {
                duplicates.append(entry.item.title)
                continue
            }
            accepted.append(entry)
        }
        guard !accepted.isEmpty || refused > 0 || !duplicates.isEmpty else { throw InteropError.empty }
        let existing = Set(vault.vaults.map { $0.name.lowercased() })
        var newVaults: [String] = []
        for name in accepted.compactMap(\.vaultName) where !existing.contains(name.lowercased()) && !newVaults.contains(where: { $0.lowercased() == name.lowercased() }) {
            newVaults.append(name)
        }
        var categories: [String: Int] = [:]
        for entry in accepted where !entry.item.isTrashed { categories[entry.item.category.rawValue, default: 0] += 1 }
        var reply = ImportPreviewReply(
            format: r.format, source: plan.source, items: accepted.filter { !$0.item.isTrashed }.count, trashed: accepted.filter(\.item.isTrashed).count,
            categories: categories, duplicates: duplicates.count, duplicateTitles: Array(duplicates.prefix(20)), notBrought: plan.notBrought, refused: refused,
            refusals: refusals, vault: target?.name ?? "Personal", newVaults: newVaults, imported: false, kdfSeconds: phases.kdf)
        phases.check = Date().timeIntervalSince(checking)
        reply.phases = phases
        let files = accepted.reduce(0) { $0 + $1.blobCount }
        if files > 0 { reply.attachments = files }
        guard r.confirm, !accepted.isEmpty else { return reply }
        for name in newVaults { _ = try Self.checkedName(name) }
        let saving = Date()
        // The files first, as blobs; the one save after them refers to them, and a failed save removes them.
        var blobIDs: [String] = []
        do {
            for i in accepted.indices where !accepted[i].files.isEmpty || !accepted[i].versionFiles.isEmpty {
                blobIDs += try storeImportedFiles(accepted[i].files, versions: accepted[i].versionFiles, on: &accepted[i].item)
            }
        } catch {
            for id in blobIDs { blobs.remove(id) }
            throw error
        }
        defer { if !reply.imported { for id in blobIDs { blobs.remove(id) } } }

        let added = try update(reindexing: { $0 }) { v -> [String] in
            if v.vaults.isEmpty {
                // As at `vault create`: the items of a file without vaults go into a first vault, made now.
                try AccountSync.makeVault(&v, name: "Personal", icon: nil, colour: nil, now: now())
                for i in v.items.indices where v.items[i].vaultID == nil {
                    if v.sync != nil { v.items[i].markSyncPending() }
                    v.items[i].vaultID = v.vaults[0].id
                }
            }
            for name in newVaults { try AccountSync.makeVault(&v, name: try Self.checkedName(name), icon: nil, colour: nil, now: now()) }
            let targetID = target?.id ?? v.vaults[0].id
            let at = now().storedPrecision
            var ids: [String] = []
            for entry in accepted {
                var item = entry.item
                // A group named like a vault goes there, when it is one of the account's own (never a shared one).
                item.vaultID =
                    entry.vaultName.flatMap { name in
                        v.vaults.first { $0.name.caseInsensitiveCompare(name) == .orderedSame && v.sync?.org(of: $0.id) == nil }?.id
                    } ?? targetID
                item.created = item.created ?? at
                item.lastChanged = item.lastChanged ?? at
                item.syncBase = nil
                item.syncPending = v.sync != nil
                v.items.append(item)
                ids.append(item.id)
            }
            return ids
        }
        reply.imported = !added.isEmpty
        reply.phases?.save = Date().timeIntervalSince(saving)
        // As after an attach: covers beside the local vault's new files, so their count says nothing of a slot's.
        if reply.imported, opened.isLocalVault {
            for entry in accepted {
                var seen = Set<Int>()
                for file in entry.files + entry.versionFiles.values.flatMap({ $0 }) where file.reference.map({ seen.insert($0).inserted }) ?? true {
                    writeCoverBlobs(near: file.bytes.count)
                }
            }
        }
        return reply
    }

    /// The same limits as an edit (ItemLimits), for items that never went through `ItemChanges`.
    static func checkLimits(_ item: Item) throws {
        guard item.fields.count <= ItemLimits.maximumFields else { throw ProtocolError(.tooManyFields, ["count": String(item.fields.count), "limit": String(ItemLimits.maximumFields)]) }
        if item.title.utf8.count > ItemLimits.maximumTitle {
            throw ProtocolError(.valueTooLong, ["label": "title", "length": String(item.title.utf8.count), "limit": String(ItemLimits.maximumTitle)])
        }
        if item.notes.utf8.count > ItemLimits.maximumNotes {
            throw ProtocolError(.valueTooLong, ["label": "notes", "length": String(item.notes.utf8.count), "limit": String(ItemLimits.maximumNotes)])
        }
        for f in item.fields where f.value.utf8.count > ItemLimits.maximumValue {
            throw ProtocolError(.valueTooLong, ["label": f.label, "length": String(f.value.utf8.count), "limit": String(ItemLimits.maximumValue)])
        }
    }

    /// Two items are the same entry when category, title (ignoring case), username, first website's host,
    /// password and one-time-password key all match.
    static func duplicateKey(_ item: Item) -> String {
        let host = item.websites.first.flatMap { Validation.host(of: $0) } ?? ""
        let otp = item.value(of: "otp").flatMap { try? OTPInput.parse($0).secret }.map(Base32.encode) ?? ""
        return [item.category.rawValue, item.title.lowercased(), item.username ?? "", host, item.password ?? "", otp].joined(separator: "\u{1F}")
    }

    /// A file's bytes (from a path the agent reads, or base64 from the web UI), refusing anything past `limit`.
    static func importBytes(path: String?, base64: String?, limit: Int) throws -> [UInt8] {
        if let base64 {
            guard base64.utf8.count <= limit / 3 * 4 + 4, let data = Data(base64Encoded: base64) else { throw ProtocolError(.badRequest, ["reason": "the file is not base64"]) }
            return Array(data)
        }
        guard let path else { throw ProtocolError(.badRequest, ["reason": "import-items needs path or base64"]) }
        guard path.hasPrefix("/") else { throw ProtocolError(.badRequest, ["reason": "a path must be absolute"]) }
        var st = stat()
        guard stat(path, &st) == 0 else { throw ProtocolError(.io, ["operation": "read", "path": path, "reason": String(cString: strerror(errno))]) }
        guard st.st_mode & S_IFMT == S_IFREG else { throw ProtocolError(.io, ["operation": "read", "path": path, "reason": "it is not a file"]) }
        guard Int(st.st_size) <= limit else { throw InteropError.tooLarge(limitMiB: limit >> 20) }
        guard let data = FileManager.default.contents(atPath: path) else { throw ProtocolError(.io, ["operation": "read", "path": path, "reason": "unreadable"]) }
        return Array(data)
    }

    // MARK: Export

    /// Writes the visible items (or one vault's) as a KeePass 4 file under its own password, or, confirmed,
    /// as Bitwarden's plain JSON or a plain CXF document (passkeys only when confirmed too).
    func exportItems(_ r: ItemsExportRequest, parameters: Argon2Parameters) throws -> ExportedReply {
        guard Self.exportFormats.contains(r.format) else {
            throw ProtocolError(.unknownFormat, ["format": String(r.format.prefix(20)), "formats": Self.exportFormats.joined(separator: ", ")])
        }
        let chosen = try r.vault.map(resolveVault)
        let firstVault = vault.vaults.first?.id
        let items = vault.items.filter { item in chosen.map { (item.vaultID ?? firstVault) == $0.id } ?? true }
        let vaults = chosen.map { [$0] } ?? vault.vaults
        var bytes: [UInt8], entries: Int, leftOut: [String: Int]
        // A download's name: the vault's (or Passbox) and the day, with the format's extension.
        let day = ISO8601DateFormatter.string(from: now(), timeZone: .current, formatOptions: [.withFullDate])
        let name = (chosen?.name ?? "Passbox").replacingOccurrences(of: "/", with: "_") + " " + day + (r.format == "kdbx" ? ".kdbx" : ".json")
        if r.format != "kdbx" {
            // Not encrypted: every surface asks twice first, and says where the file goes; a third time for passkeys.
            guard r.plainConfirmed == true else { throw ProtocolError(.plainExportNotConfirmed, ["path": r.path ?? name]) }
            let withPasskeys = r.passkeysConfirmed == true
            if r.format == "cxf" {
                let result = try CXFExport.export(items: items, vaults: vaults, withPasskeys: withPasskeys, now: now())
                (bytes, entries, leftOut) = (result.json, result.entries, result.leftOut)
            } else {
                let result = try BitwardenExport.export(items: items, vaults: vaults, withPasskeys: withPasskeys)
                (bytes, entries, leftOut) = (result.json, result.entries, result.leftOut)
            }
        } else {
            guard let password = r.password else { throw ProtocolError(.badRequest, ["reason": "a KeePass export needs its password"]) }
            try password.withUnsafeBytes { try PasswordRules.checkLocalVaultPassword(utf8: $0) }
            // Attachments go into the file: each decrypted from its blob (or fetched) as the file is made.
            // A download travels as base64 in one answer: its attachments are bounded tighter.
            let budget = r.path == nil ? Self.downloadAttachmentBudget : KeePassExport.attachmentBudget
            let result = try KeePassExport.database(items: items, vaults: vaults, name: chosen?.name ?? "Passbox", attachmentBudget: budget) { a -> [UInt8]? in
                guard (try? fetchMissingBlob(a)) != nil else { return nil }
                var bytes = [UInt8]()
                bytes.reserveCapacity(a.size)
                try blobs.read(a) { bytes.append(contentsOf: $0) }
                return bytes
            }
            guard result.entries > 0 else { throw InteropError.empty }
            bytes = try KDBXFile.write(result.database, credentials: KeePassCredentials(password: VaultService.lockedCopy(password)), parameters: parameters)
            (entries, leftOut) = (result.entries, result.leftOut)
        }
        guard let path = r.path else {
            defer { ConstantTime.wipe(&bytes) }
            let mediaType = r.format == "kdbx" ? "application/x-keepass2" : "application/json"
            return ExportedReply(path: nil, entries: entries, bytes: bytes.count, leftOut: leftOut, base64: Data(bytes).base64EncodedString(), name: name, mediaType: mediaType)
        }
        try Self.writeNew(bytes, to: path)
        return ExportedReply(path: path, entries: entries, bytes: bytes.count, leftOut: leftOut)
    }

    /// The most attachment bytes a download's KeePass file carries (it comes back whole, as base64, in one answer).
    static let downloadAttachmentBudget = 48 << 20
}
