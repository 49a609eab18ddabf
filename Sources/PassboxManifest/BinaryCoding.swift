/// Big-endian writing and bounded reading for the signed structures' encodings (manifest, member list version,
/// grant): one place for the length-prefixed strings and fixed-width integers all three use.
struct BinaryWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    mutating func byte(_ b: UInt8) { bytes.append(b) }
    mutating func raw(_ b: [UInt8]) { bytes.append(contentsOf: b) }

    mutating func u16(_ v: Int) {
        bytes.append(UInt8(truncatingIfNeeded: v >> 8))
        bytes.append(UInt8(truncatingIfNeeded: v))
    }

    mutating func u32(_ v: Int) {
        let x = UInt32(truncatingIfNeeded: v)
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: x >> UInt32(shift))) }
    }

    mutating func u64(_ v: Int64) {
        let x = UInt64(bitPattern: v)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: x >> UInt64(shift))) }
    }

    /// `u16 length | UTF-8`, at most 65,535 bytes of it.
    mutating func string(_ s: String) {
        let n = min(s.utf8.count, 65_535)
        u16(n)
        // A native string's bytes are copied at once; the element-wise copy is the slow path.
        if n == s.utf8.count, s.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) != nil { return }
        bytes.append(contentsOf: s.utf8.prefix(n))
    }

    /// `u16 length | bytes`.
    mutating func data(_ b: [UInt8]) {
        u16(b.count)
        bytes.append(contentsOf: b)
    }
}

/// Reads what `BinaryWriter` wrote; anything cut short, or a string that is not UTF-8, throws `failure`.
struct BinaryReader {
    let bytes: [UInt8]
    private(set) var at = 0
    let failure: Error

    init(_ bytes: [UInt8], failure: Error) {
        self.bytes = bytes
        self.failure = failure
    }

    var remaining: Int { bytes.count - at }
    var isAtEnd: Bool { at == bytes.count }

    mutating func take(_ n: Int) throws -> ArraySlice<UInt8> {
        guard n >= 0, n <= remaining else { throw failure }
        defer { at += n }
        return bytes[at..<(at + n)]
    }

    mutating func byte() throws -> UInt8 { try take(1).first! }
    mutating func u16() throws -> Int { try take(2).reduce(0) { $0 << 8 | Int($1) } }
    mutating func u32() throws -> Int { Int(try take(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }) }
    mutating func u64() throws -> Int64 { Int64(bitPattern: try take(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }) }

    mutating func string() throws -> String {
        guard let s = String(validating: try take(try u16()), as: UTF8.self) else { throw failure }
        return s
    }

    mutating func data() throws -> [UInt8] { Array(try take(try u16())) }

    /// A one-byte value of a closed set.
    mutating func value<T: RawRepresentable>(_: T.Type) throws -> T where T.RawValue == UInt8 {
        guard let value = T(rawValue: try byte()) else { throw failure }
        return value
    }
}
