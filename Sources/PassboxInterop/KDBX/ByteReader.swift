/// Reads little-endian integers and byte runs from a file's bytes, refusing to read past the end: every
/// length a hostile file states is checked against what is there before anything is taken.
struct ByteReader {
    let bytes: [UInt8]
    private(set) var offset: Int

    init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var remaining: Int { bytes.count - offset }
    var isAtEnd: Bool { offset >= bytes.count }

    mutating func take(_ count: Int) throws -> [UInt8] {
        guard count >= 0, count <= remaining else { throw InteropError.truncated }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    mutating func uint8() throws -> UInt8 { try take(1)[0] }

    mutating func uint16() throws -> UInt16 {
        let b = try take(2)
        return UInt16(b[0]) | UInt16(b[1]) << 8
    }

    mutating func uint32() throws -> UInt32 {
        let b = try take(4)
        return b.enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }

    mutating func uint64() throws -> UInt64 {
        let b = try take(8)
        return b.enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
    }
}

/// Little-endian encodings for the writer.
enum LittleEndian {
    static func bytes(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xff), UInt8(value >> 8)] }
    static func bytes(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * UInt32($0))) & 0xff) } }
    static func bytes(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8((value >> (8 * UInt64($0))) & 0xff) } }
    static func bytes(_ value: Int64) -> [UInt8] { bytes(UInt64(bitPattern: value)) }
}
