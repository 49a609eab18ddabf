import Foundation
import PassboxCrypto
import PassboxStore

/// The XML inside a KDBX file: `KeePassFile` with `Meta` and `Root`. Protected values are XORed with the
/// inner stream in document order, so they are opened (and sealed) in exactly that order.
enum KeePassXML {
    /// Seconds from 0001-01-01 (KDBX 4's epoch) to 1970-01-01.
    static let epochOffset: Int64 = 62_135_596_800

    /// `inflateBudget`: what KDBX 3.1's compressed `<Binary>` elements may inflate to, all together.
    ///
    /// Read as it streams: each protected value is opened as its element closes (document order, as the inner
    /// stream requires), each entry of a group becomes a `KeePassEntry` as it closes and leaves the tree, and
    /// a KDBX 3.1 file's attachments (in `Meta`, before `Root`) go into the pool as their list closes; only
    /// the groups' own elements stay as a tree. So the XML is never held whole as nodes (issue 30).
    static func read(_ xml: [UInt8], stream: StreamCipher, binaries: [[UInt8]]?, inflateBudget: Int = KDBXFile.inflatedLimit) throws -> KeePassDatabase {
        var pool = binaries ?? []
        var budget = inflateBudget
        var readBinaries = binaries != nil
        // Entries by the group element they are in; the group elements are kept here too, so none is freed
        // and its identifier reused while the parse goes on.
        var entries: [ObjectIdentifier: [KeePassEntry]] = [:]
        var groups: [XMLTree] = []
        // KDBX 3.1's attachments are in Meta, which KeePass writes before Root; should a file put it after,
        // the references are checked once the whole pool is known.
        let poolKnown = binaries != nil
        /// KeePassFile/Root/Group, KeePassFile/Root/Group/Group, …: where entries are read, as before.
        func isGroupPath(_ path: [XMLTree]) -> Bool {
            path.count >= 3 && path[0].name == "KeePassFile" && path[1].name == "Root" && path[2...].allSatisfy { $0.name == "Group" }
        }
        let document = try XMLTree.parse(xml) { node, path in
            switch node.name {
            case "Value" where node.attributes["Protected"]?.lowercased() == "true":
                try unprotect(node, stream: stream)
                return false
            case "Binaries" where !readBinaries && path.count == 2 && path[0].name == "KeePassFile" && path[1].name == "Meta":
                // KDBX 3.1 keeps attachments in Meta, base64, gzip-compressed when marked so (the first list only).
                readBinaries = true
                for binary in node.children("Binary") {
                    guard let id = binary.attributes["ID"].flatMap(Int.init), id >= 0, id < 100_000 else { throw InteropError.damaged(reason: "an attachment without its id") }
                    guard var data = Data(base64Encoded: withoutWhitespace(binary.text)).map(Array.init) else { throw InteropError.damaged(reason: "an attachment is not base64") }
                    if binary.attributes["Compressed"]?.lowercased() == "true" {
                        data = try KDBXFile.inflate(data, budget: budget)
                        budget -= data.count
                    }
                    while pool.count <= id { pool.append([]) }
                    pool[id] = data
                }
                return true
            case "Entry" where isGroupPath(path):
                let group = path[path.count - 1]
                if entries[ObjectIdentifier(group)] == nil { groups.append(group) }
                entries[ObjectIdentifier(group), default: []].append(try entry(node, poolSize: poolKnown ? pool.count : Int.max))
                return true
            default:
                return false
            }
        }
        guard document.name == "KeePassFile", let root = document.child("Root"), let top = root.child("Group") else {
            throw InteropError.damaged(reason: "its XML is not a KeePass database")
        }
        if !poolKnown {
            for list in entries.values {
                for e in list where (e.attachments + e.history.flatMap(\.attachments)).contains(where: { $0.reference >= pool.count }) {
                    throw InteropError.damaged(reason: "an attachment refers to nothing")
                }
            }
        }
        let meta = document.child("Meta")
        let recycleBin = meta?.child("RecycleBinUUID").flatMap { uuid($0.text) }
        let enabled = meta?.child("RecycleBinEnabled")?.text.lowercased() != "false"
        return KeePassDatabase(name: meta?.child("DatabaseName")?.text ?? "", root: group(top, entries: entries), recycleBin: enabled ? recycleBin : nil, binaries: pool)
    }

