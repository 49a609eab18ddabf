/// Replaces secrets in a byte stream (a child process's output) as it passes through, also where a secret is
/// split across chunks.
///
/// Every byte covered by an occurrence of any secret is hidden, so overlapping or adjacent secrets leave no
/// piece showing; each run of hidden bytes becomes one `mask`. A byte is released once no secret can still
/// cover it, so at most (longest secret − 1) bytes are held back between chunks. The output is the same however
/// the input is chunked. Secrets shorter than `minimumSecretLength` characters are not masked: they would hide
/// ordinary output.
public struct OutputMasker: Sendable {
    public static let defaultMask = Array("<concealed by passbox>".utf8)
    public static let minimumSecretLength = 3

    let secrets: [[UInt8]]
    let mask: [UInt8]
    let longest: Int
    /// Bytes not yet released; `pending[0]` is at stream offset `base`.
    var pending: [UInt8] = []
    var base = 0
    /// Stream offset of the next position to check for a secret starting there.
    var scanned = 0
    /// Bytes before this stream offset are covered by a secret found so far.
    var coveredUntil = 0
    var lastWasMasked = false

    public init(secrets: [String], mask: [UInt8] = OutputMasker.defaultMask) {
        var distinct = [[UInt8]]()
        for s in secrets where s.count >= OutputMasker.minimumSecretLength {
            let bytes = Array(s.utf8)
            if !distinct.contains(bytes) { distinct.append(bytes) }
        }
        self.secrets = distinct
        self.mask = mask
        longest = distinct.map(\.count).max() ?? 0
    }

    /// Takes the next chunk and returns what can be released already.
    public mutating func process<C: Collection>(_ chunk: C) -> [UInt8] where C.Element == UInt8 {
        pending.append(contentsOf: chunk)
        return release(atEnd: false)
    }

    /// Ends the stream and returns the rest.
    public mutating func finish() -> [UInt8] { release(atEnd: true) }

    /// `bytes` with every secret masked, in one call.
    public static func masked(_ bytes: [UInt8], secrets: [String], mask: [UInt8] = OutputMasker.defaultMask) -> [UInt8] {
        var masker = OutputMasker(secrets: secrets, mask: mask)
        return masker.process(bytes) + masker.finish()
    }

    mutating func release(atEnd: Bool) -> [UInt8] {
        let end = base + pending.count
        // A start can be checked once the longest secret would fit after it (or the stream has ended); a byte is
        // decided once every start at or before it has been checked.
        let limit = atEnd ? end : end - max(longest, 1) + 1
        var out = [UInt8]()
        out.reserveCapacity(max(0, limit - scanned))
        while scanned < limit {
            let i = scanned - base
            for s in secrets where i + s.count <= pending.count && pending[i] == s[0] && scanned + s.count > coveredUntil {
                if pending[i..<(i + s.count)].elementsEqual(s) { coveredUntil = scanned + s.count }
            }
            if scanned < coveredUntil {
                if !lastWasMasked { out += mask }
                lastWasMasked = true
            } else {
                out.append(pending[i])
                lastWasMasked = false
            }
            scanned += 1
        }
        pending.removeFirst(scanned - base)
        base = scanned
        return out
    }
}
