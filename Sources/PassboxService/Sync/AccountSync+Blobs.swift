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
        let blobs = session.blobs
        var sent = 0
        var seen = Set<String>()
        for item in session.vault.items where item.syncPending {
            for a in item.referencedBlobs where seen.insert(a.id).inserted {
                guard !blobs.isUploaded(a.id), let length = blobs.length(a.id) else { continue }
                try client.uploadBlob(id: a.id, length: length) { try blobs.read(a.id, range: $0) }
                try blobs.markUploaded(a.id)
                sent += 1
            }
        }
        return sent
    }
}

extension VaultService {
    /// Fetches an attachment's blob from the account's server into this device's blobs (checked whole first).
    func fetchBlob(_ attachment: Attachment) throws {
        guard let session else { throw ProtocolError(.locked) }
        let record = try signedInRecord()
        let client = try SyncClient(server: record.server, token: record.token!)
        try session.blobs.install(attachment) { append in
            try client.downloadBlob(id: attachment.id, length: AttachmentFormat.blobLength(attachment.size)) { bytes in
                try bytes.withUnsafeBytes { try append($0) }
            }
        }
        // It came from the server, so the server has it whole.
        try? session.blobs.markUploaded(attachment.id)
    }
}
