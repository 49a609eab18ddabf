import Foundation
import PassboxCore
import PassboxCrypto
import PassboxKit
import PassboxProtocol
import PassboxStore
import PassboxWording

/// Backups of the open vault (security.md §8; G54–G63, G77–G79, TR-1/2): its backup password (kept as the
/// derived key), saved backups (file and PDF), auto-backup after changes, transfers, and restoring.
extension VaultSession {
    func backupView() -> BackupView {
        let b = vault.backup
        return BackupView(
            passwordSet: b != nil, hint: b?.hint ?? "", folder: b?.folder, retentionDays: b?.retentionDays ?? BackupSettings.defaultRetentionDays,
            autoBackups: b?.written.count ?? 0, lastBackup: b?.lastBackup,
            problem: b?.problem.flatMap { try? JSONDecoder().decode(ProtocolError.self, from: Data($0.utf8)) })
    }

    /// Sets or changes the backup password: the vault's own password first (a counted attempt), then the
    /// new password derived once at `parameters` under a new salt. Auto-backup settings and the record of
    /// its files stay.
    func setBackupPassword(_ r: BackupPasswordRequest, parameters: Argon2Parameters) throws -> BackupView {
        let hint = (r.hint ?? vault.backup?.hint ?? "").trimmingCharacters(in: .whitespaces)
        guard hint.count <= BackupSettings.hintLimit, !hint.contains(where: \.isNewline) else {
            throw ProtocolError(.backupHintInvalid, ["limit": String(BackupSettings.hintLimit)])
        }
        try r.password.withUnsafeBytes { try PasswordRules.checkLocalVaultPassword(utf8: $0) }
        // The hint is printed in the clear on every PDF: it must not hold either password (G58).
        if !hint.isEmpty {
            let folded = hint.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            for secret in [r.password, r.current] {
                let text = secret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
                if !text.isEmpty, folded.contains(text) { throw ProtocolError(.hintRevealsPassword) }
            }
        }
        try opened.checkOwnPassword(VaultService.lockedCopy(r.current))
        var settings = try BackupFile.settings(password: VaultService.lockedCopy(r.password), hint: hint, parameters: parameters)
        if let old = vault.backup {
            (settings.folder, settings.retentionDays, settings.written, settings.lastBackup) = (old.folder, old.retentionDays, old.written, old.lastBackup)
            settings.retiredBlobs = old.retiredBlobs
        }
        try recordingBackup { $0.backup = settings }
        return backupView()
    }

    func setAutoBackup(_ r: BackupAutoRequest) throws -> BackupView {
        guard var settings = vault.backup else { throw BackupError.noBackupPassword }
        if let folder = r.folder {
            try Self.checkFolder(folder)
            // Not the data directory or inside it: a backup beside the vault it copies is no backup.
            let data = URL(fileURLWithPath: dataDirectory).standardizedFileURL.resolvingSymlinksInPath().path
            let chosen = URL(fileURLWithPath: folder).standardizedFileURL.resolvingSymlinksInPath().path
            if chosen == data || chosen.hasPrefix(data + "/") { throw ProtocolError(.backupFolderInvalid, ["path": folder, "reason": "dataDirectory"]) }
            // The record of files written belongs to one folder: another folder starts a new one (the files in
            // the old folder stay, and are the user's now).
            if settings.folder != folder { (settings.written, settings.retiredBlobs) = ([], [:]) }
            settings.folder = folder
        } else {
            settings.folder = nil
            (settings.written, settings.retiredBlobs) = ([], [:])
        }
        settings.problem = nil
        if let days = r.retentionDays {
            guard (1...3650).contains(days) else { throw ProtocolError(.invalidSetting, ["name": "retention", "value": String(days)]) }
            settings.retentionDays = days
        }
        try recordingBackup { $0.backup = settings }
        return backupView()
    }

