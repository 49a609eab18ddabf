/// An item's category. Known categories have typed field templates; an unknown one (written by a newer
/// Passbox) is kept as it is and shown with its raw name.
public struct Category: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let login = Category(rawValue: "login")
    public static let password = Category(rawValue: "password")
    public static let secureNote = Category(rawValue: "secure-note")
    public static let creditCard = Category(rawValue: "credit-card")
    public static let identity = Category(rawValue: "identity")
    public static let bankAccount = Category(rawValue: "bank-account")
    public static let idDocument = Category(rawValue: "id-document")
    public static let driverLicence = Category(rawValue: "driver-licence")
    public static let softwareLicence = Category(rawValue: "software-licence")
    public static let wifi = Category(rawValue: "wifi")
    public static let sshKey = Category(rawValue: "ssh-key")
    public static let apiCredential = Category(rawValue: "api-credential")
    public static let server = Category(rawValue: "server")
    public static let database = Category(rawValue: "database")
    public static let recoveryPhrase = Category(rawValue: "recovery-phrase")
    public static let privateKey = Category(rawValue: "private-key")
    public static let oneTimePassword = Category(rawValue: "one-time-password")
    public static let document = Category(rawValue: "document")

    /// Every category this version knows, in the order menus show them.
    public static let all: [Category] = [
        .login, .password, .secureNote, .creditCard, .identity, .bankAccount, .idDocument, .driverLicence,
        .softwareLicence, .wifi, .sshKey, .apiCredential, .server, .database, .recoveryPhrase, .privateKey,
        .oneTimePassword, .document,
    ]

    public var description: String { rawValue }

    /// Whether this version knows the category's fields.
    public var isKnown: Bool { Category.templates[self] != nil }

    /// A readable name ("Credit Card").
    public var displayName: String { Category.templates[self]?.name ?? rawValue }

    /// The typed fields a new item of this category starts with, in order.
    public var fieldTemplates: [FieldTemplate] { Category.templates[self]?.fields ?? [] }

    /// Finds a category by its raw name or display name, ignoring case, spaces, dashes and underscores.
    public static func named(_ text: String) -> Category? {
        let wanted = simplify(text)
        return all.first { simplify($0.rawValue) == wanted || simplify($0.displayName) == wanted }
            ?? aliases[wanted]
    }

    private static func simplify(_ s: String) -> String {
        String(s.lowercased().filter { $0.isLetter || $0.isNumber })
    }

    private static let aliases: [String: Category] = [
        "note": .secureNote, "card": .creditCard, "passport": .idDocument, "iddocument": .idDocument,
        "driverlicense": .driverLicence, "softwarelicense": .softwareLicence, "license": .softwareLicence,
        "ssh": .sshKey, "api": .apiCredential, "apikey": .apiCredential, "totp": .oneTimePassword, "otp": .oneTimePassword,
        "seed": .recoveryPhrase, "seedphrase": .recoveryPhrase, "cryptorecoveryphrase": .recoveryPhrase,
        "bank": .bankAccount, "db": .database,
    ]
}

/// A typed field a category provides.
public struct FieldTemplate: Sendable, Equatable {
    /// Stable key stored with the field ("username", "password", "number").
    public let key: String
    public let label: String
    public let kind: FieldKind

    public init(_ key: String, _ label: String, _ kind: FieldKind) {
        self.key = key
        self.label = label
        self.kind = kind
    }
}

extension Category {
    struct Definition: Sendable {
        let name: String
        let fields: [FieldTemplate]
    }

