internal import CZlib

/// gzip (RFC 1952) and raw deflate (RFC 1951) through zlib, for other apps' files (KeePass compresses its XML
/// with gzip; ZIP entries are raw deflate). Passbox's own formats use the zlib streams of `Deflate`.
public enum Gzip {
    /// Why a stream was refused: corrupt, truncated, or expanding past its limit (a decompression bomb).
    public struct Failure: Error, Equatable, Sendable {
        public let reason: String
    }

    public static func compress(_ input: [UInt8], level: Int32 = 6) throws -> [UInt8] {
        var stream = z_stream()
        // 15 + 16: a window of 2^15 bytes, with a gzip header and trailer instead of zlib's.
        guard deflateInit2_(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Failure(reason: "zlib could not start")
        }
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 32)
        let status: Int32 = input.withUnsafeBytes { i in
            out.withUnsafeMutableBufferPointer { o in
                stream.next_in = UnsafeMutablePointer(mutating: i.baseAddress?.assumingMemoryBound(to: UInt8.self))
                stream.avail_in = uInt(i.count)
                stream.next_out = o.baseAddress
                stream.avail_out = uInt(o.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw Failure(reason: "gzip compression failed") }
        out.removeSubrange(Int(stream.total_out)...)
        return out
    }

    /// Inflates one gzip member, at most `limit` bytes; bytes after the member are refused.
    public static func decompress(_ input: [UInt8], limit: Int) throws -> [UInt8] {
        try run(input, limit: limit, windowBits: 15 + 16)
    }

    /// Inflates a raw deflate stream (a ZIP entry), at most `limit` bytes.
    public static func inflateRaw(_ input: [UInt8], limit: Int) throws -> [UInt8] {
        try run(input, limit: limit, windowBits: -15)
    }

    /// Deflate's loop (Compression.swift) with gzip's or raw deflate's framing; bytes after the stream are refused.
    private static func run(_ input: [UInt8], limit: Int, windowBits: Int32) throws -> [UInt8] {
        // A gzip member ends with its inflated size (mod 2^32): the buffer is made that size at once, so a
        // KeePass file's 12 MiB of XML are not grown by doubling (which held the old buffer, the new one and
        // the zeros appended, four times the size, at the last step). Trusted only as far as deflate can
        // expand (1,032 to 1) and the limit, so a small file claiming a huge size allocates nothing more.
        var initial = input.count * 4
        if windowBits == 15 + 16, input.count >= 18 {
            let n = input.count
            let claimed = Int(input[n - 4]) | Int(input[n - 3]) << 8 | Int(input[n - 2]) << 16 | Int(input[n - 1]) << 24
            initial = min(claimed, input.count * 1032) + 1
        }
        var out = [UInt8](repeating: 0, count: min(max(initial, 4096), limit))
        var produced = 0
        do {
            try input.withUnsafeBytes { try Deflate.inflateStream($0, into: &out, produced: &produced, limit: limit, wholeInput: true, windowBits: windowBits) }
        } catch StoreError.damaged(_, let reason) {
            throw Failure(reason: reason == Deflate.beyondLimit ? "it expands beyond \(limit >> 20) MiB" : reason)
        }
        out.removeSubrange(produced...)
        return out
    }
}
