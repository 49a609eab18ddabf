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
}
