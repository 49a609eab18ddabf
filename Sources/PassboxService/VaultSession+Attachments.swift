import Foundation
import PassboxCore
import PassboxCrypto
import PassboxImaging
import PassboxInterop
import PassboxProtocol
import PassboxStore

/// Attachments: files kept with an item, each encrypted under a key of its own into a blob beside the vault
/// (`BlobStore`). The blob is written first and the item saved after it, so a failed save leaves only an
/// unreferenced blob, which is removed at once; a blob goes when no version of any item of this vault refers
/// to it any longer (`commit`, `removeBlobs`).
extension VaultSession {
    /// The most attachments one item keeps.
    static let attachmentsPerItem = 100
    /// The largest upload the web UI sends as base64 in one request.
    public static let uploadLimit = 64 << 20
    /// The images that get a thumbnail, and the largest file of one read whole to make it.
    static let thumbnailed: Set<String> = ["image/png", "image/jpeg"]
    static let thumbnailSourceLimit = 32 << 20

    public var blobs: BlobStore { opened.blobs }

    func attach(_ r: AttachRequest) throws -> AttachmentsReply {
        let item = try resolve(r.item)
        guard item.sealed == nil else { throw ProtocolError(.attachmentOnLockedItem, ["title": item.title]) }
        // Blobs are an account's own: the other members could not fetch a shared item's file (issue 32).
        if let vaultID = item.vaultID, vault.sync?.org(of: vaultID) != nil { throw ProtocolError(.invalidValue, ["reason": "attachment.shared"]) }
        guard item.attachments.count < Self.attachmentsPerItem else {
            throw ProtocolError(.invalidValue, ["reason": "attachment.tooMany", "limit": String(Self.attachmentsPerItem)])
        }
        let name = try Self.attachmentName(r.name ?? r.path.map { ($0 as NSString).lastPathComponent } ?? "")
        let mediaType = Self.checkedMediaType(r.mediaType) ?? AttachmentFormat.mediaType(forName: name)
        var attachment: Attachment
        var image: [UInt8]?
        if let path = r.path {
            guard path.hasPrefix("/") else { throw ProtocolError(.badRequest, ["reason": "a path must be absolute"]) }
            attachment = try blobs.add(file: path, name: name, mediaType: mediaType, now: now())
            if Self.thumbnailed.contains(mediaType), attachment.size <= Self.thumbnailSourceLimit {
                image = FileManager.default.contents(atPath: path).map(Array.init)
            }
        } else if let base64 = r.base64 {
            guard base64.utf8.count <= Self.uploadLimit / 3 * 4 + 4 else { throw AttachmentError.tooLarge(limitMiB: Self.uploadLimit >> 20) }
            guard let data = Data(base64Encoded: base64) else { throw ProtocolError(.badRequest, ["reason": "the upload is not base64"]) }
            var bytes = Array(data)
            if let uploadID = r.uploadID {
                // A part of a larger upload: kept in memory until the last part comes.
                guard (1...64).contains(uploadID.utf8.count), uploadID.utf8.allSatisfy({ $0 < 0x80 && (Character(UnicodeScalar($0)).isLetter || Character(UnicodeScalar($0)).isNumber || $0 == 0x2D) }) else {
                    throw ProtocolError(.badRequest, ["reason": "an upload id is 1 to 64 letters, digits or -"])
                }
                var pending = blobState.uploads.removeValue(forKey: uploadID) ?? (item.id, [])
                guard pending.itemID == item.id else { throw ProtocolError(.badRequest, ["reason": "the upload's parts name different items"]) }
                let held = blobState.uploads.values.reduce(0) { $0 + $1.bytes.count }
                guard held + pending.bytes.count + bytes.count <= Self.uploadLimit else {
                    ConstantTime.wipe(&pending.bytes)
                    throw AttachmentError.tooLarge(limitMiB: Self.uploadLimit >> 20)
                }
                pending.bytes += bytes
                ConstantTime.wipe(&bytes)
                if r.more == true {
                    guard blobState.uploads.count < 4 else {
                        ConstantTime.wipe(&pending.bytes)
                        throw ProtocolError(.badRequest, ["reason": "at most 4 uploads at once"])
                    }
                    blobState.uploads[uploadID] = pending
                    return attachmentsReply(item, changed: nil)
                }
                // The held bytes become the file's (no copy); they are wiped once attached.
                bytes = pending.bytes
                pending.bytes = []
            }
            defer { ConstantTime.wipe(&bytes) }
            attachment = try blobs.add(bytes: bytes, name: name, mediaType: mediaType, now: now())
            if Self.thumbnailed.contains(mediaType) { image = bytes }
        } else {
            throw ProtocolError(.badRequest, ["reason": "attach needs path or base64"])
        }
        blobState.mayHaveBlobs = true
        if var bytes = image {
            addThumbnail(&attachment, image: bytes)
            ConstantTime.wipe(&bytes)
        }
        do {
            try update(reindexing: { [item.id] }) { try $0.update(id: item.id, now: now()) { $0.attachments.append(attachment) } }
        } catch {
            for b in attachment.blobs { blobs.remove(b.id) }
            throw error
        }
        if opened.isLocalVault { writeCoverBlobs(near: attachment.size) }
        let saved = try resolve(item.id)
        return attachmentsReply(saved, changed: attachment)
    }

