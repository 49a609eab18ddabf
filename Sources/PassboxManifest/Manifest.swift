import Foundation
import PassboxCrypto

/// One version of a vault's manifest chain (security.md §6a; docs/FORMATS.md "Manifest"): the version, the
/// hash of the version before, the root of the tree over the vault's items, the hash of the vault's name
/// envelope, the key version, and the writer's Ed25519 signature over all of it.
///
/// Encoded: `format | u16 len | vaultID | u64 version | previous (32) | root (32) | metaHash (32) |
/// u32 keyVersion | u16 len | signer | signature (64)`, big-endian; signed is
/// `"passbox/v1/manifest|"` followed by everything before the signature. The format byte also says how the
/// root's tree encodes its leaves (`ManifestTree`): 1 with a NUL after the item id, 2 (written since issue 28)
/// with the id's length before it. Both are read; a chain may hold both.
public struct Manifest: Sendable, Equatable {
    /// The format written.
    public static let formatVersion: UInt8 = 2
    public static let readableFormats: ClosedRange<UInt8> = 1...2
    public var format: UInt8 = Manifest.formatVersion
    public var vaultID: String
    public var version: Int64
    public var previous: [UInt8]
    public var root: [UInt8]
    public var metaHash: [UInt8]
    public var keyVersion: Int
    /// The account id of the writer.
    public var signer: String
    public var signature: [UInt8]

    public init(vaultID: String, version: Int64, previous: [UInt8], root: [UInt8], metaHash: [UInt8], keyVersion: Int, signer: String) {
        self.vaultID = vaultID
        self.version = version
        self.previous = previous
        self.root = root
        self.metaHash = metaHash
        self.keyVersion = keyVersion
        self.signer = signer
        signature = []
    }

    /// The hash a first version names as its previous one.
    public static let noPrevious = [UInt8](repeating: 0, count: 32)

    var body: [UInt8] {
        var w = BinaryWriter()
        w.byte(format)
        w.string(vaultID)
        w.u64(version)
        w.raw(previous + root + metaHash)
        w.u32(keyVersion)
        w.string(signer)
        return w.bytes
    }

    var signedBytes: [UInt8] { Array("passbox/v1/manifest|".utf8) + body }

    public mutating func sign(with key: SigningKey) { signature = key.signature(for: signedBytes) }

    public func isSigned(by publicKey: [UInt8]) -> Bool { SigningKey.isValidSignature(signature, for: signedBytes, publicKey: publicKey) }

    public var encoded: [UInt8] { body + signature }

    /// What the next version names as its previous one.
    public var hash: [UInt8] { Hash.sha256(encoded) }

    public init(decoding bytes: [UInt8]) throws {
        var r = BinaryReader(bytes, failure: ManifestError.malformed)
        let format = try r.byte()
        guard Self.readableFormats.contains(format) else { throw ManifestError.newerFormat(Int(format)) }
        self.format = format
        vaultID = try r.string()
        version = try r.u64()
        previous = Array(try r.take(32))
        root = Array(try r.take(32))
        metaHash = Array(try r.take(32))
        keyVersion = try r.u32()
        signer = try r.string()
        signature = Array(try r.take(64))
        guard r.isAtEnd, version >= 1 else { throw ManifestError.malformed }
    }
}

public enum ManifestError: Error, Equatable, Sendable {
    case malformed
    case newerFormat(Int)
}

/// The tree a manifest's root is computed over: 256 buckets by the first byte of SHA-256 of the item id;
/// a bucket's hash is SHA-256 over `"passbox/v1/bucket"` and its leaves sorted by item id, each leaf (format 2)
/// `u16 length of itemID | itemID | hash of the item's current envelope (32; zeros when deleted) | deleted (1)`
/// — format 1 wrote `itemID | 0x00 | …`, which an id holding a NUL could blur, so it is only read; the buckets
/// are the leaves of a binary tree whose nodes are SHA-256(0x01 | left | right). A change re-hashes its bucket
/// and the eight nodes above it: O(changed × (bucket + log n)).
public struct ManifestTree: Sendable {
    public struct Leaf: Sendable, Equatable {
        public var hash: [UInt8]
        public var deleted: Bool
        public init(hash: [UInt8], deleted: Bool) {
            self.hash = hash
            self.deleted = deleted
        }
    }

    static let bucketCount = 256
    private var buckets: [[String: Leaf]]
    /// Per leaf format (index format − 1), in heap order: node 1 is the root, nodes 256…511 the buckets.
    private var nodes: [[[UInt8]]]
    /// Per leaf format, the buckets changed since its root was last computed.
    private var dirty: [Set<Int>]

    public init() {
        buckets = Array(repeating: [:], count: Self.bucketCount)
        nodes = Array(repeating: Array(repeating: [], count: 2 * Self.bucketCount), count: Manifest.readableFormats.count)
        dirty = Array(repeating: Set(0..<Self.bucketCount), count: Manifest.readableFormats.count)
    }

    public var count: Int { buckets.reduce(0) { $0 + $1.count } }

    static func bucket(of itemID: String) -> Int { Int(Hash.sha256(Array(itemID.utf8))[0]) }

    public func leaf(_ itemID: String) -> Leaf? { buckets[Self.bucket(of: itemID)][itemID] }

    /// Sets or (with nil) removes an item's leaf.
    public mutating func set(_ itemID: String, _ leaf: Leaf?) {
        let b = Self.bucket(of: itemID)
        if buckets[b][itemID] == leaf { return }
        buckets[b][itemID] = leaf
        for f in dirty.indices { dirty[f].insert(b) }
    }

    public mutating func set(_ itemID: String, envelope: [UInt8]) { set(itemID, Leaf(hash: Hash.sha256(envelope), deleted: false)) }
    public mutating func setDeleted(_ itemID: String) { set(itemID, Leaf(hash: Manifest.noPrevious, deleted: true)) }

    /// Every leaf, for a caller that compares two trees.
    public var leaves: [String: Leaf] { buckets.reduce(into: [:]) { all, b in all.merge(b) { a, _ in a } } }

    /// The root as a manifest of `format` names it.
    public mutating func root(format: UInt8 = Manifest.formatVersion) -> [UInt8] {
        precondition(Manifest.readableFormats.contains(format), "a manifest format this code reads")
        let f = Int(format) - 1
        if !dirty[f].isEmpty {
            var parents = Set<Int>()
            for b in dirty[f] {
                var data = Array("passbox/v1/bucket".utf8)
                for (id, leaf) in buckets[b].sorted(by: { $0.key < $1.key }) {
                    let bytes = Array(id.utf8)
                    if format == 1 {
                        data += bytes + [0]
                    } else {
                        data += [UInt8(truncatingIfNeeded: bytes.count >> 8), UInt8(truncatingIfNeeded: bytes.count)] + bytes
                    }
                    data += leaf.hash + [leaf.deleted ? 1 : 0]
                }
                nodes[f][Self.bucketCount + b] = Hash.sha256(data)
                parents.insert((Self.bucketCount + b) / 2)
            }
            dirty[f] = []
            while !parents.isEmpty {
                var next = Set<Int>()
                for n in parents {
                    nodes[f][n] = Hash.sha256([1] + nodes[f][2 * n] + nodes[f][2 * n + 1])
                    if n > 1 { next.insert(n / 2) }
                }
                parents = next
            }
        }
        return nodes[f][1]
    }
}
