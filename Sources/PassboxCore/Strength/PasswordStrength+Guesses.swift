import Foundation
internal import CZxcvbnSupport

// How the estimate prices a password: the matches of libzxcvbn, of the ranked dictionaries (the reference's
// common passwords, German words) and of repeats
// are candidates, and the cheapest way to cover the password with them is found the reference zxcvbn's way
// (scoring.most_guessable_match_sequence): for a sequence of l matches, guesses = l! × Π guesses + 10000^(l−1),
// and any stretch no match covers costs 10 guesses a character (brute force). Figures are log10 throughout:
// a 100-character password is worth up to 10^100 guesses.
extension PasswordStrength {
    /// Characters past this many UTF-8 bytes are not analysed: libzxcvbn itself matches only the first 100
    /// bytes (it calls the rest a "long password" run), and the reference's newer versions likewise score
    /// only a prefix (zxcvbn-ts: 256 characters; PyPI zxcvbn 4.5.0 refuses more than 72). The rest is treated
    /// as more of the same: it adds no guesses, so the estimate of a very long password is a lower bound and
    /// a 100,000-character input costs what 100 characters do.
    static let analysedBytes = 100

    /// Guesses (log10) and the chosen matches for `scalars`, the analysed prefix of a password.
    static func mostGuessableSequence(_ scalars: [Unicode.Scalar], userInputs: [String]) -> (guessesLog10: Double, matches: [StrengthMatch]) {
        guard !scalars.isEmpty else { return (0, []) }
        let candidates = libraryMatches(scalars, userInputs: userInputs) + RankedDictionary.matches(in: scalars)
            + repeatMatches(scalars, userInputs: userInputs)
        return cheapestCover(scalars.count, candidates)
    }

    /// The first scalars of `password` that fit in `analysedBytes` UTF-8 bytes. When the password goes on
    /// and the prefix ends in a repeat cut part-way through a copy of its base, the part-copy is left out
    /// too (it is more of the same), so "abc" repeated 40,000 times costs a whole repeat of "abc", not a
    /// repeat plus a stray "a".
    static func analysedPrefix(_ password: String) -> [Unicode.Scalar] {
        var scalars = [Unicode.Scalar](), bytes = 0
        for scalar in password.unicodeScalars {
            bytes += UTF8.width(scalar)
            if bytes > analysedBytes { return droppingPartialCopy(scalars) }
            scalars.append(scalar)
        }
        return scalars
    }

    /// `scalars` without a trailing part-copy of the base of the longest repeat it ends in (two or more
    /// whole copies of a period p, then fewer than p scalars that continue the pattern).
    private static func droppingPartialCopy(_ scalars: [Unicode.Scalar]) -> [Unicode.Scalar] {
        let n = scalars.count
        guard n >= 2 else { return scalars }
        var best: (start: Int, period: Int)?
        for period in 1...n / 2 {
            // The earliest start from which every scalar equals the one `period` later, up to the end.
            var start = n - period
            while start > 0, scalars[start - 1] == scalars[start - 1 + period] { start -= 1 }
            guard n - start >= 2 * period, (n - start) % period != 0 else { continue }
            if best == nil || start < best!.start { best = (start, period) }
        }
        guard let (start, period) = best else { return scalars }
        return Array(scalars[..<(start + (n - start) / period * period)])
    }

    // MARK: - libzxcvbn's matches

