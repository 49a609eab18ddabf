import Foundation

/// The stored form of a vault, items, versions and fields: MessagePack maps with string keys
/// (docs/FORMATS.md, "Vault payload"). Keys this version does not know are kept and written back.
extension Vault {
    /// Encodes the vault: exactly `packedPrelude() + packedItems(in: items.indices) + packedTrailer()`.
    public func packed() -> [UInt8] {
        var w = MessagePackWriter(capacity: 64 + items.count * 512)
        writePrelude(into: &w)
        for item in items { item.pack(into: &w) }
        writeTrailer(into: &w)
        return w.bytes
    }

    /// The payload's first bytes: the vault's map header, the `"items"` key and the items' array header.
    /// They depend only on the item count and on which optional vault keys are present.
    public func packedPrelude() -> [UInt8] {
        var w = MessagePackWriter(capacity: 32)
        writePrelude(into: &w)
        return w.bytes
    }

    /// The items in `range`, packed one after another as they stand in the payload's items array.
    public func packedItems(in range: Range<Int>) -> [UInt8] {
        precondition(range.lowerBound >= 0 && range.upperBound <= items.count, "item range out of bounds")
        var w = MessagePackWriter(capacity: range.count * 512)
        for i in range { items[i].pack(into: &w) }
        return w.bytes
    }

    /// The payload's last bytes, after the items: `slotOrder`, the dates and the keys kept unknown.
    public func packedTrailer() -> [UInt8] {
        var w = MessagePackWriter(capacity: 64)
        writeTrailer(into: &w)
        return w.bytes
    }

    private func writePrelude(into w: inout MessagePackWriter) {
        w.writeMapHeader(2 + (created == nil ? 0 : 1) + (lastBreachCheck == nil ? 0 : 1) + (vaults.isEmpty ? 0 : 1) + (sync == nil ? 0 : 1) + unknown.count)
        w.write("items")
        w.writeArrayHeader(items.count)
    }

    private func writeTrailer(into w: inout MessagePackWriter) {
        w.write("slotOrder")
        w.writeArrayHeader(slotOrder.count)
        for s in slotOrder { w.write(s) }
        if let created {
            w.write("created")
            w.write(created.passboxMilliseconds)
        }
        if let lastBreachCheck {
            w.write("lastBreachCheck")
            w.write(lastBreachCheck.passboxMilliseconds)
        }
        if !vaults.isEmpty {
            w.write("vaults")
            w.writeArrayHeader(vaults.count)
            for info in vaults { info.pack(into: &w) }
        }
        if let sync {
            // Device-local bookkeeping, as JSON inside the payload (docs/FORMATS.md "Sync state").
            w.write("sync")
            w.write(binary: Array((try? SyncState.encoder.encode(sync)) ?? Data()))
        }
        w.writeUnknown(unknown)
    }

    /// Decodes a vault; malformed data throws `MessagePackError`.
    public init(unpacking bytes: UnsafeRawBufferPointer) throws {
        var ends: [Int]? = nil
        try self.init(unpacking: bytes, itemEnds: &ends)
    }

    /// Decodes a vault and reports where each item ends in `bytes` (the offset just past it), so a reader
    /// that got the payload in pieces can tell whether the pieces fall on item boundaries.
    public init(unpacking bytes: UnsafeRawBufferPointer, itemEnds: inout [Int]) throws {
        var ends: [Int]? = []
        try self.init(unpacking: bytes, itemEnds: &ends)
        itemEnds = ends ?? []
    }

