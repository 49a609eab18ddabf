/// One finding on one item. `details` are facts for the message (never a password).
public struct Finding: Sendable, Equatable {
    public let kind: FindingKind
    public let itemID: String
    public let details: [String: String]
    public let isDismissed: Bool
    /// For reused and similar passwords: which group (items sharing a password) this belongs to.
    public let group: Int?
}
