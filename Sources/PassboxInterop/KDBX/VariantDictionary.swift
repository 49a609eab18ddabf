/// KDBX 4's typed key-value map (the key-derivation parameters and public custom data): a version, then
/// entries of type, key and value, then a zero type byte.
struct VariantDictionary: Equatable {
    enum Value: Equatable {
        case uint32(UInt32)
        case uint64(UInt64)
        case bool(Bool)
        case int32(Int32)
        case int64(Int64)
        case string(String)
        case bytes([UInt8])
    }

    static let version: UInt16 = 0x0100
    var entries: [(key: String, value: Value)] = []

    static func == (a: VariantDictionary, b: VariantDictionary) -> Bool {
        a.entries.count == b.entries.count && zip(a.entries, b.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    subscript(key: String) -> Value? {
        get { entries.first { $0.key == key }?.value }
        set {
            entries.removeAll { $0.key == key }
            if let newValue { entries.append((key, newValue)) }
        }
    }

    func bytes(_ key: String) -> [UInt8]? { if case .bytes(let b)? = self[key] { b } else { nil } }

    /// An unsigned number whichever width the writer chose.
    func number(_ key: String) -> UInt64? {
        switch self[key] {
        case .uint32(let v)?: UInt64(v)
        case .uint64(let v)?: v
        case .int32(let v)? where v >= 0: UInt64(v)
        case .int64(let v)? where v >= 0: UInt64(v)
        default: nil
        }
    }

    init() {}

    init(parsing data: [UInt8]) throws {
        var r = ByteReader(data)
        let version = try r.uint16()
        // The high byte is the major version: a newer major cannot be read (KeePass's rule).
        guard version & 0xff00 == VariantDictionary.version & 0xff00 else { throw InteropError.unsupported(what: "KDBX parameter map version \(version >> 8)") }
        while true {
            let type = try r.uint8()
            if type == 0 { break }
            let keyLength = Int(Int32(bitPattern: try r.uint32()))
            guard keyLength >= 0 else { throw InteropError.damaged(reason: "a negative length in the header") }
            let key = String(decoding: try r.take(keyLength), as: UTF8.self)
            let valueLength = Int(Int32(bitPattern: try r.uint32()))
            guard valueLength >= 0 else { throw InteropError.damaged(reason: "a negative length in the header") }
            let raw = try r.take(valueLength)
            var v = ByteReader(raw)
            let value: Value
            switch type {
            case 0x04: guard raw.count == 4 else { throw InteropError.damaged(reason: "a header number of the wrong size") }; value = .uint32(try v.uint32())
            case 0x05: guard raw.count == 8 else { throw InteropError.damaged(reason: "a header number of the wrong size") }; value = .uint64(try v.uint64())
            case 0x08: guard raw.count == 1 else { throw InteropError.damaged(reason: "a header flag of the wrong size") }; value = .bool(raw[0] != 0)
            case 0x0C: guard raw.count == 4 else { throw InteropError.damaged(reason: "a header number of the wrong size") }; value = .int32(Int32(bitPattern: try v.uint32()))
            case 0x0D: guard raw.count == 8 else { throw InteropError.damaged(reason: "a header number of the wrong size") }; value = .int64(Int64(bitPattern: try v.uint64()))
            case 0x18: value = .string(String(decoding: raw, as: UTF8.self))
            case 0x42: value = .bytes(raw)
            default: throw InteropError.damaged(reason: "an unknown value type in the header")
            }
            entries.append((key, value))
        }
    }

    func serialized() -> [UInt8] {
        var out = LittleEndian.bytes(VariantDictionary.version)
        for (key, value) in entries {
            let (type, raw): (UInt8, [UInt8]) =
                switch value {
                case .uint32(let v): (0x04, LittleEndian.bytes(v))
                case .uint64(let v): (0x05, LittleEndian.bytes(v))
                case .bool(let v): (0x08, [v ? 1 : 0])
                case .int32(let v): (0x0C, LittleEndian.bytes(UInt32(bitPattern: v)))
                case .int64(let v): (0x0D, LittleEndian.bytes(v))
                case .string(let v): (0x18, Array(v.utf8))
                case .bytes(let v): (0x42, v)
                }
            out.append(type)
            out += LittleEndian.bytes(UInt32(key.utf8.count)) + Array(key.utf8)
            out += LittleEndian.bytes(UInt32(raw.count)) + raw
        }
        out.append(0)
        return out
    }
}