    /// Base64 text without its white space: ASCII text (all base64 is) byte by byte; anything else by
    /// characters, as before (a `Character.isWhitespace` per character was a twentieth of a KeePass import).
    static func withoutWhitespace(_ text: String) -> String {
        var bytes = Array(text.utf8)
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return text.filter { !$0.isWhitespace } }
        bytes.removeAll { $0 == 0x20 || (0x09...0x0D).contains($0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Opens a `Value Protected="True"`, replacing its text with the plaintext (called in document order).
    static func unprotect(_ node: XMLTree, stream: StreamCipher) throws {
        let trimmed = withoutWhitespace(node.text)
        guard var bytes = trimmed.isEmpty ? [] : Data(base64Encoded: trimmed).map(Array.init) else {
            throw InteropError.damaged(reason: "a protected value is not base64")
        }
        try stream.apply(&bytes)
        node.text = String(decoding: bytes, as: UTF8.self)
        ConstantTime.wipe(&bytes)
    }

    /// A group with its entries (made as they closed, in `entries` under the group's element) and its groups.
    static func group(_ node: XMLTree, entries: [ObjectIdentifier: [KeePassEntry]]) -> KeePassGroup {
        var g = KeePassGroup(uuid: uuid(node.child("UUID")?.text ?? "") ?? UUID(), name: node.child("Name")?.text ?? "", notes: node.child("Notes")?.text ?? "")
        g.entries = entries[ObjectIdentifier(node)] ?? []
        for child in node.children where child.name == "Group" { g.groups.append(group(child, entries: entries)) }
        return g
    }

    static func entry(_ node: XMLTree, poolSize: Int) throws -> KeePassEntry {
        var e = KeePassEntry(uuid: uuid(node.child("UUID")?.text ?? "") ?? UUID())
        for s in node.children("String") {
            guard let key = s.child("Key")?.text else { throw InteropError.damaged(reason: "a field without its name") }
            let value = s.child("Value")
            guard !e.strings.contains(where: { $0.key == key }) else { throw InteropError.damaged(reason: "an entry has two fields of one name") }
            e.strings.append(.init(key: key, value: value?.text ?? "", isProtected: value?.attributes["Protected"]?.lowercased() == "true"))
        }
        for b in node.children("Binary") {
            guard let name = b.child("Key")?.text, let ref = b.child("Value")?.attributes["Ref"].flatMap(Int.init), ref >= 0, ref < poolSize else {
                throw InteropError.damaged(reason: "an attachment refers to nothing")
            }
            e.attachments.append(.init(name: name, reference: ref))
        }
        let tags = node.child("Tags")?.text ?? ""
        e.tags = tags.split(whereSeparator: { $0 == ";" || $0 == "," }).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if let times = node.child("Times") {
            e.created = times.child("CreationTime").flatMap { date($0.text) }
            e.modified = times.child("LastModificationTime").flatMap { date($0.text) }
            if times.child("Expires")?.text.lowercased() == "true" { e.expires = times.child("ExpiryTime").flatMap { date($0.text) } }
        }
        for item in node.child("CustomData")?.children("Item") ?? [] {
            if let key = item.child("Key")?.text { e.customData[key] = item.child("Value")?.text ?? "" }
        }
        for old in node.child("History")?.children("Entry") ?? [] {
            var version = try entry(old, poolSize: poolSize)
            version.history = []
            e.history.append(version)
        }
        return e
    }

    static func uuid(_ text: String) -> UUID? {
        guard let data = Data(base64Encoded: text.trimmingWhitespace()), data.count == 16 else { return nil }
        let b = Array(data)
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    static func base64(_ uuid: UUID) -> String {
        withUnsafeBytes(of: uuid.uuid) { Data($0).base64EncodedString() }
    }

    /// KDBX 4 writes times as base64 of seconds since 0001-01-01 (little-endian, 8 bytes); 3.1 as ISO 8601.
    static func date(_ text: String) -> Date? {
        let t = text.trimmingWhitespace()
        if t.contains("-") { return InternetDates.parse(t) }
        guard let data = Data(base64Encoded: t), data.count == 8 else { return nil }
        var r = ByteReader(Array(data))
        guard let raw = try? r.uint64() else { return nil }
        let seconds = Int64(bitPattern: raw)
        // Years 1 to 9999, as .NET's DateTime holds them.
        guard seconds >= 0, seconds < 315_537_897_600 else { return nil }
        return Date(timeIntervalSince1970: Double(seconds - epochOffset))
    }

    static func encode(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down)) + epochOffset
        return Data(LittleEndian.bytes(seconds)).base64EncodedString()
    }

    // MARK: Writing

    static func write(_ database: KeePassDatabase, stream: StreamCipher) throws -> String {
        var w = XMLWriter()
        let now = encode(Date())
        w.start("KeePassFile")
        w.start("Meta")
        w.element("Generator", "Passbox")
        w.element("DatabaseName", database.name)
        w.element("DatabaseNameChanged", now)
        w.element("DefaultUserName", "")
        w.element("MaintenanceHistoryDays", "365")
        w.start("MemoryProtection")
        for (name, on) in [("ProtectTitle", false), ("ProtectUserName", false), ("ProtectPassword", true), ("ProtectURL", false), ("ProtectNotes", false)] {
            w.element(name, on ? "True" : "False")
        }
        w.end()
        w.element("RecycleBinEnabled", database.recycleBin == nil ? "False" : "True")
        w.element("RecycleBinUUID", base64(database.recycleBin ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))))
        w.element("HistoryMaxItems", "-1")
        w.element("HistoryMaxSize", "-1")
        w.end()
        w.start("Root")
        try writeGroup(database.root, to: &w, stream: stream, now: now)
        w.start("DeletedObjects")
        w.end()
        w.end()
        w.end()
        return w.output
    }

    static func writeGroup(_ group: KeePassGroup, to w: inout XMLWriter, stream: StreamCipher, now: String) throws {
        w.start("Group")
        w.element("UUID", base64(group.uuid))
        w.element("Name", group.name)
        w.element("Notes", group.notes)
        w.element("IconID", "48")
        w.start("Times")
        for name in ["CreationTime", "LastModificationTime", "LastAccessTime", "ExpiryTime", "LocationChanged"] { w.element(name, now) }
        w.element("Expires", "False")
        w.element("UsageCount", "0")
        w.end()
        w.element("IsExpanded", "True")
        for entry in group.entries { try writeEntry(entry, to: &w, stream: stream, now: now, isHistory: false) }
        for child in group.groups { try writeGroup(child, to: &w, stream: stream, now: now) }
        w.end()
    }

    static func writeEntry(_ entry: KeePassEntry, to w: inout XMLWriter, stream: StreamCipher, now: String, isHistory: Bool) throws {
        w.start("Entry")
        w.element("UUID", base64(entry.uuid))
        w.element("IconID", "0")
        w.element("ForegroundColor", "")
        w.element("BackgroundColor", "")
        w.element("OverrideURL", "")
        w.element("Tags", entry.tags.joined(separator: ";"))
        w.start("Times")
        let created = entry.created.map(encode) ?? now
        let modified = entry.modified.map(encode) ?? created
        w.element("CreationTime", created)
        w.element("LastModificationTime", modified)
        w.element("LastAccessTime", modified)
        w.element("ExpiryTime", entry.expires.map(encode) ?? now)
        w.element("Expires", entry.expires == nil ? "False" : "True")
        w.element("UsageCount", "0")
        w.element("LocationChanged", modified)
        w.end()
        for s in entry.strings {
            w.start("String")
            w.element("Key", s.key)
            if s.isProtected {
                var bytes = Array(s.value.utf8)
                try stream.apply(&bytes)
                w.element("Value", Data(bytes).base64EncodedString(), [("Protected", "True")])
            } else {
                w.element("Value", s.value)
            }
            w.end()
        }
        for a in entry.attachments {
            w.start("Binary")
            w.element("Key", a.name)
            w.element("Value", "", [("Ref", String(a.reference))])
            w.end()
        }
        if !entry.customData.isEmpty {
            w.start("CustomData")
            for (key, value) in entry.customData.sorted(by: { $0.key < $1.key }) {
                w.start("Item")
                w.element("Key", key)
                w.element("Value", value)
                w.end()
            }
            w.end()
        }
        w.start("AutoType")
        w.element("Enabled", "True")
        w.element("DataTransferObfuscation", "0")
        w.end()
        if !isHistory {
            w.start("History")
            for old in entry.history { try writeEntry(old, to: &w, stream: stream, now: now, isHistory: true) }
            w.end()
        }
        w.end()
    }
}
