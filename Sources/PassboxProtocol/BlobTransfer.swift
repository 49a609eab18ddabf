/// How a blob travels between a device and the server (docs/PROTOCOL.md "Blobs"): in parts of 512 KiB, the
/// last one shorter, each its own request (under the server's 1 MiB body limit), so neither side holds more
/// than a part of it in memory.
public enum BlobTransfer {
    public static let partLength = 512 * 1024
    /// The header that carries a blob's whole length with each part.
    public static let lengthHeader = "X-Passbox-Blob-Length"

    public static func parts(_ length: Int) -> Int { (length + partLength - 1) / partLength }

    public static func partRange(_ part: Int, length: Int) -> Range<Int> {
        part * partLength..<min(length, (part + 1) * partLength)
    }
}
