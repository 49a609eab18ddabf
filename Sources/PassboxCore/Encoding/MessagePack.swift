/// A MessagePack writer for the subset Passbox stores: nil, booleans, 64-bit integers, 64-bit floats,
/// UTF-8 strings, binary, arrays and maps with string keys.
///
/// Written by hand because the toolchain has no MessagePack library and Foundation's JSON coders take
/// about 300 ms to round-trip 10,000 items here, three times the budget for unlocking and saving.
public struct MessagePackWriter: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    public mutating func writeNil() { bytes.append(0xc0) }
    public mutating func write(_ value: Bool) { bytes.append(value ? 0xc3 : 0xc2) }

    public mutating func write(_ value: Int64) {
        switch value {
        case 0...0x7f: bytes.append(UInt8(value))
        case -32..<0: bytes.append(UInt8(bitPattern: Int8(value)))
        case Int64(Int32.min)...Int64(Int32.max):
            bytes.append(0xd2)
            appendBigEndian(UInt32(bitPattern: Int32(value)))
        default:
            bytes.append(0xd3)
            appendBigEndian(UInt64(bitPattern: value))
        }
    }

    public mutating func write(_ value: Int) { write(Int64(value)) }

    public mutating func write(_ value: Double) {
        bytes.append(0xcb)
        appendBigEndian(value.bitPattern)
    }

    public mutating func write(_ value: String) {
        var copy = value
        copy.withUTF8 { utf8 in
            let n = utf8.count
            if n < 32 {
                bytes.append(0xa0 | UInt8(n))
            } else if n <= 0xff {
                bytes.append(0xd9)
                bytes.append(UInt8(n))
            } else if n <= 0xffff {
                bytes.append(0xda)
                appendBigEndian(UInt16(n))
            } else {
                bytes.append(0xdb)
                appendBigEndian(UInt32(n))
            }
            bytes.append(contentsOf: utf8)
        }
    }

    public mutating func write(binary: [UInt8]) {
        let n = binary.count
        if n <= 0xff {
            bytes.append(0xc4)
            bytes.append(UInt8(n))
        } else if n <= 0xffff {
            bytes.append(0xc5)
            appendBigEndian(UInt16(n))
        } else {
            bytes.append(0xc6)
            appendBigEndian(UInt32(n))
        }
        bytes.append(contentsOf: binary)
    }

    /// Starts an array of `count` elements; the caller writes them next.
    public mutating func writeArrayHeader(_ count: Int) {
        if count < 16 {
            bytes.append(0x90 | UInt8(count))
        } else if count <= 0xffff {
            bytes.append(0xdc)
            appendBigEndian(UInt16(count))
        } else {
            bytes.append(0xdd)
            appendBigEndian(UInt32(count))
        }
    }

    /// Starts a map of `count` key–value pairs; the caller writes them next.
    public mutating func writeMapHeader(_ count: Int) {
        if count < 16 {
            bytes.append(0x80 | UInt8(count))
        } else if count <= 0xffff {
            bytes.append(0xde)
            appendBigEndian(UInt16(count))
        } else {
            bytes.append(0xdf)
            appendBigEndian(UInt32(count))
        }
    }

    public mutating func write(_ values: [String]) {
        writeArrayHeader(values.count)
        for v in values { write(v) }
    }

    public mutating func write(_ value: PackedValue) {
        switch value {
        case .null: writeNil()
        case .bool(let b): write(b)
        case .int(let i): write(i)
        case .double(let d): write(d)
        case .string(let s): write(s)
        case .binary(let b): write(binary: b)
        case .array(let a):
            writeArrayHeader(a.count)
            for v in a { write(v) }
        case .map(let m):
            writeMapHeader(m.count)
            for (k, v) in m.sorted(by: { $0.key < $1.key }) {
                write(k)
                write(v)
            }
        }
    }

    private mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }
}

/// Any stored value, used to keep data written by a newer Passbox unchanged on save.
public enum PackedValue: Sendable, Equatable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case binary([UInt8])
    case array([PackedValue])
    case map([String: PackedValue])
}

/// Malformed MessagePack input.
public struct MessagePackError: Error, Equatable, Sendable {
    public let reason: String
}

/// A bounds-checked MessagePack reader over a byte buffer that outlives it.
public struct MessagePackReader {
    private let buffer: UnsafeRawBufferPointer
    public private(set) var offset = 0
    /// Nesting limit, so hostile input cannot exhaust the stack.
    private static let maximumDepth = 64
    private var depth = 0

    public init(_ buffer: UnsafeRawBufferPointer) { self.buffer = buffer }

    public var isAtEnd: Bool { offset >= buffer.count }

    private mutating func byte() throws -> UInt8 {
        guard offset < buffer.count else { throw MessagePackError(reason: "unexpected end of data") }
        defer { offset += 1 }
        return buffer[offset]
    }

    private mutating func bigEndian<T: FixedWidthInteger>(_: T.Type) throws -> T {
        let size = MemoryLayout<T>.size
        guard offset + size <= buffer.count else { throw MessagePackError(reason: "unexpected end of data") }
        var value: T = 0
        for i in 0..<size { value = value << 8 | T(buffer[offset + i]) }
        offset += size
        return value
    }

    private func peek() throws -> UInt8 {
        guard offset < buffer.count else { throw MessagePackError(reason: "unexpected end of data") }
        return buffer[offset]
    }

