import Foundation

/// Whether bytes hold a sequence: Foundation's search, so a check over a 16 MiB vault file takes milliseconds
/// in a debug build (the generic Collection searches, which that build does not optimise, took seconds).
public enum ByteSearch {
    public static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        return Data(haystack).range(of: Data(needle)) != nil
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