    /// A photo's or scan's thumbnail, made here and encrypted as a blob of its own; none when it cannot be made.
    func addThumbnail(_ attachment: inout Attachment, image: [UInt8]) {
        guard Self.thumbnailed.contains(attachment.mediaType), image.count <= Self.thumbnailSourceLimit else { return }
        guard var small = ParseChild.thumbnail(image) else { return }
        defer { ConstantTime.wipe(&small) }
        if let made = try? blobs.add(bytes: small, name: attachment.name, mediaType: "image/jpeg", now: now()) {
            attachment.thumbnail = AttachmentThumbnail(id: made.id, size: made.size, key: made.key)
        }
    }

    /// Files an import brings: each a new attachment (and thumbnail) on its item, and on the versions in its
    /// history (`versions`: by index); a file of the same pool reference is one blob wherever it appears. The
    /// caller removes the blobs if the save that follows fails.
    func storeImportedFiles(_ files: [ImportPlan.File], versions: [Int: [ImportPlan.File]] = [:], on item: inout Item) throws -> [String] {
        var made: [String] = []
        var byReference: [Int: Attachment] = [:]
        func attachment(_ file: ImportPlan.File, name: String) throws -> Attachment {
            if let r = file.reference, let done = byReference[r] {
                var shared = done
                shared.name = name
                return shared
            }
            var attachment = try blobs.add(bytes: file.bytes, name: name, mediaType: AttachmentFormat.mediaType(forName: name), now: now())
            addThumbnail(&attachment, image: file.bytes)
            made += attachment.blobs.map(\.id)
            if let r = file.reference { byReference[r] = attachment }
            return attachment
        }
        func named(_ file: ImportPlan.File) -> String {
            let name = file.name.replacingOccurrences(of: "/", with: "_").trimmingCharacters(in: .whitespaces)
            return (try? Self.attachmentName(name)) == nil ? "attachment" : name
        }
        do {
            for file in files.prefix(Self.attachmentsPerItem) { item.attachments.append(try attachment(file, name: named(file))) }
            for (index, list) in versions.sorted(by: { $0.key < $1.key }) where item.history.indices.contains(index) {
                item.history[index].item.attachments = try list.prefix(Self.attachmentsPerItem).map { try attachment($0, name: named($0)) }
            }
        } catch {
            for id in made { blobs.remove(id) }
            throw error
        }
        blobState.mayHaveBlobs = true
        return made
    }

    func listAttachments(_ r: AttachmentsRequest) throws -> AttachmentsReply {
        attachmentsReply(try resolve(r.item), changed: nil)
    }

    func detach(_ r: AttachmentsRequest) throws -> AttachmentsReply {
        let item = try resolve(r.item)
        let attachment = try Self.find(r.attachment ?? "", in: item)
        try update(reindexing: { [item.id] }) { try $0.update(id: item.id, now: now()) { $0.attachments.removeAll { $0.id == attachment.id } } }
        return attachmentsReply(try resolve(item.id), changed: attachment)
    }

    /// Decrypts an attachment into a new 0600 file, or (no path: the web UI) into the reply.
    func saveAttachment(_ r: SaveAttachmentRequest) throws -> AttachmentSavedReply {
        let item = try resolve(r.item)
        guard item.sealed == nil else { throw ProtocolError(.attachmentOnLockedItem, ["title": item.title]) }
        let found = try Self.find(r.attachment, in: item)
        // The thumbnail only for the page, never written to a path.
        let attachment = r.thumbnail == true && r.path == nil ? (found.blobs.count > 1 ? found.blobs[1] : found) : found
        try fetchMissingBlob(attachment)
        guard let path = r.path else {
            guard attachment.size <= Self.uploadLimit else { throw AttachmentError.tooLarge(limitMiB: Self.uploadLimit >> 20) }
            var bytes = [UInt8]()
            bytes.reserveCapacity(attachment.size)
            try blobs.read(attachment) { bytes.append(contentsOf: $0) }
            defer { ConstantTime.wipe(&bytes) }
            return AttachmentSavedReply(name: attachment.name, mediaType: attachment.mediaType, size: attachment.size, path: nil, base64: Data(bytes).base64EncodedString())
        }
        guard path.hasPrefix("/") else { throw ProtocolError(.badRequest, ["reason": "a path must be absolute"]) }
        do {
            try POSIXFileSystem().writeNewFile(at: path) { append in try blobs.read(attachment, into: append) }
        } catch StoreError.io(_, _, EEXIST) {
            throw ProtocolError(.fileExists, ["path": path])
        } catch {
            // Made here and not whole (damage found part-way, a full disk): removed, so no cut-off file is left.
            unlink(path)
            throw error
        }
        try? markUsed(item.id)
        return AttachmentSavedReply(name: attachment.name, mediaType: attachment.mediaType, size: attachment.size, path: path, base64: nil)
    }