    private init(unpacking bytes: UnsafeRawBufferPointer, itemEnds: inout [Int]?) throws {
        var r = MessagePackReader(bytes)
        self.init()
        let n = try r.readMapHeader()
        for _ in 0..<n {
            let key = try r.readString()
            switch key {
            case "items":
                let count = try r.readArrayHeader()
                items.reserveCapacity(count)
                itemEnds?.reserveCapacity(count)
                for _ in 0..<count {
                    items.append(try Item(unpacking: &r))
                    itemEnds?.append(r.offset)
                }
            case "slotOrder":
                let count = try r.readArrayHeader()
                for _ in 0..<count { slotOrder.append(Int(try r.readInt())) }
            case "created": created = Date(passboxMilliseconds: try r.readInt())
            case "lastBreachCheck": lastBreachCheck = Date(passboxMilliseconds: try r.readInt())
            case "vaults":
                let count = try r.readArrayHeader()
                for _ in 0..<count { vaults.append(try VaultInfo(unpacking: &r)) }
            case "sync":
                let bytes = try r.readBinary()
                guard let state = try? JSONDecoder().decode(SyncState.self, from: Data(bytes)) else { throw MessagePackError(reason: "the sync state does not read") }
                guard state.v <= SyncState.currentVersion else { throw MessagePackError(reason: "the sync state is of a newer version (\(state.v))") }
                sync = state
            default: unknown[key] = try r.readValue()
            }
        }
        guard r.isAtEnd else { throw MessagePackError(reason: "bytes after the vault") }

    }
}

extension Item {
    /// Encodes the item as it stands in a payload's items array.
    public func packed() -> [UInt8] {
        var w = MessagePackWriter(capacity: 512)
        pack(into: &w)
        return w.bytes
    }

    func pack(into w: inout MessagePackWriter) {
        let dates: [(String, Date?)] = [
            ("created", created), ("lastChanged", lastChanged), ("lastUsed", lastUsed), ("lastFilled", lastFilled), ("trashedAt", trashedAt),
        ]
        let presentDates = dates.filter { $0.1 != nil }
        let count = 4 + presentDates.count + (websites.isEmpty ? 0 : 1) + (notes.isEmpty ? 0 : 1) + (tags.isEmpty ? 0 : 1)
            + (isFavorite ? 1 : 0) + (history.isEmpty ? 0 : 1) + (dismissals.isEmpty ? 0 : 1) + (passwordBreach == nil ? 0 : 1) + unknown.count
            + (vaultID == nil ? 0 : 1) + (syncBase == nil ? 0 : 1) + (syncPending ? 1 : 0)
        w.writeMapHeader(count)
        w.write("id")
        w.write(id)
        w.write("category")
        w.write(category.rawValue)
        w.write("title")
        w.write(title)
        w.write("fields")
        w.writeArrayHeader(fields.count)
        for field in fields { field.pack(into: &w) }
        if !websites.isEmpty {
            w.write("websites")
            w.write(websites)
        }
        if !notes.isEmpty {
            w.write("notes")
            w.write(notes)
        }
        if !tags.isEmpty {
            w.write("tags")
            w.write(tags)
        }
        if isFavorite {
            w.write("favorite")
            w.write(true)
        }
        for (key, date) in presentDates {
            w.write(key)
            w.write(date!.passboxMilliseconds)
        }
        if !history.isEmpty {
            w.write("history")
            w.writeArrayHeader(history.count)
            for version in history {
                w.writeMapHeader(3)
                w.write("id")
                w.write(version.id)
                w.write("replacedAt")
                w.write(version.replacedAt.passboxMilliseconds)
                w.write("item")
                version.item.pack(into: &w)
            }
        }
        if !dismissals.isEmpty {
            w.write("dismissals")
            w.write(dismissals)
        }
        if let mark = passwordBreach {
            w.write("passwordBreach")
            w.writeMapHeader(3)
            w.write("checkedAt")
            w.write(mark.checkedAt.passboxMilliseconds)
            w.write("occurrences")
            w.write(mark.occurrences)
            w.write("fingerprint")
            w.write(mark.fingerprint)
        }
        if let vaultID {
            w.write("vault")
            w.write(vaultID)
        }
        if let base = syncBase {
            w.write("syncBase")
            w.writeMapHeader(base.ancestor == nil ? 3 : 4)
            w.write("vault")
            w.write(base.vaultID)
            w.write("revision")
            w.write(base.revision)
            w.write("hash")
            w.write(binary: base.hash)
            if let ancestor = base.ancestor {
                w.write("ancestor")
                ancestor.pack(into: &w)
            }
        }
        if syncPending {
            w.write("syncPending")
            w.write(true)
        }
        w.writeUnknown(unknown)
    }