    /// libzxcvbn's matches (its cheapest sequence), at scalar offsets. Its brute-force runs are left out:
    /// brute force is priced here, at the reference's 10 guesses a character, not at the character set size.
    /// So are its repeats (a repeats match, or any match flagged as repeated): `repeatMatches` prices them the
    /// reference's way.
    private static func libraryMatches(_ scalars: [Unicode.Scalar], userInputs: [String]) -> [StrengthMatch] {
        // libzxcvbn counts positions in UTF-8 bytes; scalarAt[b] is the scalar starting at byte b (−1 inside a
        // scalar). For an all-ASCII password (most are) byte and scalar offsets are the same.
        var byteCount = 0
        for scalar in scalars { byteCount += UTF8.width(scalar) }
        var scalarAt = [Int](repeating: -1, count: byteCount + 1)
        if byteCount == scalars.count {
            for b in 0...byteCount { scalarAt[b] = b }
        } else {
            var byte = 0
            for (index, scalar) in scalars.enumerated() {
                scalarAt[byte] = index
                byte += UTF8.width(scalar)
            }
            scalarAt[byte] = scalars.count
        }
        func scalarIndex(_ byte: Int) -> Int? { byte >= 0 && byte < scalarAt.count && scalarAt[byte] >= 0 ? scalarAt[byte] : nil }
        var info: UnsafeMutablePointer<ZxcMatch_t>?
        let password = String(String.UnicodeScalarView(scalars))
        _ = withCStrings(userInputs) { dictionary in
            password.withCString { CZxcvbn_match($0, dictionary, &info) }
        }
        defer { CZxcvbn_freeInfo(info) }
        var matches = [StrengthMatch]()
        var cursor = info
        while let match = cursor {
            cursor = match.pointee.Next
            let begin = Int(match.pointee.Begin)
            guard match.pointee.Type.rawValue < MULTIPLE_MATCH.rawValue, let start = scalarIndex(begin), let end = scalarIndex(begin + Int(match.pointee.Length)), end > start,
                let pattern = pattern(ZxcTypeMatch_t(rawValue: match.pointee.Type.rawValue % 32))
            else { continue }
            // The reference's dictionaries have no one-letter words but "i"; libzxcvbn's have "a" at rank 4,
            // which made "a" repeated cost 5 guesses a time rather than the reference's 12.
            if pattern == .dictionary, end - start == 1, scalars[start] != "i" { continue }
            // A word of the reference's passwords list: `RankedDictionary` offers this span at the reference's rank
            // (the reference keeps each word only in its cheapest list). libzxcvbn's older list ranks some a little
            // lower ("summer" about 65 for 69), enough to drop "summer2024" a score below the reference.
            if match.pointee.Type.rawValue == DICTIONARY_MATCH.rawValue,
                RankedDictionary.isReferencePassword(String(String.UnicodeScalarView(scalars[start..<end])).lowercased())
            {
                continue
            }
            var guessesLog10 = max(0, match.pointee.Entrpy) * log10(2.0)
            if pattern == .date, let year = referenceYearGuessesLog10(scalars[start..<end]) { guessesLog10 = year }
            matches.append(StrengthMatch(start: start, end: end, pattern: pattern, guessesLog10: guessesLog10))
        }
        return matches
    }

    /// A four-digit year as the reference (zxcvbn 4.5.0, reference year 2017) prices it. libzxcvbn prices every
    /// year 1901–2050 at about 150 guesses; the reference prices 1900–2019 as a recent year, max(|year − 2017|,
    /// 20) guesses, and a later one as a date ("2023" reads as 20/2/2003: 365 × 20 = 7,300), except 2025, cheaper
    /// as a keypad pattern (2-0-2-5, two turns: 2,153). Priced by libzxcvbn, "Sommer2023" scored one below the
    /// reference once the word itself cost the reference's price (issue 28).
    static func referenceYearGuessesLog10(_ token: ArraySlice<Unicode.Scalar>) -> Double? {
        guard token.count == 4, token.allSatisfy({ ("0"..."9").contains($0) }), let year = Int(String(String.UnicodeScalarView(token))),
            (1900...2050).contains(year)
        else { return nil }
        if year <= 2019 { return log10(Double(max(abs(year - 2017), 20))) }
        if year == 2025 { return log10(2_153.333_333_333_333) }
        return log10(7_300)
    }

    private static func pattern(_ type: ZxcTypeMatch_t) -> StrengthMatch.Pattern? {
        switch type {
        case DICTIONARY_MATCH, DICT_LEET_MATCH: .dictionary
        case USER_MATCH, USER_LEET_MATCH: .userInput
        case SPATIAL_MATCH: .spatial
        case SEQUENCE_MATCH: .sequence
        case DATE_MATCH, YEAR_MATCH: .date
        default: nil  // brute force, repeats and the "long password" tail
        }
    }

