import Foundation
import PassboxCrypto

/// A backup's bytes as numbered QR codes (G58, G77, TR-1): each code is one shard, text in the QR
/// alphanumeric set so a code holds about a third more than as bytes:
///
///     PBK1/<kind>/<set>/<number>/<total>/<check>/<data>
///
/// `kind` is B (a saved backup) or T (a transfer); `set` 8 hex digits shared by every code of one backup;
/// `number` 1…`total`; `check` the first 4 bytes of SHA-256 over the rest, in hex (an altered code is named,
/// not only refused by the encryption); `data` the shard's bytes in Base45 (RFC 9285).
public enum BackupShards {
    public static let prefix = "PBK1/"
    /// Bytes per code written: at most 1,447 characters, a version-25 code (117 modules) at error correction
    /// M, which four to a page draws at 2 points a module, so each reads back from a 150 dpi scan and from a
    /// phone's photo (issue 28; 1,000 bytes at twelve a page did not).
    public static let bytesPerShard = 940
    /// The most bytes a code read back may hold: backups printed before issue 28 have 1,000.
    public static let readLimit = 1000
    /// The most codes one backup may have (a 64 MiB backup needs 71,393 at 940 bytes a code).
    public static let maximumTotal = 71_500

    public enum Kind: String, Sendable { case backup = "B", transfer = "T" }

    public struct Shard: Sendable, Equatable {
        public var kind: Kind
        public var set: String
        public var number: Int
        public var total: Int
        public var data: [UInt8]
    }

    /// The codes' texts for `bytes`, in order.
    public static func split(_ bytes: [UInt8], kind: Kind) -> [String] {
        let set = SecureRandom.bytes(count: 4).map { String(format: "%02X", $0) }.joined()
        let total = max(1, (bytes.count + bytesPerShard - 1) / bytesPerShard)
        return (0..<total).map { i in
            let chunk = Array(bytes[(i * bytesPerShard)..<min(bytes.count, (i + 1) * bytesPerShard)])
            let body = "\(kind.rawValue)/\(set)/\(i + 1)/\(total)/"
            let data = Base45.encode(chunk)
            return prefix + body + check(body, data) + "/" + data
        }
    }

    static func check(_ body: String, _ data: String) -> String {
        Hash.sha256(Array((body + data).utf8)).prefix(4).map { String(format: "%02X", $0) }.joined()
    }

    /// One code's text read back, every part checked (G77): nil for text that is no Passbox code at all.
    public static func parse(_ text: String) throws(ShardError) -> Shard? {
        guard text.hasPrefix(prefix) else { return nil }
        let parts = text.dropFirst(prefix.count).split(separator: "/", maxSplits: 5, omittingEmptySubsequences: false)
        guard parts.count == 6, let kind = Kind(rawValue: String(parts[0])), parts[1].count == 8,
            let number = Int(parts[2]), let total = Int(parts[3])
        else { throw .invalid }
        guard (1...maximumTotal).contains(total), (1...total).contains(number) else { throw .outOfRange(number: number, total: total) }
        let body = "\(parts[0])/\(parts[1])/\(parts[2])/\(parts[3])/"
        guard ConstantTime.equal(Array(check(body, String(parts[5])).utf8), Array(parts[4].utf8)), let data = Base45.decode(String(parts[5])),
            data.count <= readLimit
        else { throw .damaged(number: number, total: total) }
        return Shard(kind: kind, set: String(parts[1]), number: number, total: total, data: data)
    }

    public enum ShardError: Error, Equatable, Sendable {
        /// A code that starts like a Passbox code but does not read.
        case invalid
        /// A number outside its total, or a total out of range.
        case outOfRange(number: Int, total: Int)
        /// A code whose check does not match its contents.
        case damaged(number: Int, total: Int)
        /// Codes of this backup still to be read (numbers, 1-based).
        case missing(numbers: [Int], total: Int)
        /// The same number read twice with different contents.
        case conflicting(number: Int, total: Int)
        /// Only codes of other kinds of data: no Passbox code among them.
        case none
    }

    /// The result of putting codes together: the backup's bytes, and how many codes were left out as
    /// repeats or as belonging to another backup.
    public struct Assembled: Sendable {
        public var bytes: [UInt8]
        public var kind: Kind
        public var total: Int
        public var repeated: Int
        public var foreign: Int
        public var unrelated: Int
    }

    /// Puts codes read in any order together (TR-1): repeats are dropped, codes of another backup are set
    /// aside when one backup is complete; otherwise the first problem is thrown, naming the codes.
    public static func assemble(_ texts: [String]) throws(ShardError) -> Assembled {
        var sets: [String: [Int: Shard]] = [:]
        var order: [String] = []
        var repeated = 0, unrelated = 0
        for text in texts {
            guard let shard = try parse(text) else {
                unrelated += 1
                continue
            }
            if sets[shard.set] == nil { order.append(shard.set) }
            if let seen = sets[shard.set]?[shard.number] {
                guard seen == shard else { throw .conflicting(number: shard.number, total: shard.total) }
                repeated += 1
                continue
            }
            if let other = sets[shard.set]?.values.first, other.total != shard.total || other.kind != shard.kind { throw .invalid }
            sets[shard.set, default: [:]][shard.number] = shard
        }
        guard !order.isEmpty else { throw .none }
        let complete = order.filter { set in sets[set]!.count == sets[set]!.first!.value.total }
        // Of two complete backups, the one with more codes (one stray code can make a small backup complete).
        guard let chosen = complete.max(by: { sets[$0]!.count < sets[$1]!.count }) else {
            // The backup most of the codes belong to is the one being restored.
            let set = order.max { sets[$0]!.count < sets[$1]!.count }!
            let total = sets[set]!.first!.value.total
            throw .missing(numbers: (1...total).filter { sets[set]![$0] == nil }, total: total)
        }
        let shards = sets[chosen]!
        let total = shards.first!.value.total
        var bytes: [UInt8] = []
        for n in 1...total { bytes += shards[n]!.data }
        let foreign = sets.filter { $0.key != chosen }.reduce(0) { $0 + $1.value.count }
        return Assembled(bytes: bytes, kind: shards[1]!.kind, total: total, repeated: repeated, foreign: foreign, unrelated: unrelated)
    }
}

/// Base45 (RFC 9285): two bytes as three characters of the QR alphanumeric set.
public enum Base45 {
    static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".utf8)
    static let values: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = Int8(i) }
        return table
    }()

    public static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count / 2 * 3 + 2)
        var i = 0
        while i + 1 < bytes.count {
            let n = Int(bytes[i]) * 256 + Int(bytes[i + 1])
            out += [alphabet[n % 45], alphabet[(n / 45) % 45], alphabet[n / 2025]]
            i += 2
        }
        if i < bytes.count {
            let n = Int(bytes[i])
            out += [alphabet[n % 45], alphabet[n / 45]]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// nil for a character outside the set, a length of 1 mod 3, or a group above its range.
    public static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 3 != 1 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(chars.count / 3 * 2 + 1)
        var i = 0
        while i < chars.count {
            let group = chars[i..<min(i + 3, chars.count)]
            var n = 0, factor = 1
            for c in group {
                let v = values[Int(c)]
                guard v >= 0 else { return nil }
                n += Int(v) * factor
                factor *= 45
            }
            if group.count == 3 {
                guard n <= 0xFFFF else { return nil }
                out += [UInt8(n >> 8), UInt8(n & 0xFF)]
            } else {
                guard n <= 0xFF else { return nil }
                out.append(UInt8(n))
            }
            i += 3
        }
        return out
    }
}
