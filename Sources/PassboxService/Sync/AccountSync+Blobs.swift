import Foundation
import PassboxClient
import PassboxCore
import PassboxProtocol
import PassboxStore

/// Attachments on the account's server: a blob goes up before the first push of an item that refers to it,
/// so no device ever pulls a reference whose blob the server lacks; a blob comes down when it is first read
/// on another device (`VaultService.fetchBlob`), checked whole before it is kept.
extension AccountSync {
    /// Uploads the blobs of items waiting to be pushed (and of the versions in their history) that this
    /// device has and the server does not yet have whole. A failure stops the sync before anything is pushed.
    func uploadBlobs() throws -> Int {
        let (blobs, waiting) = try step { () -> (BlobStore, [(id: String, length: Int)]) in
            let blobs = session.blobs
            var waiting: [(id: String, length: Int)] = []
            var seen = Set<String>()
            for item in session.vault.items where item.syncPending {
                for a in item.referencedBlobs where seen.insert(a.id).inserted {
                    guard !blobs.isUploaded(a.id), let length = blobs.length(a.id) else { continue }
                    waiting.append((a.id, length))
                }
            }
            return (blobs, waiting)
        }
        // Each part is read in a step (the blob is ciphertext, but a lock between parts stops the upload).
        for (id, length) in waiting {
            try client.uploadBlob(id: id, length: length) { range in try step { try blobs.read(id, range: range) } }
            try step { try blobs.markUploaded(id) }
        }
        return waiting.count
    }

    /// The server refused a push for lacking blobs: those it named that the push declared are sent again
    /// (an id the push did not declare is a bad answer).
    func uploadAgain(_ ids: [String], declared: [String]) throws {
        let declared = Set(declared)
        guard !ids.isEmpty, ids.allSatisfy(declared.contains) else { throw ProtocolError(.badServerAnswer, ["server": client.origin, "status": "409"]) }
        let blobs = try step { session.blobs }
        for id in ids {
            guard let length = try step({ () -> Int? in
                blobs.unmarkUploaded(id)
                return blobs.length(id)
            }) else { continue }
            try client.uploadBlob(id: id, length: length) { range in try step { try blobs.read(id, range: range) } }
            try step { try blobs.markUploaded(id) }
        }
    }

    /// After a sync that pushed everything: blobs this device stopped referring to are removed from the server,
    /// unless an item refers to one again (a pulled change brought it back). The server removes them only
    /// while the account is at the revision this device has seen whole; otherwise they wait for the next sync,
    /// as they do when the server cannot be reached. Housekeeping: it never fails the sync.
    func removeServerBlobs() {
        let found = try? step { () -> (BlobStore, [String], Int64)? in
            let blobs = session.blobs
            let pending = blobs.pendingRemovals()
            guard !pending.isEmpty else { return nil }
            // Only when this device's view is the server's: everything pushed, nothing it cannot open. Otherwise an
            // item on the server this device does not show may still refer to a blob; they wait for a later sync.
            // (Items of shared vaults refer to no blob: theirs wait in their own sync.)
            let sync = session.vault.sync
            guard !state.holdsUnpushedWork, !session.vault.items.contains(where: { $0.syncPending && sync?.org(of: $0.vaultID ?? "") == nil }) else { return nil }
            let referenced = VaultSession.referencedBlobs(session.vault)
            for id in pending where referenced.contains(id) { blobs.forgetRemoval(id) }
            return (blobs, pending.filter { !referenced.contains($0) }, state.seenRevision)
        }
        guard let (blobs, ids, seenRevision) = found ?? nil else { return }
        var start = 0
        while start < ids.count {
            let slice = Array(ids[start..<min(ids.count, start + BlobTransfer.removalLimit)])
            start += slice.count
            guard (try? client.removeBlobs(revision: seenRevision, ids: slice)) != nil else { return }
            do {
                try step { () -> Void in for id in slice { blobs.forgetRemoval(id) } }
            } catch {
                return
            }
        }
    }
}

extension VaultService {
    /// Fetches an attachment's blob from the account's server into this device's blobs (checked whole first);
    /// a blob the agent fetched off its queue for this request (`prefetchedBlob`) is taken from memory instead.
    func fetchBlob(_ attachment: Attachment) throws {
        guard let session else { throw ProtocolError(.locked) }
        if let fetched = prefetchedBlob, fetched.id == attachment.id {
            try session.blobs.install(attachment) { append in try fetched.bytes.withUnsafeBytes { try append($0) } }
        } else {
            let record = try signedInRecord()
            let client = try SyncClient(server: record.server, token: record.token!)
            try session.blobs.install(attachment) { append in
                try client.downloadBlob(id: attachment.id, length: AttachmentFormat.blobLength(attachment.size)) { bytes in
                    try bytes.withUnsafeBytes { try append($0) }
                }
            }
        }
        // It came from the server, so the server has it whole.
        try? session.blobs.markUploaded(attachment.id)
    }

    /// The largest attachment whose blob the agent downloads off its queue (the web UI's reading limit).
    public static let prefetchLimit = 64 << 20

    /// The blob a request to save an attachment will fetch from the server (its id and length), or nil when it
    /// is on this device already or none is needed: the agent fetches it off its queue first.
    public func blobToFetch(_ request: SaveAttachmentRequest) -> (id: String, length: Int)? {
        guard let session, store.isAccountVault, let item = try? session.resolve(request.item), item.sealed == nil,
            let found = try? VaultSession.find(request.attachment, in: item)
        else { return nil }
        let attachment = request.thumbnail == true && request.path == nil ? (found.blobs.count > 1 ? found.blobs[1] : found) : found
        // Held in memory between the two turns: a larger one is fetched in the request's turn, as before.
        guard !session.blobs.exists(attachment.id), attachment.size <= Self.prefetchLimit else { return nil }
        return (attachment.id, AttachmentFormat.blobLength(attachment.size))
    }

    /// Downloads a blob's bytes as the server has them (ciphertext; checked against its attachment only when
    /// installed, on the vault's queue). Needs the data directory and the network only.
    public static func downloadBlob(id: String, length: Int, dataDirectory: String) throws -> [UInt8] {
        guard let record = try AccountRecord.load(dataDirectory), let token = record.token else { throw ProtocolError(.notSignedIn) }
        let client = try SyncClient(server: record.server, token: token)
        var bytes = [UInt8]()
        bytes.reserveCapacity(length)
        try client.downloadBlob(id: id, length: length) { part in bytes += part }
        return bytes
    }
}