    init(unpacking r: inout MessagePackReader) throws {
        self.init(id: "", category: .login, fields: [])
        var sawID = false
        let n = try r.readMapHeader()
        for _ in 0..<n {
            let key = try r.readString()
            switch key {
            case "id":
                id = try r.readString()
                sawID = true
            case "category": category = Category(rawValue: try r.readString())
            case "title": title = try r.readString()
            case "fields":
                let count = try r.readArrayHeader()
                fields.reserveCapacity(count)
                for _ in 0..<count { fields.append(try Field(unpacking: &r)) }
            case "websites": websites = try r.readStrings()
            case "notes": notes = try r.readString()
            case "tags": tags = try r.readStrings()
            case "favorite": isFavorite = try r.readBool()
            case "created": created = Date(passboxMilliseconds: try r.readInt())
            case "lastChanged": lastChanged = Date(passboxMilliseconds: try r.readInt())
            case "lastUsed": lastUsed = Date(passboxMilliseconds: try r.readInt())
            case "lastFilled": lastFilled = Date(passboxMilliseconds: try r.readInt())
            case "trashedAt": trashedAt = Date(passboxMilliseconds: try r.readInt())
            case "history":
                let count = try r.readArrayHeader()
                for _ in 0..<count { history.append(try ItemVersion(unpacking: &r)) }
            case "dismissals": dismissals = try r.readStrings()
            case "passwordBreach":
                var mark = PasswordBreachMark(checkedAt: Date(timeIntervalSince1970: 0), occurrences: 0, fingerprint: "")
                for _ in 0..<(try r.readMapHeader()) {
                    switch try r.readString() {
                    case "checkedAt": mark.checkedAt = Date(passboxMilliseconds: try r.readInt())
                    case "occurrences": mark.occurrences = Int(try r.readInt())
                    case "fingerprint": mark.fingerprint = try r.readString()
                    default: _ = try r.readValue()
                    }
                }
                passwordBreach = mark
            case "vault": vaultID = try r.readString()
            case "syncBase":
                var base = SyncBase(vaultID: "", revision: 0, hash: [])
                for _ in 0..<(try r.readMapHeader()) {
                    switch try r.readString() {
                    case "vault": base.vaultID = try r.readString()
                    case "revision": base.revision = try r.readInt()
                    case "hash": base.hash = try r.readBinary()
                    case "ancestor": base.ancestor = try Item(unpacking: &r)
                    default: _ = try r.readValue()
                    }
                }
                syncBase = base
            case "syncPending": syncPending = try r.readBool()
            default: unknown[key] = try r.readValue()
            }
        }
        guard sawID else { throw MessagePackError(reason: "an item has no id") }
    }
}

extension VaultInfo {
    func pack(into w: inout MessagePackWriter) {
        w.writeMapHeader(2 + (icon == nil ? 0 : 1) + (colour == nil ? 0 : 1) + (created == nil ? 0 : 1) + unknown.count)
        w.write("id")
        w.write(id)
        w.write("name")
        w.write(name)
        if let icon {
            w.write("icon")
            w.write(icon.rawValue)
        }
        if let colour {
            w.write("colour")
            w.write(colour.rawValue)
        }
        if let created {
            w.write("created")
            w.write(created.passboxMilliseconds)
        }
        w.writeUnknown(unknown)
    }

    /// The vault's name and look as synced (inside its metadata envelope).
    public func packed() -> [UInt8] {
        var w = MessagePackWriter(capacity: 128)
        pack(into: &w)
        return w.bytes
    }

    public init(unpacking bytes: UnsafeRawBufferPointer) throws {
        var r = MessagePackReader(bytes)
        try self.init(unpacking: &r)
        guard r.isAtEnd else { throw MessagePackError(reason: "bytes after the vault's name") }
    }