    /// Makes a backup of the whole open vault under its kept key (G54: there is no other export).
    func makeBackup(_ r: BackupMakeRequest) throws -> BackupMadeReply {
        guard let settings = vault.backup else { throw BackupError.noBackupPassword }
        let language: Language = r.language == "de" ? .german : .english
        let made = now()
        let stamp = Self.fileStamp(made)
        switch r.format {
        case "file":
            let bytes = try BackupFile.seal(vault, settings: settings, made: made, padding: .fixed)
            let name = "passbox-backup-\(stamp).pbbackup"
            var reply: BackupMadeReply
            if let path = r.path {
                try Self.writeNew(bytes, to: path)
                reply = BackupMadeReply(name: name, mediaType: "application/octet-stream", base64: nil, path: path, bytes: bytes.count, codes: 0, pages: 0)
                reply.attachmentsCopied = try copyAttachments(besideBackup: path)
            } else {
                reply = BackupMadeReply(name: name, mediaType: "application/octet-stream", base64: Data(bytes).base64EncodedString(), path: nil, bytes: bytes.count, codes: 0, pages: 0)
                reply.attachmentsLeftOut = backedUpBlobs().count
            }
            try noteSaved(made)
            return reply
        case "pdf":
            guard let paper = BackupPDF.Paper(rawValue: r.paper ?? "a4") else { throw ProtocolError(.invalidSetting, ["name": "paper", "value": r.paper ?? ""]) }
            let bytes = try BackupFile.seal(vault, settings: settings, made: made, padding: .fixed)
            let codes = BackupShards.split(bytes, kind: .backup)
            let name = "passbox-backup-\(stamp).pdf"
            guard codes.count <= BackupShards.maximumTotal else { throw BackupError.tooLarge(limitMiB: BackupFile.expandedLimit >> 20) }
            // Drawn into a 0600 file of the data directory (made new; cairo opens it by name), read back and
            // removed; the user's path is then written new (O_EXCL, so never through a link or over a file).
            let scratch = dataDirectory + "/backup-\(SecureRandom.bytes(count: 8).map { String(format: "%02x", $0) }.joined()).pdf"
            try Self.writeNew([], to: scratch)
            defer { unlink(scratch) }
            do {
                try writePDF(codes: codes, paper: paper, to: scratch, made: made, hint: settings.hint, language: language)
            } catch {
                throw ProtocolError(.io, ["operation": "write", "path": r.path ?? "the PDF", "reason": String(describing: error)])
            }
            let drawn = Array(try Data(contentsOf: URL(fileURLWithPath: scratch)))
            var base64: String?
            if let path = r.path { try Self.writeNew(drawn, to: path) } else { base64 = Data(drawn).base64EncodedString() }
            try noteSaved(made)
            var reply = BackupMadeReply(name: name, mediaType: "application/pdf", base64: base64, path: r.path, bytes: bytes.count, codes: codes.count, pages: BackupPDF.pageCount(codes: codes.count))
            reply.attachmentsLeftOut = backedUpBlobs().count
            return reply
        case "transfer":
            // Padded by a random amount, saved nowhere, and no "last backup" (G57, G79, TR-1).
            let bytes = try BackupFile.seal(vault, settings: settings, made: made, padding: .random)
            let codes = BackupShards.split(bytes, kind: .transfer)
            guard codes.count <= BackupShards.maximumTotal else { throw BackupError.tooLarge(limitMiB: BackupFile.expandedLimit >> 20) }
            var views: [QRCodeView] = []
            for code in codes {
                guard let qr = QRModules.encode(code) else { throw ProtocolError(.libraryMissing, ["libraries": "libqrencode.so.4", "packages": "libqrencode4"]) }
                views.append(QRCodeView(size: qr.size, modules: qr.rows))
            }
            var reply = BackupMadeReply(name: "", mediaType: "", base64: nil, path: nil, bytes: bytes.count, codes: codes.count, pages: 0, transfer: views)
            reply.attachmentsLeftOut = backedUpBlobs().count
            return reply
        default:
            throw ProtocolError(.invalidSetting, ["name": "format", "value": String(r.format.prefix(20))])
        }
    }

