import Foundation

/// A file kept with an item (a document's pages, a photo, any file): its name, type and size, and the random
/// key its encrypted copy (the blob) is sealed under. The reference lives inside the encrypted item, so the
/// blob alone says nothing of the file but its padded size (security.md §4; docs/FORMATS.md "Attachments").
public struct Attachment: Sendable, Equatable {
    /// The blob's name: 32 lower-case hex digits (128 random bits), also bound into every chunk.
    public var id: String
    /// The file's name as the user gave it (no folder).
    public var name: String
    /// Its media type ("image/png", "application/pdf"; "application/octet-stream" when unknown).
    public var mediaType: String
    /// The file's length in bytes (the blob is longer: padded, see `AttachmentFormat`).
    public var size: Int
    /// The 32-byte secretstream key of this file alone.
    public var key: [UInt8]
    public var added: Date
    /// The blob format (1).
    public var format: Int
    /// A small JPEG of an image, made when it was attached and encrypted as a blob of its own.
    public var thumbnail: AttachmentThumbnail?
    /// Keys written by a newer Passbox, kept unchanged.
    public var unknown: [String: PackedValue]

    public init(id: String, name: String, mediaType: String, size: Int, key: [UInt8], added: Date, format: Int = AttachmentFormat.version) {
        self.id = id
        self.name = name
        self.mediaType = mediaType
        self.size = size
        self.key = key
        self.added = added
        self.format = format
        unknown = [:]
    }

    /// Whether `id` could name a blob (so a hostile item cannot name a path).
    public static func isValidID(_ id: String) -> Bool {
        id.utf8.count == 32 && id.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    /// Whether the file is an image a browser shows (the web UI's thumbnails and viewer).
    public var isImage: Bool { ["image/png", "image/jpeg", "image/gif", "image/webp"].contains(mediaType) }

    /// Every blob of this attachment as a reference that opens it: the file's, and its thumbnail's.
    public var blobs: [Attachment] {
        guard let t = thumbnail else { return [self] }
        return [self, Attachment(id: t.id, name: name + " (thumbnail)", mediaType: "image/jpeg", size: t.size, key: t.key, added: added)]
    }
}

extension Item {
    /// Every blob the item refers to, as references that open them: its attachments' and their thumbnails',
    /// and those of the versions in its history (which a restore can bring back).
    public var referencedBlobs: [Attachment] {
        (attachments + history.flatMap(\.item.attachments)).flatMap(\.blobs)
    }
}

/// An image attachment's thumbnail: a JPEG of at most 320 pixels a side, in a blob of its own under a key of
/// its own (the same format as any attachment's).
public struct AttachmentThumbnail: Sendable, Equatable {
    public var id: String
    public var size: Int
    public var key: [UInt8]
    public init(id: String, size: Int, key: [UInt8]) {
        self.id = id
        self.size = size
        self.key = key
    }
}

/// The blob format, version 1 (docs/FORMATS.md "Attachments"): a secretstream header (24 bytes), then the
/// file padded with zeros to its bucket, in chunks of 64 KiB, each sealed as one message (17 bytes more) with
/// the associated data `"passbox/v1/attachment" | id`; the last chunk is tagged final. No byte of a blob is
/// in the clear but the random header, so blobs and cover blobs look alike.
public enum AttachmentFormat {
    public static let version = 1
    public static let chunkSize = 64 * 1024
    public static let headerLength = 24
    public static let chunkOverhead = 17
    /// The largest file kept: 4 GiB.
    public static let maximumSize = 4 << 30

    /// The padded length: at least one chunk, then rounded up to a step of an eighth of the size's power of
    /// two (never less than a chunk), so a blob's length tells the file's size to within 12.5 %.
    public static func paddedSize(_ size: Int) -> Int {
        guard size > chunkSize else { return chunkSize }
        let highBit = Int.bitWidth - 1 - size.leadingZeroBitCount
        let step = max(chunkSize, 1 << max(0, highBit - 3))
        return (size + step - 1) / step * step
    }

    /// The blob's length for a file of `size` bytes.
    public static func blobLength(_ size: Int) -> Int {
        let chunks = paddedSize(size) / chunkSize
        return headerLength + chunks * (chunkSize + chunkOverhead)
    }

    /// The associated data of every chunk of the blob `id`.
    public static func associatedData(id: String) -> [UInt8] { Array("passbox/v1/attachment|\(id)".utf8) }

    /// A media type from a file name's extension (what a browser needs to show it); octet-stream otherwise.
    public static func mediaType(forName name: String) -> String {
        let ext = (name as NSString).pathExtension.lowercased()
        let known: [String: String] = [
            "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp", "pdf": "application/pdf",
            "txt": "text/plain", "md": "text/markdown", "csv": "text/csv", "json": "application/json", "zip": "application/zip",
            "heic": "image/heic", "tif": "image/tiff", "tiff": "image/tiff",
        ]
        return known[ext] ?? "application/octet-stream"
    }
}

extension Attachment {
    func pack(into w: inout MessagePackWriter) {
        w.writeMapHeader(7 + (thumbnail == nil ? 0 : 1) + unknown.count)
        w.write("id")
        w.write(id)
        w.write("name")
        w.write(name)
        w.write("type")
        w.write(mediaType)
        w.write("size")
        w.write(size)
        w.write("key")
        w.write(binary: key)
        w.write("added")
        w.write(added.passboxMilliseconds)
        w.write("format")
        w.write(format)
        if let t = thumbnail {
            w.write("thumbnail")
            w.writeMapHeader(3)
            w.write("id")
            w.write(t.id)
            w.write("size")
            w.write(t.size)
            w.write("key")
            w.write(binary: t.key)
        }
        w.writeUnknown(unknown)
    }

    init(unpacking r: inout MessagePackReader) throws {
        self.init(id: "", name: "", mediaType: "", size: 0, key: [], added: Date(timeIntervalSince1970: 0))
        for _ in 0..<(try r.readMapHeader()) {
            let key = try r.readString()
            switch key {
            case "id": id = try r.readString()
            case "name": name = try r.readString()
            case "type": mediaType = try r.readString()
            case "size": size = Int(try r.readInt())
            case "key": self.key = try r.readBinary()
            case "added": added = Date(passboxMilliseconds: try r.readInt())
            case "format": format = Int(try r.readInt())
            case "thumbnail":
                var t = AttachmentThumbnail(id: "", size: 0, key: [])
                for _ in 0..<(try r.readMapHeader()) {
                    switch try r.readString() {
                    case "id": t.id = try r.readString()
                    case "size": t.size = Int(try r.readInt())
                    case "key": t.key = try r.readBinary()
                    default: _ = try r.readValue()
                    }
                }
                guard Self.isValidID(t.id), t.key.count == 32, t.size >= 0, t.size <= AttachmentFormat.maximumSize else {
                    throw MessagePackError(reason: "an attachment's thumbnail is incomplete")
                }
                thumbnail = t
            default: unknown[key] = try r.readValue()
            }
        }
        guard Self.isValidID(id), self.key.count == 32, size >= 0, size <= AttachmentFormat.maximumSize else {
            throw MessagePackError(reason: "an attachment reference is incomplete")
        }
    }
}