    static func withCStrings<R>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = strings.filter { !$0.isEmpty }.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        var pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) } + [nil]
        return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    }

    // MARK: - Repeats

    /// The reference's repeat matches (matching.repeat_match): from left to right, the leftmost run of a
    /// repeated base, taking the longer of the greedy (/(.+)\1+/) and lazy (/(.+?)\1+/) readings; the base is
    /// the shortest unit that repeats. A repeat costs (guesses of the base, estimated like a password) × the
    /// number of repeats, so "correcthorsebatterystaple" four times costs four times the phrase, and "a" a
    /// hundred times costs 100 × 12. libzxcvbn finds repeats too but prices a repeated phrase far higher.
    private static func repeatMatches(_ scalars: [Unicode.Scalar], userInputs: [String]) -> [StrengthMatch] {
        var matches = [StrengthMatch]()
        var from = 0
        while let start = (from..<scalars.count).first(where: { repeatPeriods(scalars, at: $0).first != nil }) {
            let periods = repeatPeriods(scalars, at: start)
            // The greedy reading takes the longest period that repeats at `start`, the lazy one the shortest;
            // each then takes as many whole repeats as follow.
            let greedy = repeatedLength(scalars, at: start, period: periods.last!)
            let lazy = repeatedLength(scalars, at: start, period: periods.first!)
            let (length, period) = greedy > lazy ? (greedy, shortestUnit(scalars[start..<start + greedy])) : (lazy, periods.first!)
            let base = Array(scalars[start..<start + period])
            let baseGuessesLog10 = mostGuessableSequence(base, userInputs: userInputs).guessesLog10
            matches.append(StrengthMatch(start: start, end: start + length, pattern: .repeat, guessesLog10: baseGuessesLog10 + log10(Double(length / period))))
            from = start + length
        }
        return matches
    }

    /// The periods p, shortest first, for which the p scalars at `start` are followed by the same p scalars.
    private static func repeatPeriods(_ scalars: [Unicode.Scalar], at start: Int) -> [Int] {
        guard scalars.count - start >= 2 else { return [] }
        return (1...(scalars.count - start) / 2).filter { p in
            (0..<p).allSatisfy { scalars[start + $0] == scalars[start + p + $0] }
        }
    }

    /// The length of the run at `start` made of whole repeats of its first `period` scalars.
    private static func repeatedLength(_ scalars: [Unicode.Scalar], at start: Int, period: Int) -> Int {
        var count = 1
        while start + (count + 1) * period <= scalars.count,
            (0..<period).allSatisfy({ scalars[start + $0] == scalars[start + count * period + $0] })
        {
            count += 1
        }
        return count * period
    }

    /// The shortest unit whose repeats make up `run` (/^(.+?)\1+$/).
    private static func shortestUnit(_ run: ArraySlice<Unicode.Scalar>) -> Int {
        let run = Array(run)
        return (1...run.count).first { p in
            run.count % p == 0 && run.indices.allSatisfy { run[$0] == run[$0 % p] }
        }!
    }

    // MARK: - The cheapest cover

    /// The reference's search for the sequence of matches covering all `n` scalars with the fewest guesses
    /// (dynamic programming over the end position and the number of matches), brute force filling the gaps.
    private static func cheapestCover(_ n: Int, _ candidates: [StrengthMatch]) -> (guessesLog10: Double, matches: [StrengthMatch]) {
        // best[k][l]: the cheapest sequence of l matches covering scalars 0...k, if no shorter one beats it:
        // its guesses (l! × Π + 10000^(l−1), infinity when there is none), its product Π and its last match.
        // Flat tables indexed by k × (n + 1) + l (l is at most k + 1), in memory allocated here and reached
        // through constant pointers: the search hashes nothing and its inner loop pays no exclusivity checks
        // (a nested function changing captured arrays did, one runtime call per access). `cheapestAt[k][l]`
        // is the least of `guessesAt[k][1...l]`, kept as sequences are accepted, so rejecting one (most are)
        // reads one number instead of a row. The last match is an index into `candidates`, or −2 − start for
        // a brute-force run from `start` to k, which needs no storage.
        guard n > 0 else { return (0, []) }
        let width = n + 1, size = n * width
        let guessesAt = UnsafeMutablePointer<Double>.allocate(capacity: size)
        let cheapestAt = UnsafeMutablePointer<Double>.allocate(capacity: size)
        let productAt = UnsafeMutablePointer<Double>.allocate(capacity: size)
        let lastAt = UnsafeMutablePointer<Int32>.allocate(capacity: size)
        let logFactorials = UnsafeMutablePointer<Double>.allocate(capacity: width + 1)
        defer {
            for table in [guessesAt, cheapestAt, productAt] { table.deallocate() }
            lastAt.deallocate()
            logFactorials.deallocate()
        }
        guessesAt.initialize(repeating: .infinity, count: size)
        cheapestAt.initialize(repeating: .infinity, count: size)
        productAt.initialize(repeating: 0, count: size)
        lastAt.initialize(repeating: -1, count: size)
        logFactorials.initialize(repeating: 0, count: width + 1)
        for l in stride(from: 2, through: width, by: 1) { logFactorials[l] = logFactorials[l - 1] + log10(Double(l)) }
        var byEnd = [[Int]](repeating: [], count: n)
        for (i, match) in candidates.enumerated() { byEnd[match.end - 1].append(i) }
        // For each finished row k, the lengths l whose sequence ends in a match (not brute force): only those
        // can be followed by a brute-force run. A random password has few, so the runs cost about n² steps
        // instead of n³.
        var endsInMatch = [[Int]](repeating: [], count: n)

        func priced(_ match: StrengthMatch) -> Double {
            // The reference's floor: a match shorter than the password costs at least 10 (one character) or
            // 50 guesses, and brute force one more, so a real match over the same span wins.
            let floor: Double
            // (Their logarithms, written out: this runs for every candidate at every length.)
            switch (match.pattern == .bruteForce, match.length == 1, match.length < n) {
            case (true, true, _): floor = 1.041_392_685_158_225  // log10(11)
            case (true, false, _): floor = 1.707_570_176_097_936  // log10(51)
            case (false, true, true): floor = 1  // log10(10)
            case (false, false, true): floor = 1.698_970_004_336_019  // log10(50)
            default: floor = 0
            }
            return max(match.guessesLog10, floor)
        }
        /// `last` is the match's index in `candidates`, or −2 − start for a brute-force run.
        func update(_ match: StrengthMatch, _ last: Int32, _ l: Int) {
            var product = priced(match)
            if l > 1 { product += productAt[(match.start - 1) * width + l - 1] }
            let row = (match.end - 1) * width
            // logSum(a, b) ≥ max(a, b): a sequence no costlier than that bound rejects this one before the
            // logarithms are taken (most candidates are rejected).
            let floor = max(logFactorials[l] + product, 4 * Double(l - 1))
            let cheapestShorter = cheapestAt[row + l]
            if cheapestShorter <= floor { return }
            let guesses = logSum(logFactorials[l] + product, 4 * Double(l - 1))
            if cheapestShorter <= guesses { return }
            guessesAt[row + l] = guesses
            productAt[row + l] = product
            lastAt[row + l] = last
            // Every prefix least from l on is now at most this sequence's guesses.
            var m = l
            while m <= n, cheapestAt[row + m] > guesses {
                cheapestAt[row + m] = guesses
                m += 1
            }
        }
        func bruteForce(_ start: Int, _ end: Int) -> StrengthMatch {
            StrengthMatch(start: start, end: end, pattern: .bruteForce, guessesLog10: Double(end - start))
        }

        for k in 0..<n {
            for index in byEnd[k].sorted(by: { candidates[$0].start < candidates[$1].start }) {
                let match = candidates[index]
                if match.start == 0 {
                    update(match, Int32(index), 1)
                } else {
                    let row = (match.start - 1) * width
                    for l in 1...match.start where lastAt[row + l] != -1 { update(match, Int32(index), l + 1) }
                }
            }
            update(bruteForce(0, k + 1), -2, 1)
            for i in stride(from: 1, through: k, by: 1) {
                // Two brute-force runs side by side are never cheapest: one run over both costs the same
                // product with one match fewer.
                let run = bruteForce(i, k + 1)
                for l in endsInMatch[i - 1] { update(run, Int32(-2 - i), l + 1) }
            }
            // Row k is final now (later rows' updates write only their own).
            let row = k * width
            for l in 1...(k + 1) where lastAt[row + l] >= 0 && candidates[Int(lastAt[row + l])].pattern != .bruteForce { endsInMatch[k].append(l) }
        }

        let lastRow = (n - 1) * width
        var length = 0
        for l in 1...n where lastAt[lastRow + l] != -1 && (length == 0 || guessesAt[lastRow + l] < guessesAt[lastRow + length]) { length = l }
        guard length > 0 else { return (0, []) }
        var sequence = [StrengthMatch]()
        var k = n - 1, l = length
        while k >= 0 {
            let last = Int(lastAt[k * width + l])
            let match = last >= 0 ? candidates[last] : bruteForce(-2 - last, k + 1)
            sequence.append(match)
            k = match.start - 1
            l -= 1
        }
        return (guessesAt[lastRow + length], sequence.reversed())
    }

    /// log10(10^a + 10^b) without overflow.
    private static func logSum(_ a: Double, _ b: Double) -> Double {
        max(a, b) + log10(1 + pow(10, min(a, b) - max(a, b)))
    }
}