    func writePDF(codes: [String], paper: BackupPDF.Paper, to path: String, made: Date, hint: String, language: Language) throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: language == .german ? "de_DE" : "en_GB")
        formatter.dateStyle = .long
        formatter.timeStyle = .short
        let date = formatter.string(from: made)
        try BackupPDF.write(
            codes: codes, paper: paper, to: path,
            heading: { page, pages in
                var lines = [Localization.tr("backup.pdf.title", language), Localization.tr("backup.pdf.facts", language, ["date": date, "page": String(page), "pages": String(pages), "codes": String(codes.count)])]
                if !hint.isEmpty { lines.append(Localization.tr("backup.pdf.hint", language, ["hint": hint])) }
                return lines
            },
            label: { n, total in Localization.tr("backup.pdf.code", language, ["number": String(n), "total": String(total)]) })
    }

    /// A saved backup (never a transfer) is the vault's "last backup" (G79).
    func noteSaved(_ made: Date) throws {
        try recordingBackup { $0.backup?.lastBackup = made.storedPrecision }
    }

    /// Runs `body` (a record of use: a copy, a fill) without an auto-backup of the change it saves.
    func withoutAutoBackup<T>(_ body: () throws -> T) rethrows -> T {
        let was = recordingBackupSettings
        recordingBackupSettings = true
        defer { recordingBackupSettings = was }
        return try body()
    }

    /// A change to the backup settings alone: saved, and no auto-backup made of it.
    func recordingBackup(_ change: (inout Vault) throws -> Void) throws {
        // Vault-level state only: no item group is compressed again.
        try withoutAutoBackup { try updateNaming([]) { try change(&$0) } }
    }

    // MARK: Auto-backup (G62)

    /// After a change: a new backup file in the folder the user chose, never replacing one (O_EXCL; a taken
    /// name gets -2, -3 …), then its own files past the retention deleted, always keeping the newest. A
    /// failure does not undo the change; it is kept for `backup-view` and `status`.
    func autoBackupAfterChange() {
        guard !recordingBackupSettings, var settings = vault.backup, let folder = settings.folder else { return }
        do {
            try Self.checkFolder(folder)
            let made = now()
            let bytes = try BackupFile.seal(vault, settings: settings, made: made, padding: .fixed)
            let base = "passbox-auto-\(Self.fileStamp(made))"
            var name = base + ".pbbackup"
            var n = 1
            _ = try copyAttachments(besideBackup: folder + "/" + base)
            while true {
                do {
                    try Self.writeNew(bytes, to: folder + "/" + name)
                    break
                } catch let e as ProtocolError where e.code == .fileExists && n < 1000 {
                    n += 1
                    name = "\(base)-\(n).pbbackup"
                }
            }
            settings.written.append(.init(name: name, made: made))
            settings.lastBackup = made.storedPrecision
            let cutoff = made.addingTimeInterval(-Double(settings.retentionDays) * 86_400)
            let newest = settings.written.last!
            settings.written = settings.written.filter { file in
                guard file != newest, file.made < cutoff, !file.name.contains("/") else { return true }
                return unlink(folder + "/" + file.name) != 0 && errno != ENOENT
            }
            pruneRetiredBlobs(&settings, folder: folder)
            settings.problem = nil
            do {
                try recordingBackup { $0.backup = settings }
            } catch {
                // Not recorded, so never deleted by the retention: not kept either.
                unlink(folder + "/" + name)
                throw error
            }
        } catch {
            // Kept in the vault's settings, so `backup status` and the web UI say so whichever process made the change.
            let problem = (try? JSONEncoder().encode(ProtocolError.from(error))).map { String(decoding: $0, as: UTF8.self) }
            try? recordingBackup { $0.backup?.problem = problem }
        }
    }

    /// Removes the copies in `folder`/blobs of blobs the vault stopped referring to before the oldest auto-backup
    /// still kept was made: no kept auto-backup refers to them. Only while the folder holds no backup file but
    /// auto-backup's own (another backup there may refer to them); a blob referred to again leaves the list.
    func pruneRetiredBlobs(_ settings: inout BackupSettings, folder: String) {
        guard !settings.retiredBlobs.isEmpty, let oldest = settings.written.map(\.made).min() else { return }
        let referenced = Self.referencedBlobs(vault)
        let ours = Set(settings.written.map(\.name))
        let others = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).contains { $0.hasSuffix(".pbbackup") && !ours.contains($0) }
        for (id, at) in settings.retiredBlobs {
            if referenced.contains(id) || !Attachment.isValidID(id) {
                settings.retiredBlobs[id] = nil
                continue
            }
            // Strictly before: a backup made in the same millisecond may be the one before the change.
            guard !others, at < oldest else { continue }
            if unlink(folder + "/blobs/" + id) == 0 || errno == ENOENT { settings.retiredBlobs[id] = nil }
        }
    }

    /// Auto-backup writes only into a directory of this user's that is not a link (G62).
    static func checkFolder(_ folder: String) throws {
        guard folder.hasPrefix("/") else { throw ProtocolError(.backupFolderInvalid, ["path": folder, "reason": "relative"]) }
        var st = stat()
        guard lstat(folder, &st) == 0 else { throw ProtocolError(.backupFolderInvalid, ["path": folder, "reason": "missing"]) }
        guard st.st_mode & S_IFMT == S_IFDIR else { throw ProtocolError(.backupFolderInvalid, ["path": folder, "reason": "notDirectory"]) }
        guard st.st_uid == getuid() else { throw ProtocolError(.backupFolderInvalid, ["path": folder, "reason": "notOwned"]) }
    }

    /// Writes a new file (0600), never over an existing one.
    static func writeNew(_ bytes: [UInt8], to path: String) throws {
        guard path.hasPrefix("/") else { throw ProtocolError(.badRequest, ["reason": "a backup's path must be absolute"]) }
        do {
            try bytes.withUnsafeBytes { try POSIXFileSystem().writeNewFile(at: path, contents: $0) }
        } catch StoreError.io(_, _, EEXIST) {
            throw ProtocolError(.fileExists, ["path": path])
        } catch {
            // Made here and not whole (a full disk): removed, so no cut-off backup is left behind.
            unlink(path)
            throw error
        }
    }

    static func fileStamp(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd-HHmmss"
        return f.string(from: date)
    }

    // MARK: Restoring

    /// Restores a backup's bytes opened with its own password (G59): as new vaults beside the open vault's,
    /// or in place of everything the open vault holds (the local vault only). One save: a failure leaves
    /// the vault as it was (G60). The backup's phrase keys join the open vault's keyrings (G9).
    func restore(_ bytes: [UInt8], password: SecretText, mode: String, language: Language = .english, repeated: Int = 0, foreign: Int = 0) throws -> RestoredReply {
        guard mode == "new" || mode == "replace" else { throw ProtocolError(.invalidSetting, ["name": "mode", "value": String(mode.prefix(20))]) }
        if mode == "replace", opened.isAccountVault { throw ProtocolError(.localVaultOnly) }
        let contents = try BackupFile.open(bytes, password: VaultService.lockedCopy(password))
        let backup = contents.vault
        // What another Passbox wrote is checked as an edit would be (G77: one-time code periods and counters,
        // field limits…), and its ids must be distinct, before anything is written.
        let brought = backup.items + backup.hiddenItems
        for item in brought { _ = try item.validated() }
        let ids = brought.map(\.id)
        guard Set(ids).count == ids.count, Set(backup.vaults.map(\.id)).count == backup.vaults.count else { throw BackupError.notABackup }
        // Vault names as `vault create` and `vault edit` take them: within the limit, without control characters, distinct.
        let vaultNames = try backup.vaults.map { try Self.checkedName($0.name).lowercased() }
        guard Set(vaultNames).count == vaultNames.count else { throw BackupError.notABackup }
        var names: [String] = []
        try update { v in
            var keyrings = v.keyrings
            for k in backup.keyrings.killphrase where !keyrings.killphrase.contains(k) { keyrings.killphrase.append(k) }
            for k in backup.keyrings.searchPassphrase where !keyrings.searchPassphrase.contains(k) { keyrings.searchPassphrase.append(k) }
            if mode == "replace" {
                // An item naming a vault the backup does not have belongs to its first vault.
                let known = Set(backup.vaults.map(\.id))
                func placed(_ item: Item) -> Item {
                    var copy = item
                    if let id = copy.vaultID, !known.contains(id) { copy.vaultID = nil }
                    return copy
                }
                v.items = backup.items.map(placed)
                v.hiddenItems = backup.hiddenItems.map(placed)
                v.vaults = backup.vaults
                v.lastBreachCheck = backup.lastBreachCheck
                v.keyrings = keyrings
                names = backup.vaults.map(\.name)
                return
            }
            if v.vaults.isEmpty {
                // As at `vault create`: the items of a file without vaults go into a first vault, made now.
                try AccountSync.makeVault(&v, name: "Personal", icon: nil, colour: nil, now: now())
                for i in v.items.indices where v.items[i].vaultID == nil {
                    if v.sync != nil { v.items[i].markSyncPending() }
                    v.items[i].vaultID = v.vaults[0].id
                }
            }
            let sources = backup.vaults.isEmpty ? [VaultInfo(id: "", name: "Personal")] : backup.vaults
            var mapped: [String: String] = [:]
            for source in sources {
                // The source's name cut first, so the suffix and the number always fit the limit.
                let base = Localization.tr("backup.restoredName", language, ["name": String(source.name.prefix(VaultInfo.nameLimit - 30))])
                var name = base
                var n = 2
                while v.vaults.contains(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) {
                    name = base + " \(n)"
                    n += 1
                }
                try AccountSync.makeVault(&v, name: name, icon: source.icon, colour: source.colour, now: now())
                mapped[source.id] = v.vaults.last!.id
                names.append(v.vaults.last!.name)
            }
            let firstSource = sources[0].id
            func brought(_ item: Item) -> Item {
                var copy = item
                copy.id = Identifier.generateItemID()
                copy.vaultID = mapped[item.vaultID ?? firstSource] ?? mapped[firstSource]
                copy.syncBase = nil
                copy.syncPending = v.sync != nil
                return copy
            }
            v.items += backup.items.map(brought)
            v.hiddenItems += backup.hiddenItems.map(brought)
            v.keyrings = keyrings
        }
        return RestoredReply(
            mode: mode, items: backup.items.filter { !$0.isTrashed }.count, trashed: backup.items.filter(\.isTrashed).count, vaults: names, made: contents.made,
            repeatedCodes: repeated, foreignCodes: foreign)
    }

    func restore(_ r: BackupRestoreRequest) throws -> RestoredReply {
        let language: Language = r.language == "de" ? .german : .english
        if let codes = r.codes {
            let assembled: BackupShards.Assembled
            do {
                assembled = try BackupShards.assemble(codes)
            } catch {
                throw BackupError.shards(error)
            }
            return try restore(assembled.bytes, password: r.password, mode: r.mode, language: language, repeated: assembled.repeated, foreign: assembled.foreign)
        }
        if let base64 = r.base64 {
            guard let data = Data(base64Encoded: base64) else { throw BackupError.notABackup }
            return try restore(Array(data), password: r.password, mode: r.mode, language: language)
        }
        guard let path = r.path else { throw ProtocolError(.badRequest, ["reason": "backup-restore needs path, base64 or codes"]) }
        var reply = try restore(try Self.readBackupFile(path), password: r.password, mode: r.mode, language: language)
        // The attachments' files the restored items refer to, from `blobs/` beside the backup file.
        let folder = (path as NSString).deletingLastPathComponent + "/blobs"
        var restored = 0, missing = 0
        var seen = Set<String>()
        for item in vault.items + vault.hiddenItems {
            for a in item.referencedBlobs where seen.insert(a.id).inserted && !blobs.exists(a.id) {
                // The vault is restored already: a blob missing or damaged there is counted, not kept, and
                // the attachment is listed as not on this device.
                if (try? blobs.restore(a, from: folder)) == true { restored += 1 } else { missing += 1 }
            }
        }
        if restored > 0 { blobState.mayHaveBlobs = true }
        (reply.attachmentsRestored, reply.attachmentsMissing) = (restored, missing)
        return reply
    }

    /// The blob ids a backup of this vault refers to (items, hidden items and their history).
    func backedUpBlobs() -> [String] { Self.referencedBlobs(vault).sorted() }

    /// Copies the attachments' blobs into `blobs/` in the folder of a backup file written at `path`.
    func copyAttachments(besideBackup path: String) throws -> Int {
        let ids = backedUpBlobs()
        guard !ids.isEmpty else { return 0 }
        return try blobs.copy(ids, to: (path as NSString).deletingLastPathComponent + "/blobs")
    }

    /// A backup file's bytes, refusing anything larger than a backup can be.
    static func readBackupFile(_ path: String) throws -> [UInt8] {
        var st = stat()
        guard stat(path, &st) == 0 else { throw ProtocolError(.io, ["operation": "read", "path": path, "reason": String(cString: strerror(errno))]) }
        guard Int(st.st_size) <= BackupFile.expandedLimit * 2 else { throw BackupError.tooLarge(limitMiB: BackupFile.expandedLimit >> 20) }
        guard let data = FileManager.default.contents(atPath: path) else { throw ProtocolError(.io, ["operation": "read", "path": path, "reason": "unreadable"]) }
        return Array(data)
    }
}
