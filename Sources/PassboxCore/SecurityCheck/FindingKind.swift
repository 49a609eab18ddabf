/// The kinds of weakness Security Check finds.
public enum FindingKind: String, Sendable, CaseIterable, Comparable {
    case breachedPassword = "breached-password"
    case breachedWebsite = "breached-website"
    case reused
    case weak
    case lookalike
    case similar
    case unsecuredWebsite = "unsecured-website"
    case missingTwoFactor = "missing-2fa"
    case old
    case duplicate
    case noWebsite = "no-website"
    case noUsername = "no-username"
    case bothFactors = "both-factors"
    case expired
    case expiring
    case passkeyAvailable = "passkey-available"

    /// Points a login loses for this finding (a login loses at most 1). Informational kinds cost nothing.
    public var weight: Double {
        switch self {
        case .breachedPassword: 1.0
        case .breachedWebsite, .reused, .weak: 0.6
        case .lookalike: 0.5
        case .similar, .unsecuredWebsite: 0.3
        case .missingTwoFactor: 0.2
        case .old: 0.15
        case .duplicate: 0.1
        case .noWebsite, .noUsername: 0.05
        case .bothFactors, .expired, .expiring, .passkeyAvailable: 0
        }
    }

    /// Whether the finding counts against the score and the "secure" tile.
    public var countsAgainstScore: Bool { weight > 0 }

    /// Position in `allCases`, the order lists are shown in.
    public var order: Int {
        switch self {
        case .breachedPassword: 0
        case .breachedWebsite: 1
        case .reused: 2
        case .weak: 3
        case .lookalike: 4
        case .similar: 5
        case .unsecuredWebsite: 6
        case .missingTwoFactor: 7
        case .old: 8
        case .duplicate: 9
        case .noWebsite: 10
        case .noUsername: 11
        case .bothFactors: 12
        case .expired: 13
        case .expiring: 14
        case .passkeyAvailable: 15
        }
    }

    public static func < (a: FindingKind, b: FindingKind) -> Bool { a.order < b.order }
}
