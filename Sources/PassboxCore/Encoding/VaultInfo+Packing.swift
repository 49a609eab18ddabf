import Foundation

/// The stored form of a vault's name and look, in the payload and inside its synced name envelope.
extension VaultInfo {
    func pack(into w: inout MessagePackWriter) {
        let head = listVersion != nil && listHash != nil
        w.writeMapHeader(2 + (icon == nil ? 0 : 1) + (colour == nil ? 0 : 1) + (created == nil ? 0 : 1) + (deleted == nil ? 0 : 1) + (head ? 2 : 0) + unknown.count)
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
        if let deleted {
            w.write("deleted")
            w.write(deleted.passboxMilliseconds)
        }
        if let listVersion, let listHash {
            w.write("listVersion")
            w.write(listVersion)
            w.write("listHash")
            w.write(binary: listHash)
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
            case "deleted": deleted = Date(passboxMilliseconds: try r.readInt())
            case "listVersion": listVersion = try r.readInt()
            case "listHash": listHash = try r.readBinary()
            default: unknown[key] = try r.readValue()
            }
        }
        guard !id.isEmpty else { throw MessagePackError(reason: "a vault has no id") }
    }
}
