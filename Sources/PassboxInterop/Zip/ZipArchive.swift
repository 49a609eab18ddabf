import PassboxStore

/// The entries of a ZIP archive (1Password's .1pux), read from its central directory: stored and deflated
/// entries only, every offset and length checked against the file, and each entry inflated to at most its
/// stated size and at most `limit`. Hand-written (about 70 lines; see docs/ARCHITECTURE.md): the inflating is
/// zlib's.
struct ZipArchive {
    struct Entry {
        var name: String
        var method: UInt16
        var compressedSize: Int
        var size: Int
        var localHeader: Int
    }

    let bytes: [UInt8]
    var entries: [Entry] = []

    init(_ bytes: [UInt8]) throws {
        self.bytes = bytes
        // The end-of-central-directory record: the last "PK\u{5}\u{6}" within the final 64 KiB + 22 bytes.
        guard bytes.count >= 22 else { throw InteropError.notThisFormat(format: "1pux") }
        var end = -1
        var i = bytes.count - 22
        while i >= max(0, bytes.count - 22 - 65_535) {
            if bytes[i] == 0x50, bytes[i + 1] == 0x4B, bytes[i + 2] == 5, bytes[i + 3] == 6 {
                end = i
                break
            }
            i -= 1
        }
        guard end >= 0 else { throw InteropError.notThisFormat(format: "1pux") }
        var eocd = ByteReader(bytes, offset: end + 10)
        let count = Int(try eocd.uint16())
        _ = try eocd.uint32()  // the directory's size
        var r = ByteReader(bytes, offset: Int(try eocd.uint32()))
        guard r.offset <= bytes.count, count <= 10_000 else { throw InteropError.damaged(reason: "its ZIP directory is out of range") }
        for _ in 0..<count {
            guard try r.uint32() == 0x0201_4B50 else { throw InteropError.damaged(reason: "its ZIP directory is damaged") }
            _ = try r.take(6)
            let method = try r.uint16()
            _ = try r.take(8)
            let compressed = Int(try r.uint32()), size = Int(try r.uint32())
            let nameLength = Int(try r.uint16()), extraLength = Int(try r.uint16()), commentLength = Int(try r.uint16())
            _ = try r.take(8)
            let local = Int(try r.uint32())
            let name = String(decoding: try r.take(nameLength), as: UTF8.self)
            _ = try r.take(extraLength + commentLength)
            entries.append(Entry(name: name, method: method, compressedSize: compressed, size: size, localHeader: local))
        }
    }

    /// An entry's bytes, at most `limit`.
    func data(_ name: String, limit: Int) throws -> [UInt8]? {
        guard let e = entries.first(where: { $0.name == name }) else { return nil }
        guard e.size <= limit else { throw InteropError.tooLarge(limitMiB: limit >> 20) }
        var r = ByteReader(bytes, offset: e.localHeader)
        guard e.localHeader < bytes.count, try r.uint32() == 0x0403_4B50 else { throw InteropError.damaged(reason: "a ZIP entry's header is damaged") }
        _ = try r.take(22)
        let skip = Int(try r.uint16()) + Int(try r.uint16())
        _ = try r.take(skip)
        let raw = try r.take(e.compressedSize)
        switch e.method {
        case 0:
            guard raw.count == e.size else { throw InteropError.damaged(reason: "a stored ZIP entry's size is wrong") }
            return raw
        case 8:
            do {
                let out = try Gzip.inflateRaw(raw, limit: max(e.size, 1))
                guard out.count == e.size else { throw InteropError.damaged(reason: "a ZIP entry's size is wrong") }
                return out
            } catch let failure as Gzip.Failure {
                throw InteropError.damaged(reason: "a ZIP entry: \(failure.reason)")
            }
        default:
            throw InteropError.unsupported(what: "ZIP compression method \(e.method)")
        }
    }
}
