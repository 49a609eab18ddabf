import Foundation
import PassboxCore
import Testing

/// The strength estimate's scores against the reference zxcvbn (PyPI zxcvbn 4.5.0) on a list of common,
/// German, repeated and random passwords (Data/zxcvbn-reference.tsv, computed once with the reference).
@Suite struct StrengthAgreementTests {
    @Test func scoresAgreeWithTheReference() throws {
        let url = try #require(Bundle.module.url(forResource: "Data/zxcvbn-reference", withExtension: "tsv"))
        let rows = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
        var exact = 0, withinOne = 0
        var far = [String](), above = [String]()
        for row in rows {
            let parts = row.split(separator: "\t", omittingEmptySubsequences: false)
            let password = String(parts[0])
            let reference = Int(parts[1])!
            let ours = PasswordStrength.estimate(password).score
            if ours == reference { exact += 1 }
            if abs(ours - reference) <= 1 { withinOne += 1 } else { far.append("\(password): ours \(ours), reference \(reference)") }
            if ours > reference { above.append("\(password): ours \(ours), reference \(reference)") }
        }
        let n = Double(rows.count)
        #expect(rows.count > 200)
        // Measured when this test was last changed: see docs/ARCHITECTURE.md ("Strength"). Every score that
        // differs is lower than the reference's, never higher.
        #expect(Double(exact) / n >= 0.98, "exact agreement \(exact)/\(rows.count)")
        #expect(withinOne == rows.count, "within one: \(withinOne)/\(rows.count); far: \(far)")
        #expect(above.isEmpty, "rated stronger than the reference: \(above)")
    }
}
