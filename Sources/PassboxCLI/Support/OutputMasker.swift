import Foundation

final class OutputMasker: @unchecked Sendable {
    // @unchecked: immutable after init.
    let secrets: [[UInt8]]
    let mask = Array("<concealed by passbox>".utf8)

    init(secrets: [String]) {
        self.secrets = secrets.filter { $0.count >= 3 }.map { Array($0.utf8) }.sorted { $0.count > $1.count }
    }

    func masked(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count)
        var i = 0
        outer: while i < bytes.count {
            for s in secrets where i + s.count <= bytes.count && bytes[i] == s[0] && Array(bytes[i..<(i + s.count)]) == s {
                out += mask
                i += s.count
                continue outer
            }
            out.append(bytes[i])
            i += 1
        }
        return out
    }

    func copy(from source: FileHandle, to target: FileHandle) {
        let keep = max(0, (secrets.first?.count ?? 1) - 1)
        var pending = [UInt8]()
        while true {
            let chunk = source.availableData
            if chunk.isEmpty { break }
            pending += chunk
            // Emit all but a tail that could be the start of a secret.
            var cut = max(0, pending.count - keep)
            // Never cut inside a secret that starts before the cut and ends after it.
            for s in secrets {
                var start = max(0, cut - s.count + 1)
                while start < cut {
                    if start + s.count <= pending.count, Array(pending[start..<(start + s.count)]) == s { cut = min(cut, start) }
                    start += 1
                }
            }
            let emit = masked(Array(pending[..<cut]))
            pending.removeFirst(cut)
            target.write(Data(emit))
        }
        target.write(Data(masked(pending)))
    }
}
