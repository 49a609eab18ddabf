internal import CZlib

/// zlib (deflate) compression of vault payloads (compression id 1 in the body header).
enum Deflate {
    static func compress(_ input: UnsafeRawBufferPointer, level: Int32 = 3) throws -> [UInt8] {
        var bound = Int(compressBound(uLong(input.count)))
        var out = [UInt8](repeating: 0, count: bound)
        let result = out.withUnsafeMutableBufferPointer { o in
            compress2(o.baseAddress, &bound, input.baseAddress?.assumingMemoryBound(to: UInt8.self), uLong(input.count), level)
        }
        guard result == Z_OK else { throw StoreError.io(operation: "compress", path: "vault payload", errno: 0) }
        out.removeSubrange(bound...)
        return out
    }

    /// Inflates at most `limit` bytes; more (a decompression bomb) or a corrupt stream is damage.
    static func decompress(_ input: UnsafeRawBufferPointer, limit: Int) throws -> [UInt8] {
        var stream = z_stream()
        guard inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw StoreError.damaged(path: "vault payload", reason: "zlib could not start")
        }
        defer { inflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: min(max(input.count * 4, 4096), limit))
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: UInt8.self))
        stream.avail_in = uInt(input.count)
        var produced = 0
        while true {
            if produced == out.count {
                guard out.count < limit else { throw StoreError.damaged(path: "vault payload", reason: "the payload expands beyond its limit") }
                out.append(contentsOf: repeatElement(0, count: min(out.count, limit - out.count)))
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
        out.removeSubrange(produced...)
        return out
    }
}
