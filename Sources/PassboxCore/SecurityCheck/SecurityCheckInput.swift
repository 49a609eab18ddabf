import Foundation

/// Everything Security Check needs, all local except the optional breach results kept in the vault.
public struct SecurityCheckInput: Sendable {
    public var vault: Vault
    public var now: Date
    public var breaches: BreachCatalog
    public var twoFactor: TwoFactorDirectory
    /// Sites that accept passkeys (empty: the "passkey available" finding is not looked for).
    public var passkeySites: PasskeyDirectory
    public var domains: any DomainAnalyzing
    /// Whether the user turned the breached-password check on (its results live in the items).
    public var breachCheckEnabled: Bool
    /// Scores kept from earlier checks of this session (nil: every password is estimated).
    public var strengthMemo: StrengthMemo?

    public init(
        vault: Vault, now: Date, breaches: BreachCatalog, twoFactor: TwoFactorDirectory, domains: any DomainAnalyzing, breachCheckEnabled: Bool,
        strengthMemo: StrengthMemo? = nil, passkeySites: PasskeyDirectory = PasskeyDirectory(sites: [])
    ) {
        self.vault = vault
        self.now = now
        self.breaches = breaches
        self.twoFactor = twoFactor
        self.domains = domains
        self.breachCheckEnabled = breachCheckEnabled
        self.strengthMemo = strengthMemo
        self.passkeySites = passkeySites
    }
}
