import PassboxCrypto
internal import CZlib

/// zlib (deflate) compression of vault payloads (compression id 1 in the body header, and each chunk of id 2).
enum Deflate {
    /// The reason a stream that would expand past its limit (a decompression bomb) is refused with.
    static let beyondLimit = "the payload expands beyond its limit"
    /// Deflates in one pass into a buffer that grows as needed (a vault payload compresses to about a
    /// third, so no buffer of the input's size is ever made). Level 1: on vault payloads it is about 1.5×
    /// faster than level 3 for a stream under 1 % larger; the format is the same deflate stream.
    static func compress(_ input: UnsafeRawBufferPointer, level: Int32 = 1) throws -> [UInt8] {
        var stream = z_stream()
        guard deflateInit_(&stream, level, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw StoreError.io(operation: "compress", path: "vault payload", errno: 0)
        }
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: max(4096, input.count / 3))
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: UInt8.self))
        stream.avail_in = uInt(input.count)
        var produced = 0
        while true {
            if produced == out.count {
                // Grow by half: the old buffer may hold plaintext-derived bytes, so it is wiped first.
                var grown = [UInt8](repeating: 0, count: out.count + out.count / 2)
                grown.withUnsafeMutableBytes { g in out.withUnsafeBytes { g.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: produced) } }
                ConstantTime.wipe(&out)
                out = grown
            }
            let status: Int32 = out.withUnsafeMutableBufferPointer { o in
                stream.next_out = o.baseAddress! + produced
                stream.avail_out = uInt(o.count - produced)
                let s = deflate(&stream, Z_FINISH)
                produced = o.count - Int(stream.avail_out)
                return s
            }
            if status == Z_STREAM_END { break }
            guard status == Z_OK || status == Z_BUF_ERROR else { throw StoreError.io(operation: "compress", path: "vault payload", errno: 0) }
        }
        out.removeSubrange(produced...)
        return out
    }

    /// Inflates at most `limit` bytes; more (a decompression bomb) or a corrupt stream is damage.
    static func decompress(_ input: UnsafeRawBufferPointer, limit: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: min(max(input.count * 4, 4096), limit))
        var produced = 0
        try inflateStream(input, into: &out, produced: &produced, limit: limit, wholeInput: false)
        out.removeSubrange(produced...)
        return out
    }

    /// Inflates one zlib stream into `out` from `produced` on (growing `out`, never past `limit` bytes in
    /// all), and advances `produced`. With `wholeInput`, the stream must end exactly at the end of `input`
    /// (a chunk of the chunked layout); the single-stream layout has always ignored bytes after its stream.
    /// Past the limit (a decompression bomb), a truncated or corrupt stream: damage.
    /// `windowBits` 15 is a zlib stream; 31 a gzip member and -15 raw deflate (other apps' files, `Gzip`).
    static func inflateStream(_ input: UnsafeRawBufferPointer, into out: inout [UInt8], produced: inout Int, limit: Int, wholeInput: Bool, windowBits: Int32 = 15) throws {
        var stream = z_stream()
        guard inflateInit2_(&stream, windowBits, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw StoreError.damaged(path: "vault payload", reason: "zlib could not start")
        }
        defer { inflateEnd(&stream) }
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: UInt8.self))
        stream.avail_in = uInt(input.count)
        while true {
            if produced == out.count {
                guard out.count < limit else { throw StoreError.damaged(path: "vault payload", reason: Deflate.beyondLimit) }
                // An array of zeros appends with one copy; a `repeatElement` sequence went a byte at a time in
                // debug builds (98 s of a 128 MiB bomb test).
                out.append(contentsOf: [UInt8](repeating: 0, count: min(max(out.count, 4096), limit - out.count)))
            }
            let status: Int32 = out.withUnsafeMutableBufferPointer { o in
                stream.next_out = o.baseAddress! + produced
                stream.avail_out = uInt(o.count - produced)
                let s = inflate(&stream, Z_NO_FLUSH)
                produced = o.count - Int(stream.avail_out)
                return s
            }
            if status == Z_STREAM_END { break }
            guard status == Z_OK || (status == Z_BUF_ERROR && produced == out.count) else {
                throw StoreError.damaged(path: "vault payload", reason: "the compressed payload is corrupt")
            }
        }
        if wholeInput, stream.avail_in != 0 {
            throw StoreError.damaged(path: "vault payload", reason: "a compressed chunk has bytes after its stream")
        }
    }
}
