import Foundation

/// The report: findings, the score and what to fix first (docs/SECURITY-CHECK.md has the formula).
public struct SecurityReport: Sendable {
    public let findings: [Finding]
    public let loginCount: Int
    public let secureLoginCount: Int
    /// 0–100.
    public let score: Int
    public let rating: Rating
    /// Points each kind costs (rounded to one decimal).
    public let deductions: [FindingKind: Double]
    public let tiles: Tiles
    public let fixFirst: [FixSuggestion]
    /// Every login that is not secure, with the kinds that keep it from it and the points fixing them gains
    /// (largest first, then by title): what the tiles count, one login at a time.
    public var notSecure: [FixSuggestion] = []
    /// Logins kept from secure by none of the tiles' kinds (at risk, reused, weak): by the other findings only.
    public var otherLogins = 0
    public let lastBreachCheck: Date?

    public enum Rating: String, Sendable {
        case excellent, good, roomForImprovement = "room-for-improvement", atRisk = "at-risk"
    }

    public struct Tiles: Sendable, Equatable {
        public let atRisk: Int
        public let reused: Int
        public let weak: Int
        public let secure: Int

        public init(atRisk: Int, reused: Int, weak: Int, secure: Int) {
            self.atRisk = atRisk
            self.reused = reused
            self.weak = weak
            self.secure = secure
        }
    }

    public struct FixSuggestion: Sendable, Equatable {
        public let itemID: String
        public let kinds: [FindingKind]
        public let points: Double
    }
}
