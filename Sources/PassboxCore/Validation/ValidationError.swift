/// A value the user entered that cannot be saved, with what to do about it.
public struct ValidationError: Error, Equatable, Sendable {
    /// What is wrong ("the card number fails its check digit").
    public let message: String
    /// What to do ("check the number for a typo").
    public let hint: String

    public init(_ message: String, hint: String) {
        self.message = message
        self.hint = hint
    }
}