    func attachmentsReply(_ item: Item, changed: Attachment?) -> AttachmentsReply {
        AttachmentsReply(itemID: item.id, title: item.title, attachments: item.attachments.map(view), changed: changed.map(view))
    }

    func view(_ a: Attachment) -> AttachmentView {
        var v = AttachmentView(id: a.id, name: a.name, mediaType: a.mediaType, size: a.size, added: a.added, available: blobs.exists(a.id))
        if a.thumbnail != nil { v.thumbnail = true }
        return v
    }

    /// The attachment a reference names: its id, an id prefix of at least 6 characters, or its exact name.
    static func find(_ reference: String, in item: Item) throws -> Attachment {
        if let a = item.attachments.first(where: { $0.id == reference }) { return a }
        let named = item.attachments.filter { $0.name == reference }
        if named.count == 1 { return named[0] }
        if named.count > 1 { throw ProtocolError(.attachmentAmbiguous, ["title": item.title, "attachment": reference, "count": String(named.count)]) }
        let prefixed = reference.count >= 6 ? item.attachments.filter { $0.id.hasPrefix(reference.lowercased()) } : []
        if prefixed.count == 1 { return prefixed[0] }
        throw ProtocolError(.attachmentNotFound, ["title": item.title, "attachment": reference, "names": item.attachments.map(\.name).joined(separator: ", ")])
    }

    /// A name as kept: one line, no folder, at most 255 characters.
    static func attachmentName(_ raw: String) throws -> String {
        let name = raw.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), name.count <= 255,
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw ProtocolError(.invalidValue, ["reason": "attachment.name"])
        }
        return name
    }

    /// A media type as given, when it has the shape type/subtype; nil otherwise (then told by the name).
    static func checkedMediaType(_ raw: String?) -> String? {
        guard let raw, raw.count <= 100 else { return nil }
        let parts = raw.lowercased().split(separator: "/", omittingEmptySubsequences: false)
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789.+-")
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(allowed.contains) }) else { return nil }
        return raw.lowercased()
    }

    /// Records use of the item without a version (as copying a field does).
    func markUsed(_ id: String) throws {
        try updateNaming([id]) { try $0.markUsed(id: id, now: now()) }
    }

    /// Cover blobs after a local vault's attach (security.md §7 as extended in docs/SECURITY.md): none, one or
    /// two, each as long as a blob of a file between a quarter of this one and this one (log-uniform). No slot
    /// refers to them, so a slot opened under duress cannot tell another slot's blobs from covers its own
    /// attaches wrote. A failure to write one leaves the attach done.
    func writeCoverBlobs(near size: Int) {
        let count = Int(SecureRandom.uniform(3))
        for _ in 0..<count {
            let low = log(Double(max(size / 4, 1)))
            let high = log(Double(max(size, 2)))
            let fraction = Double(SecureRandom.uniform(1 << 20)) / Double(1 << 20)
            try? blobs.addCover(size: Int(exp(low + (high - low) * fraction)))
        }
    }

    /// Every blob id an item or a version in its history refers to.
    static func referencedBlobs(_ vault: Vault) -> Set<String> {
        var ids = Set<String>()
        for item in vault.items { for b in item.referencedBlobs { ids.insert(b.id) } }
        for item in vault.hiddenItems { for b in item.referencedBlobs { ids.insert(b.id) } }
        return ids
    }

    /// After a save: blobs this vault referred to before and no longer does (`commit` finds them) are removed.
    /// Only this vault's own ids can be removed (their ids are random), never another slot's or a cover blob. An
    /// account's vault also has them removed from its server at the next sync (`AccountSync.removeServerBlobs`).
    func removeBlobs(_ gone: Set<String>) {
        let account = vault.sync != nil
        for id in gone { blobs.remove(id, fromServer: account) }
    }

    /// For an account's vault, a blob another device made is fetched from the server when first read.
    func fetchMissingBlob(_ attachment: Attachment) throws {
        guard !blobs.exists(attachment.id) else { return }
        if let fetch = blobFetcher { try fetch(attachment) }
        guard blobs.exists(attachment.id) else { throw AttachmentError.missing(name: attachment.name) }
    }
}
