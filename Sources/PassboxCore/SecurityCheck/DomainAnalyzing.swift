/// What Security Check and fill need to know about host names; implemented with libpsl, libidn2 and ICU
/// in `PassboxDomains` (Core does no I/O and links no network data).
public protocol DomainAnalyzing: Sendable {
    /// The registrable domain (eTLD+1) of a host, in ASCII; nil for a public suffix or an IP address.
    func registrableDomain(_ host: String) -> String?
    /// The Unicode form of a host, for display and comparison.
    func unicodeHost(_ host: String) -> String
    /// The ASCII form of a host (punycode), lower-cased.
    func asciiHost(_ host: String) -> String?
    /// A confusable skeleton: look-alike strings have equal skeletons.
    func skeleton(_ text: String) -> String
}
