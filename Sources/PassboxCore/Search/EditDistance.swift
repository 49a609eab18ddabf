/// Optimal-string-alignment distance (Levenshtein with adjacent transpositions counted as one edit), with
/// an early exit once every path exceeds `limit`.
public enum EditDistance {
    /// The distance between `a` and `b`, or nil when it is above `limit`.
    public static func bounded(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>, limit: Int) -> Int? {
        let n = a.count, m = b.count
        if abs(n - m) > limit { return nil }
        if n == 0 { return m <= limit ? m : nil }
        if m == 0 { return n <= limit ? n : nil }
        let a = Array(a), b = Array(b)
        var previous2 = [Int](repeating: 0, count: m + 1)
        var previous = Array(0...m)
        var current = [Int](repeating: 0, count: m + 1)
        for i in 1...n {
            current[0] = i
            var rowMinimum = i
            for j in 1...m {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previous2[j - 2] + 1)
                }
                current[j] = value
                rowMinimum = min(rowMinimum, value)
            }
            if rowMinimum > limit { return nil }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[m] <= limit ? previous[m] : nil
    }

    public static func bounded(_ a: String, _ b: String, limit: Int) -> Int? {
        bounded(ArraySlice(Array(a.utf8)), ArraySlice(Array(b.utf8)), limit: limit)
    }

    /// A bounded distance calculator for one query against many words, reusing its rows (no allocation
    /// per comparison).
    public struct Matcher {
        let query: [UInt8]
        let limit: Int
        var rows: [Int]

        public init(query: [UInt8], limit: Int) {
            self.query = query
            self.limit = limit
            rows = [Int](repeating: 0, count: 3 * (query.count + 64))
        }

        /// The distance from the query to `word`, or nil above the limit.
        public mutating func distance(to word: UnsafeBufferPointer<UInt8>) -> Int? {
            let n = query.count, m = word.count
            if abs(n - m) > limit { return nil }
            if n == 0 || m == 0 { return max(n, m) <= limit ? max(n, m) : nil }
            let width = m + 1
            if rows.count < 3 * width { rows = [Int](repeating: 0, count: 3 * width) }
            let limit = self.limit
            return query.withUnsafeBufferPointer { a in
                rows.withUnsafeMutableBufferPointer { r in
                    // Three rows in one buffer: i−2, i−1 and i, rotated by offset.
                    var p2 = 0, p1 = width, cur = 2 * width
                    for j in 0...m { r[p1 + j] = j }
                    for i in 1...n {
                        r[cur] = i
                        var rowMinimum = i
                        let ai = a[i - 1]
                        for j in 1...m {
                            let cost = ai == word[j - 1] ? 0 : 1
                            var value = min(r[p1 + j] + 1, r[cur + j - 1] + 1, r[p1 + j - 1] + cost)
                            if i > 1, j > 1, ai == word[j - 2], a[i - 2] == word[j - 1] { value = min(value, r[p2 + j - 2] + 1) }
                            r[cur + j] = value
                            if value < rowMinimum { rowMinimum = value }
                        }
                        if rowMinimum > limit { return nil }
                        (p2, p1, cur) = (p1, cur, p2)
                    }
                    let d = r[p1 + m]
                    return d <= limit ? d : nil
                }
            }
        }
    }

    /// Edits a query of this many characters may contain: none below 4, one from 4, two from 8.
    public static func allowance(forQueryLength length: Int) -> Int {
        length >= 8 ? 2 : (length >= 4 ? 1 : 0)
    }
}
