import Foundation

/// One published breach from the Have I Been Pwned catalogue (CC BY 4.0, haveibeenpwned.com).
public struct Breach: Sendable, Equatable {
    public let name: String
    public let title: String
    public let domain: String
    public let breachDate: Date?
    /// When the breach was published (added to the catalogue).
    public let addedDate: Date
    public let dataClasses: [String]
    public let pwnCount: Int

    public init(name: String, title: String, domain: String, breachDate: Date?, addedDate: Date, dataClasses: [String], pwnCount: Int) {
        self.name = name
        self.title = title
        self.domain = domain
        self.breachDate = breachDate
        self.addedDate = addedDate
        self.dataClasses = dataClasses
        self.pwnCount = pwnCount
    }
}

/// The breach catalogue: HIBP's `/api/v3/breaches` JSON, keeping breaches with a domain that are not
/// fabricated, spam lists or retired.
public struct BreachCatalog: Sendable {
    public let breaches: [Breach]
    /// The newest publication date, as the catalogue's date.
    public var snapshotDate: Date? { breaches.map(\.addedDate).max() }

    public init(breaches: [Breach]) { self.breaches = breaches }

    public static func parse(_ data: Data) throws -> BreachCatalog {
        guard let array = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
            throw ValidationError("catalogue.breachesFormat")
        }
        // Foundation's ISO 8601 parse strategies: the formatters before them went through ICU, and reading the
        // catalogue's 1,700 dates took 0.1 s of every Security Check in a debug build.
        let iso = Date.ISO8601FormatStyle()
        let day = Date.ISO8601FormatStyle().year().month().day()
        var out = [Breach]()
        for entry in array {
            guard let name = entry["Name"] as? String, let domain = entry["Domain"] as? String, !domain.isEmpty,
                let added = (entry["AddedDate"] as? String).flatMap({ try? iso.parse($0) })
            else { continue }
            if entry["IsFabricated"] as? Bool == true || entry["IsSpamList"] as? Bool == true || entry["IsRetired"] as? Bool == true { continue }
            out.append(
                Breach(
                    name: name, title: entry["Title"] as? String ?? name, domain: domain.lowercased(),
                    breachDate: (entry["BreachDate"] as? String).flatMap({ try? day.parse($0) }), addedDate: added,
                    dataClasses: entry["DataClasses"] as? [String] ?? [], pwnCount: entry["PwnCount"] as? Int ?? 0))
        }
        guard !out.isEmpty || array.isEmpty else {
            throw ValidationError("catalogue.noBreach")
        }
        return BreachCatalog(breaches: out)
    }
}

/// Sites that support TOTP codes, from the 2FA Directory (MIT, 2fa.directory): `api/v3/totp.json`.
public struct TwoFactorDirectory: Sendable {
    public struct Site: Sendable, Equatable {
        public let name: String
        public let domains: [String]
        public let documentation: String?

        public init(name: String, domains: [String], documentation: String?) {
            self.name = name
            self.domains = domains
            self.documentation = documentation
        }
    }

    public let sites: [Site]

    public init(sites: [Site]) { self.sites = sites }

    public static func parse(_ data: Data) throws -> TwoFactorDirectory {
        guard let array = try? JSONSerialization.jsonObject(with: data) as? [[Any]] else {
            throw ValidationError("catalogue.directoryFormat")
        }
        var sites = [Site]()
        for pair in array where pair.count == 2 {
            guard let name = pair[0] as? String, let info = pair[1] as? [String: Any], let domain = info["domain"] as? String else { continue }
            let tfa = info["tfa"] as? [String] ?? ["totp"]
            guard tfa.contains("totp") else { continue }
            let extra = info["additional-domains"] as? [String] ?? []
            let unescaped = name.replacingOccurrences(of: "&amp;", with: "&")
            sites.append(Site(name: unescaped, domains: ([domain] + extra).map { $0.lowercased() }, documentation: info["documentation"] as? String))
        }
        return TwoFactorDirectory(sites: sites)
    }
}

/// Sites that accept passkeys, from the Passkeys Directory (CC BY 4.0, passkeys.2fa.directory; made into the 2FA
/// Directory's API shape by scripts/make-passkey-directory.py): for signing in without a password
/// ("passwordless") or as a second step ("mfa").
public struct PasskeyDirectory: Sendable {
    public struct Site: Sendable, Equatable {
        public let name: String
        public let domains: [String]
        public let documentation: String?
        /// Whether the site takes a passkey instead of the password (else as a second step only).
        public let signIn: Bool

        public init(name: String, domains: [String], documentation: String?, signIn: Bool) {
            self.name = name
            self.domains = domains
            self.documentation = documentation
            self.signIn = signIn
        }
    }

    public let sites: [Site]

    public init(sites: [Site]) { self.sites = sites }

    public static func parse(_ data: Data) throws -> PasskeyDirectory {
        guard let array = try? JSONSerialization.jsonObject(with: data) as? [[Any]] else {
            throw ValidationError("catalogue.directoryFormat")
        }
        var sites = [Site]()
        for pair in array where pair.count == 2 {
            guard let name = pair[0] as? String, let info = pair[1] as? [String: Any], let domain = info["domain"] as? String else { continue }
            let signIn = info["passwordless"] as? String != nil
            guard signIn || info["mfa"] as? String != nil else { continue }
            let extra = info["additional-domains"] as? [String] ?? []
            sites.append(Site(name: name, domains: ([domain] + extra).map { $0.lowercased() }, documentation: info["documentation"] as? String, signIn: signIn))
        }
        return PasskeyDirectory(sites: sites)
    }
}
