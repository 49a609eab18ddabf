import Foundation

/// `attach`: a file kept with an item, encrypted under a key of its own (docs/PROTOCOL.md "Attachments"). The
/// file comes from `path` (the CLI: the agent reads it a chunk at a time) or `base64` (the web UI's upload);
/// `name` defaults to the path's last part, `mediaType` to one told by the name's extension. An upload
/// larger than one request comes in parts: each with the same `uploadID` (the page's random id) and `more`
/// true but the last; the agent keeps the parts in memory only (at most 64 MiB in all, dropped at lock) and
/// attaches the file when the last part comes.
public struct AttachRequest: Codable, Sendable {
    public var item: String
    public var path: String?
    public var base64: String?
    public var name: String?
    public var mediaType: String?
    public var uploadID: String?
    public var more: Bool?
    public init(item: String, path: String? = nil, base64: String? = nil, name: String? = nil, mediaType: String? = nil, uploadID: String? = nil, more: Bool? = nil) {
        self.item = item
        self.path = path
        self.base64 = base64
        self.name = name
        self.mediaType = mediaType
        self.uploadID = uploadID
        self.more = more
    }
}

/// `attachments` (list an item's files) and `detach` (remove `attachment` from the item; its blob goes when
/// no version of the item in history keeps it).
public struct AttachmentsRequest: Codable, Sendable {
    public var item: String
    public var attachment: String?
    public init(item: String, attachment: String? = nil) {
        self.item = item
        self.attachment = attachment
    }
}

/// `save-attachment`: the file decrypted into `path`, a new file (0600), never over one. The web UI asks
/// for `base64` instead (`path` nil), which the reply carries; with `thumbnail` it gets an image's thumbnail
/// (a JPEG the agent made when it was attached) when there is one, else the file.
public struct SaveAttachmentRequest: Codable, Sendable {
    public var item: String
    public var attachment: String
    public var path: String?
    public var thumbnail: Bool?
    public init(item: String, attachment: String, path: String?, thumbnail: Bool? = nil) {
        self.item = item
        self.attachment = attachment
        self.path = path
        self.thumbnail = thumbnail
    }
}

/// One attachment as listed: never its key.
public struct AttachmentView: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var mediaType: String
    public var size: Int
    public var added: Date
    /// Whether its encrypted file is on this device (an account's attachment may still be on the server).
    public var available: Bool
    /// Whether the agent made a thumbnail of it (an image).
    public var thumbnail: Bool?
    public init(id: String, name: String, mediaType: String, size: Int, added: Date, available: Bool) {
        self.id = id
        self.name = name
        self.mediaType = mediaType
        self.size = size
        self.added = added
        self.available = available
    }
}

/// An item's attachments (after `attach` and `detach` too: `changed` names the one added or removed).
public struct AttachmentsReply: Codable, Sendable, Equatable {
    public var itemID: String
    public var title: String
    public var attachments: [AttachmentView]
    public var changed: AttachmentView?
    public init(itemID: String, title: String, attachments: [AttachmentView], changed: AttachmentView? = nil) {
        self.itemID = itemID
        self.title = title
        self.attachments = attachments
        self.changed = changed
    }
}

/// What `save-attachment` wrote (`path`), or the file itself (`base64`, for the web UI).
public struct AttachmentSavedReply: Codable, Sendable, Equatable {
    public var name: String
    public var mediaType: String
    public var size: Int
    public var path: String?
    public var base64: String?
    public init(name: String, mediaType: String, size: Int, path: String?, base64: String?) {
        self.name = name
        self.mediaType = mediaType
        self.size = size
        self.path = path
        self.base64 = base64
    }
}
