/// How a blob travels between a device and the server (docs/PROTOCOL.md "Blobs"): in parts of 512 KiB, the
/// last one shorter, each its own request (under the server's 1 MiB body limit), so neither side holds more
/// than a part of it in memory.
public enum BlobTransfer {
    public static let partLength = 512 * 1024
    /// The header that carries a blob's whole length with each part.
    public static let lengthHeader = "X-Passbox-Blob-Length"

    public static func parts(_ length: Int) -> Int { (length + partLength - 1) / partLength }

    /// A blob's id as the server takes it: 32 lower-case hex digits (the same rule as `Attachment.isValidID`).
    public static func isValidID(_ id: String) -> Bool {
        id.utf8.count == 32 && id.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    /// The longest blob there can be: a 4 GiB file's, a 24-byte header and 65,536 chunks of 64 KiB + 17
    /// (`AttachmentFormat.blobLength(AttachmentFormat.maximumSize)`, which a test compares).
    public static let maximumLength = 24 + 65_536 * (65_536 + 17)

    public static func partRange(_ part: Int, length: Int) -> Range<Int> {
        part * partLength..<min(length, (part + 1) * partLength)
    }

    /// The most blob ids one `POST /v1/blobs/remove` names.
    public static let removalLimit = 1_000
    /// The most blob ids one push declares (`SyncPushRequest.blobs`): 2,000 ids are about 70 KB of the
    /// body's 1 MiB, beside at most 512 KiB of envelopes.
    public static let declaredLimit = 2_000
}

/// `POST /v1/blobs/remove`: blobs no item of the account refers to any longer, as the device saw the account
/// at `revision`. The server removes them only while the account is still at that revision (else
/// `syncConflict`: a push since may refer to one of them, and the device looks again after its next pull).
public struct BlobRemovalRequest: Codable, Sendable, Equatable {
    public var revision: Int64
    public var ids: [String]
    public init(revision: Int64, ids: [String]) {
        self.revision = revision
        self.ids = ids
    }
}

public struct BlobRemovalReply: Codable, Sendable, Equatable {
    /// How many of the ids the server had (the rest were gone already).
    public var removed: Int
    /// The account's blob bytes left.
    public var usedBytes: Int64
    public init(removed: Int, usedBytes: Int64) {
        self.removed = removed
        self.usedBytes = usedBytes
    }
}
