import Foundation
import PassboxCore

/// Decodes the vault payload (MessagePack inside the compressed body), and tells which of a chunked body's
/// chunks an open vault can keep.
enum PayloadCodec {
    static func decode(_ bytes: [UInt8], path: String) throws -> Vault {
        var ends = [Int]()
        return try decode(bytes, path: path, itemEnds: &ends)
    }

    static func decode(_ bytes: [UInt8], path: String, itemEnds: inout [Int]) throws -> Vault {
        do {
            return try bytes.withUnsafeBytes { try Vault(unpacking: $0, itemEnds: &itemEnds) }
        } catch {
            throw StoreError.damaged(path: path, reason: "the vault's contents cannot be read")
        }
    }

    /// The compressed chunks of `vault`'s item groups, when the body was cut as this version cuts it: a
    /// prelude chunk that is exactly `vault.packedPrelude()`, one chunk per `ChunkedPayload.groupSize` items
    /// ending where the group's last item ends, then one trailer chunk. Otherwise nil (an older or
    /// differently cut body: the first save compresses every group).
    static func groupChunks(of inflated: ChunkedPayload.Inflated, vault: Vault, itemEnds: [Int]) -> [[UInt8]]? {
        let size = ChunkedPayload.groupSize
        let groupCount = (vault.items.count + size - 1) / size
        let chunks = inflated.chunks
        guard chunks.count == groupCount + 2, itemEnds.count == vault.items.count else { return nil }
        let prelude = vault.packedPrelude()
        guard chunks[0].end == prelude.count, inflated.payload.prefix(prelude.count).elementsEqual(prelude) else { return nil }
        for g in 0..<groupCount where chunks[1 + g].end != itemEnds[min((g + 1) * size, vault.items.count) - 1] {
            return nil
        }
        return chunks[1..<(1 + groupCount)].map(\.compressed)
    }
}
