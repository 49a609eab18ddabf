/// A value that is not acceptable, as a reason and facts: never a sentence. Each surface words it from its
/// tables, keyed `invalid.<reason>` and `invalid.<reason>.hint`, with the facts as placeholders (a reason that
/// wraps another names it as the fact `cause`).
public struct ValidationError: Error, Equatable, Sendable {
    /// What is wrong, as a wording key's stem ("card.checkDigit").
    public let reason: String
    /// The values the wording names ("digits": "11").
    public let facts: [String: String]

    public init(_ reason: String, _ facts: [String: String] = [:]) {
        self.reason = reason
        self.facts = facts
    }
}
