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
        w.writeMapHeader(2 + (created == nil ? 0 : 1) + (lastBreachCheck == nil ? 0 : 1) + (vaults.isEmpty ? 0 : 1) + (sync == nil ? 0 : 1) + (hiddenItems.isEmpty ? 0 : 1)
                + (keyrings.killphrase.isEmpty ? 0 : 1) + (keyrings.searchPassphrase.isEmpty ? 0 : 1) + (backup == nil ? 0 : 1) + unknown.count)
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
        if !hiddenItems.isEmpty {
            w.write("hiddenItems")
            w.writeArrayHeader(hiddenItems.count)
            for item in hiddenItems { item.pack(into: &w) }
        }
        for (key, ring) in [("killphraseKeys", keyrings.killphrase), ("searchPassphraseKeys", keyrings.searchPassphrase)] where !ring.isEmpty {
            w.write(key)
            w.writeArrayHeader(ring.count)
            for k in ring { w.write(binary: k) }
        }
        if let backup {
            w.write("backup")
            backup.pack(into: &w)
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
            case "hiddenItems":
                for _ in 0..<(try r.readArrayHeader()) { hiddenItems.append(try Item(unpacking: &r)) }
            case "killphraseKeys", "searchPassphraseKeys":
                var ring = [[UInt8]]()
                for _ in 0..<(try r.readArrayHeader()) {
                    let k = try r.readBinary()
                    guard k.count == Phrases.keyLength else { throw MessagePackError(reason: "a phrase key is not 32 bytes") }
                    ring.append(k)
                }
                if key == "killphraseKeys" { keyrings.killphrase = ring } else { keyrings.searchPassphrase = ring }
            case "backup": backup = try BackupSettings(unpacking: &r)
            default: unknown[key] = try r.readValue()
            }
        }
        guard r.isAtEnd else { throw MessagePackError(reason: "bytes after the vault") }

    }
}

extension SyncState {
    static var encoder: JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = .sortedKeys
        return e
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
        // 2^63 is exactly a Double; Int64.max (2^63 - 1) is not, and rounds up to it.
        if ms >= 9_223_372_036_854_775_808 { return .max }
        if ms <= -9_223_372_036_854_775_808 { return .min }
        return Int64(ms)
    }
    init(passboxMilliseconds ms: Int64) { self.init(timeIntervalSince1970: Double(ms) / 1000) }

    /// This date as it will read back from storage (whole milliseconds), so saved and loaded vaults compare equal.
    public var storedPrecision: Date { Date(passboxMilliseconds: passboxMilliseconds) }
}