    static let templates: [Category: Definition] = [
        .login: Definition(name: "Login", fields: [
            .init("username", "Username", .text), .init("password", "Password", .hidden),
            .init("otp", "One-time password", .otp),
        ]),
        .password: Definition(name: "Password", fields: [.init("password", "Password", .hidden)]),
        .secureNote: Definition(name: "Secure Note", fields: []),
        .creditCard: Definition(name: "Credit Card", fields: [
            .init("cardholder", "Cardholder name", .text), .init("number", "Number", .hidden),
            .init("expiry", "Expiry date", .monthYear), .init("cvc", "Verification number", .hidden),
            .init("pin", "PIN", .hidden), .init("type", "Type", .text),
        ]),
        .identity: Definition(name: "Identity", fields: [
            .init("first-name", "First name", .text), .init("last-name", "Last name", .text),
            .init("birth-date", "Birth date", .date), .init("email", "Email", .email), .init("phone", "Phone", .phone),
            .init("address", "Address", .multiline), .init("company", "Company", .text),
        ]),
        .bankAccount: Definition(name: "Bank Account", fields: [
            .init("bank", "Bank name", .text), .init("owner", "Name on account", .text),
            .init("iban", "IBAN", .text), .init("bic", "BIC / SWIFT", .text),
            .init("account-number", "Account number", .hidden), .init("routing-number", "Routing number", .text),
            .init("pin", "PIN", .hidden),
        ]),
        .idDocument: Definition(name: "Passport / ID Document", fields: [
            .init("document-type", "Document type", .text), .init("number", "Number", .text),
            .init("full-name", "Full name", .text), .init("nationality", "Nationality", .text),
            .init("birth-date", "Birth date", .date), .init("issued", "Issued on", .date),
            .init("expiry", "Expiry date", .date), .init("authority", "Issuing authority", .text),
        ]),
        .driverLicence: Definition(name: "Driver Licence", fields: [
            .init("full-name", "Full name", .text), .init("number", "Number", .text),
            .init("classes", "Classes", .text), .init("birth-date", "Birth date", .date),
            .init("issued", "Issued on", .date), .init("expiry", "Expiry date", .date),
            .init("authority", "Issuing authority", .text),
        ]),
        .softwareLicence: Definition(name: "Software Licence", fields: [
            .init("product", "Product", .text), .init("version", "Version", .text),
            .init("licence-key", "Licence key", .hidden), .init("licensed-to", "Licensed to", .text),
            .init("email", "Registered email", .email), .init("purchased", "Purchase date", .date),
        ]),
        .wifi: Definition(name: "Wi-Fi", fields: [
            .init("ssid", "Network name", .text), .init("password", "Password", .hidden),
            .init("security", "Security", .text),
        ]),
        .sshKey: Definition(name: "SSH Key", fields: [
            .init("private-key", "Private key", .multilineHidden), .init("public-key", "Public key", .multiline),
            .init("passphrase", "Passphrase", .hidden), .init("fingerprint", "Fingerprint", .text),
        ]),
        .apiCredential: Definition(name: "API Credential", fields: [
            .init("username", "Username", .text), .init("credential", "Credential", .hidden),
            .init("type", "Type", .text), .init("hostname", "Host", .url), .init("expiry", "Expiry date", .date),
        ]),
        .server: Definition(name: "Server", fields: [
            .init("hostname", "Host", .url), .init("username", "Username", .text),
            .init("password", "Password", .hidden),
        ]),
        .database: Definition(name: "Database", fields: [
            .init("type", "Type", .text), .init("hostname", "Host", .text), .init("port", "Port", .text),
            .init("database", "Database", .text), .init("username", "Username", .text),
            .init("password", "Password", .hidden),
        ]),
        .recoveryPhrase: Definition(name: "Crypto Recovery Phrase", fields: [
            .init("phrase", "Recovery phrase", .multilineHidden), .init("passphrase", "Passphrase", .hidden),
            .init("wallet", "Wallet", .text),
        ]),
        .privateKey: Definition(name: "Private Key", fields: [
            .init("private-key", "Private key", .multilineHidden), .init("public-key", "Public key", .multiline),
            .init("passphrase", "Passphrase", .hidden),
        ]),
        .oneTimePassword: Definition(name: "One-Time Password", fields: [.init("otp", "One-time password", .otp)]),
        .document: Definition(name: "Document", fields: [.init("expiry", "Expiry date", .date)]),
    ]
}
