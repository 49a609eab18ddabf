import Foundation

/// Whether bytes hold a sequence: Foundation's search, so a check over a 16 MiB vault file takes milliseconds
/// in a debug build (the generic Collection searches, which that build does not optimise, took seconds).
public enum ByteSearch {
    public static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        return Data(haystack).range(of: Data(needle)) != nil
    }

    /// How many times `needle` occurs in `haystack`, overlapping ones too: Foundation's search again (the
    /// generic one read an agent's memory at a fifth of a core-minute a test).
    public static func count(_ needle: [UInt8], in haystack: Data) -> Int {
        guard !needle.isEmpty else { return 0 }
        let pattern = Data(needle)
        var found = 0
        var from = haystack.startIndex
        while let hit = haystack.range(of: pattern, in: from..<haystack.endIndex) {
            found += 1
            from = hit.lowerBound + 1
        }
        return found
    }

    /// How many positions two byte arrays agree at (over the shorter's length).
    public static func equalPositions(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in
                var same = 0
                for i in 0..<min(x.count, y.count) where x[i] == y[i] { same += 1 }
                return same
            }
        }
    }
}