    /// Whether the next value is nil (consuming it if so).
    public mutating func readNilIfPresent() throws -> Bool {
        if try peek() == 0xc0 {
            offset += 1
            return true
        }
        return false
    }

    public mutating func readString() throws -> String {
        let marker = try byte()
        let length: Int
        switch marker {
        case 0xa0...0xbf: length = Int(marker & 0x1f)
        case 0xd9: length = Int(try byte())
        case 0xda: length = Int(try bigEndian(UInt16.self))
        case 0xdb: length = Int(try bigEndian(UInt32.self))
        default: throw MessagePackError(reason: "expected a string")
        }
        guard length <= buffer.count - offset else { throw MessagePackError(reason: "string runs past the end") }
        defer { offset += length }
        return String(decoding: UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + length)]), as: UTF8.self)
    }

    public mutating func readBinary() throws -> [UInt8] {
        let marker = try byte()
        let length: Int
        switch marker {
        case 0xc4: length = Int(try byte())
        case 0xc5: length = Int(try bigEndian(UInt16.self))
        case 0xc6: length = Int(try bigEndian(UInt32.self))
        default: throw MessagePackError(reason: "expected binary data")
        }
        guard length <= buffer.count - offset else { throw MessagePackError(reason: "binary runs past the end") }
        defer { offset += length }
        return Array(buffer[offset..<(offset + length)])
    }

    public mutating func readInt() throws -> Int64 {
        let marker = try byte()
        switch marker {
        case 0x00...0x7f: return Int64(marker)
        case 0xe0...0xff: return Int64(Int8(bitPattern: marker))
        case 0xcc: return Int64(try byte())
        case 0xcd: return Int64(try bigEndian(UInt16.self))
        case 0xce: return Int64(try bigEndian(UInt32.self))
        case 0xcf:
            let v = try bigEndian(UInt64.self)
            guard v <= UInt64(Int64.max) else { throw MessagePackError(reason: "integer out of range") }
            return Int64(v)
        case 0xd0: return Int64(Int8(bitPattern: try byte()))
        case 0xd1: return Int64(Int16(bitPattern: try bigEndian(UInt16.self)))
        case 0xd2: return Int64(Int32(bitPattern: try bigEndian(UInt32.self)))
        case 0xd3: return Int64(bitPattern: try bigEndian(UInt64.self))
        default: throw MessagePackError(reason: "expected an integer")
        }
    }

    public mutating func readBool() throws -> Bool {
        switch try byte() {
        case 0xc2: return false
        case 0xc3: return true
        default: throw MessagePackError(reason: "expected a boolean")
        }
    }

    public mutating func readArrayHeader() throws -> Int {
        let marker = try byte()
        let count: Int
        switch marker {
        case 0x90...0x9f: count = Int(marker & 0x0f)
        case 0xdc: count = Int(try bigEndian(UInt16.self))
        case 0xdd: count = Int(try bigEndian(UInt32.self))
        default: throw MessagePackError(reason: "expected an array")
        }
        // Each element takes at least one byte: a count beyond the data left is malformed.
        guard count <= buffer.count - offset else { throw MessagePackError(reason: "array longer than the data") }
        return count
    }

    public mutating func readMapHeader() throws -> Int {
        let marker = try byte()
        let count: Int
        switch marker {
        case 0x80...0x8f: count = Int(marker & 0x0f)
        case 0xde: count = Int(try bigEndian(UInt16.self))
        case 0xdf: count = Int(try bigEndian(UInt32.self))
        default: throw MessagePackError(reason: "expected a map")
        }
        guard count * 2 <= buffer.count - offset else { throw MessagePackError(reason: "map longer than the data") }
        return count
    }

    public mutating func readStrings() throws -> [String] {
        let n = try readArrayHeader()
        var out = [String]()
        // A count read from the bytes reserves no more than a small start (a hostile count cannot ask for GiBs).
        out.reserveCapacity(min(n, 1024))
        for _ in 0..<n { out.append(try readString()) }
        return out
    }

    /// Reads any value (used for keys this version does not know).
    public mutating func readValue() throws -> PackedValue {
        depth += 1
        defer { depth -= 1 }
        guard depth <= MessagePackReader.maximumDepth else { throw MessagePackError(reason: "nested too deeply") }
        let marker = try peek()
        switch marker {
        case 0xc0:
            offset += 1
            return .null
        case 0xc2, 0xc3: return .bool(try readBool())
        case 0x00...0x7f, 0xe0...0xff, 0xcc...0xcf, 0xd0...0xd3: return .int(try readInt())
        case 0xcb:
            offset += 1
            return .double(Double(bitPattern: try bigEndian(UInt64.self)))
        case 0xca:
            offset += 1
            return .double(Double(Float(bitPattern: try bigEndian(UInt32.self))))
        case 0xa0...0xbf, 0xd9...0xdb: return .string(try readString())
        case 0xc4...0xc6: return .binary(try readBinary())
        case 0x90...0x9f, 0xdc, 0xdd:
            let n = try readArrayHeader()
            var out = [PackedValue]()
            for _ in 0..<n { out.append(try readValue()) }
            return .array(out)
        case 0x80...0x8f, 0xde, 0xdf:
            let n = try readMapHeader()
            var out = [String: PackedValue]()
            for _ in 0..<n {
                let key = try readString()
                out[key] = try readValue()
            }
            return .map(out)
        default: throw MessagePackError(reason: "unsupported type 0x\(String(marker, radix: 16))")
        }
    }
}
