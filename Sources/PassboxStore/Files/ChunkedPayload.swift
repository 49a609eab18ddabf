import PassboxCrypto

/// The chunked compression layout (compression id 2 in the body header, docs/FORMATS.md): the payload as a
/// sequence of independently deflated chunks whose inflated concatenation is the payload.
///
/// ```
/// count (4) | length₀ (4) | zlib stream₀ (length₀) | … | lengthₙ₋₁ (4) | zlib streamₙ₋₁ (lengthₙ₋₁)
/// ```
/// Writers cut the payload on item boundaries (a prelude chunk, one chunk per `groupSize` items, a trailer
/// chunk), so a save re-compresses only the groups that changed; readers take any cut.
enum ChunkedPayload {
    /// Items per chunk. 1,024 items of a typical vault inflate to about 400 KiB: large enough that deflate's
    /// 32 KiB window loses nothing measurable, small enough that an add re-compresses a few milliseconds' worth.
    static let groupSize = 1024

    /// Bytes the layout takes for chunks of these compressed lengths.
    static func encodedLength(_ chunks: [[UInt8]]) -> Int { chunks.reduce(4) { $0 + 4 + $1.count } }

    /// Writes the layout into `out`, which must be exactly `encodedLength(chunks)` bytes.
    static func write(_ chunks: [[UInt8]], into out: UnsafeMutableRawBufferPointer) {
        precondition(out.count == encodedLength(chunks) && chunks.count <= Int(UInt32.max))
        out.storeBytes(of: UInt32(chunks.count).bigEndian, toByteOffset: 0, as: UInt32.self)
        var offset = 4
        for chunk in chunks {
            precondition(chunk.count <= Int(UInt32.max))
            out.storeBytes(of: UInt32(chunk.count).bigEndian, toByteOffset: offset, as: UInt32.self)
            offset += 4
            chunk.withUnsafeBytes { c in
                if c.count > 0 { (out.baseAddress! + offset).copyMemory(from: c.baseAddress!, byteCount: c.count) }
            }
            offset += chunk.count
        }
    }

    /// The layout as one array (tests).
    static func encoded(_ chunks: [[UInt8]]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: encodedLength(chunks))
        out.withUnsafeMutableBytes { write(chunks, into: $0) }
        return out
    }

    /// What a reader got: the payload, and each chunk's compressed bytes with the payload offset where its
    /// inflated bytes end (so an open vault can keep chunks that fall on its item groups).
    struct Inflated {
        var payload: [UInt8]
        var chunks: [(compressed: [UInt8], end: Int)]
    }

    /// Inflates every chunk, at most `limit` bytes in all (a decompression bomb is refused over the whole
    /// payload, not per chunk). A count or length that runs past the data, bytes after the last chunk, or a
    /// chunk that is not exactly one whole zlib stream is damage.
    static func decompress(_ data: UnsafeRawBufferPointer, limit: Int, keepingChunks: Bool) throws -> Inflated {
        func damaged(_ reason: String) -> StoreError { .damaged(path: "vault payload", reason: reason) }
        guard data.count >= 4 else { throw damaged("the chunked payload is too short") }
        let count = Int(data.bigEndianUInt32(at: 0))
        // Each chunk takes at least its 4-byte length: a count beyond that is damage, not an allocation.
        guard count <= (data.count - 4) / 4 else { throw damaged("the chunk count is impossible") }
        var result = Inflated(payload: [UInt8](repeating: 0, count: min(max(data.count * 4, 4096), limit)), chunks: [])
        if keepingChunks { result.chunks.reserveCapacity(count) }
        var produced = 0
        var offset = 4
        do {
            for _ in 0..<count {
                guard data.count - offset >= 4 else { throw damaged("a chunk length runs past the payload") }
                let length = Int(data.bigEndianUInt32(at: offset))
                offset += 4
                guard length <= data.count - offset else { throw damaged("a chunk runs past the payload") }
                let chunk = UnsafeRawBufferPointer(rebasing: data[offset..<(offset + length)])
                try Deflate.inflateStream(chunk, into: &result.payload, produced: &produced, limit: limit, wholeInput: true)
                if keepingChunks { result.chunks.append((Array(chunk), produced)) }
                offset += length
            }
            guard offset == data.count else { throw damaged("bytes follow the last chunk") }
        } catch {
            ConstantTime.wipe(&result.payload)
            throw error
        }
        result.payload.removeSubrange(produced...)
        return result
    }
}