    init(unpacking r: inout MessagePackReader) throws {
        self.init(id: "", name: "")
        for _ in 0..<(try r.readMapHeader()) {
            let key = try r.readString()
            switch key {
            case "id": id = try r.readString()
            case "name": name = try r.readString()
            // An icon or colour of a newer version shows as the default and is written back as it came.
            case "icon":
                let raw = try r.readString()
                if let known = VaultIcon(rawValue: raw) { icon = known } else { unknown[key] = .string(raw) }
            case "colour":
                let raw = try r.readString()
                if let known = VaultColour(rawValue: raw) { colour = known } else { unknown[key] = .string(raw) }
            case "created": created = Date(passboxMilliseconds: try r.readInt())
            default: unknown[key] = try r.readValue()
            }
        }
        guard !id.isEmpty else { throw MessagePackError(reason: "a vault has no id") }
    }
}

extension SyncState {
    static var encoder: JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = .sortedKeys
        return e
    }
}

extension Item {
    /// Decodes one item packed by `packed()`.
    public init(unpacking bytes: UnsafeRawBufferPointer) throws {
        var r = MessagePackReader(bytes)
        try self.init(unpacking: &r)
        guard r.isAtEnd else { throw MessagePackError(reason: "bytes after the item") }
    }
}

extension ItemVersion {
    init(unpacking r: inout MessagePackReader) throws {
        var id: String?
        var replacedAt: Date?
        var item: Item?
        let n = try r.readMapHeader()
        for _ in 0..<n {
            switch try r.readString() {
            case "id": id = try r.readString()
            case "replacedAt": replacedAt = Date(passboxMilliseconds: try r.readInt())
            case "item": item = try Item(unpacking: &r)
            default: _ = try r.readValue()
            }
        }
        guard let id, let replacedAt, let item else { throw MessagePackError(reason: "a history version is incomplete") }
        self.init(id: id, replacedAt: replacedAt, item: item)
    }
}

extension Field {
    func pack(into w: inout MessagePackWriter) {
        let originalKind: String? = if case .string(let s)? = unknown["kind"] { s } else { nil }
        let extra = unknown.filter { $0.key != "kind" }
        w.writeMapHeader(4 + (key == nil ? 0 : 1) + extra.count)
        w.write("id")
        w.write(id)
        if let key {
            w.write("key")
            w.write(key)
        }
        w.write("label")
        w.write(label)
        w.write("kind")
        w.write(originalKind ?? kind.rawValue)
        w.write("value")
        w.write(value)
        w.writeUnknown(extra)
    }

    init(unpacking r: inout MessagePackReader) throws {
        self.init(id: "", label: "", kind: .text, value: "")
        let n = try r.readMapHeader()
        for _ in 0..<n {
            let name = try r.readString()
            switch name {
            case "id": id = try r.readString()
            case "key": key = try r.readString()
            case "label": label = try r.readString()
            case "kind":
                let raw = try r.readString()
                // A kind from a newer version is shown as concealed text (the safe choice) and written back unchanged.
                if let known = FieldKind(rawValue: raw) { kind = known } else {
                    kind = .hidden
                    unknown["kind"] = .string(raw)
                }
            case "value": value = try r.readString()
            default: unknown[name] = try r.readValue()
            }
        }
    }
}

extension MessagePackWriter {
    mutating func writeUnknown(_ unknown: [String: PackedValue]) {
        for (key, value) in unknown.sorted(by: { $0.key < $1.key }) {
            write(key)
            write(value)
        }
    }
}

/// Dates are stored as whole milliseconds since 1970 (exact and fast).
extension Date {
    /// Whole milliseconds since 1970, clamped to Int64 (a stored date of Int64.max reads back as 2^63 ms,
    /// which does not fit: found by the VaultPayload fuzz target).
    var passboxMilliseconds: Int64 {
        let ms = (timeIntervalSince1970 * 1000).rounded()
        guard ms.isFinite else { return 0 }
        if ms >= 9_223_372_036_854_775_807 { return .max }
        if ms <= -9_223_372_036_854_775_808 { return .min }
        return Int64(ms)
    }
    init(passboxMilliseconds ms: Int64) { self.init(timeIntervalSince1970: Double(ms) / 1000) }

    /// This date as it will read back from storage (whole milliseconds), so saved and loaded vaults compare equal.
    public var storedPrecision: Date { Date(passboxMilliseconds: passboxMilliseconds) }
}
