import Foundation

/// A one-time code. `secondsLeft` and `period` are absent for HOTP; `counter` is HOTP's next counter.
public struct CodeReply: Codable, Sendable, Equatable {
    public var kind: String
    public var code: String?
    public var secondsLeft: Int?
    public var period: Int?
    public var counter: Int?
    public var itemID: String
    public var title: String

    public init(kind: String, code: String?, secondsLeft: Int?, period: Int?, counter: Int?, itemID: String, title: String) {
        self.kind = kind
        self.code = code
        self.secondsLeft = secondsLeft
        self.period = period
        self.counter = counter
        self.itemID = itemID
        self.title = title
    }
}

/// Options of the password and passphrase generators.
public struct GeneratorRequest: Codable, Sendable, Equatable {
    /// A passphrase of this many words; absent for a random password.
    public var words: Int?
    public var length: Int?
    public var uppercase: Bool
    public var lowercase: Bool
    public var digits: Bool
    public var symbols: Bool
    public var allowSimilar: Bool
    public var separator: String?
    public var capitalize: Bool
    public var includeDigit: Bool
    public var language: String?

    public init(
        words: Int? = nil, length: Int? = nil, uppercase: Bool = true, lowercase: Bool = true, digits: Bool = true, symbols: Bool = true,
        allowSimilar: Bool = false, separator: String? = nil, capitalize: Bool = false, includeDigit: Bool = false, language: String? = nil
    ) {
        self.words = words
        self.length = length
        self.uppercase = uppercase
        self.lowercase = lowercase
        self.digits = digits
        self.symbols = symbols
        self.allowSimilar = allowSimilar
        self.separator = separator
        self.capitalize = capitalize
        self.includeDigit = includeDigit
        self.language = language
    }
}

public struct GeneratedReply: Codable, Sendable, Equatable {
    public var password: String
    public var entropyBits: Double

    public init(password: String, entropyBits: Double) {
        self.password = password
        self.entropyBits = entropyBits
    }
}

/// A strength estimate as keys into the wording tables (`strength.label.N`, `strength.warning.*`).
public struct StrengthReply: Codable, Sendable, Equatable {
    public var score: Int
    public var guessesLog10: Double
    public var warning: String?
    public var suggestions: [String]

    public init(score: Int, guessesLog10: Double, warning: String?, suggestions: [String]) {
        self.score = score
        self.guessesLog10 = guessesLog10
        self.warning = warning
        self.suggestions = suggestions
    }
}

public struct FindingView: Codable, Sendable, Equatable {
    public var kind: String
    public var itemID: String
    public var title: String
    public var details: [String: String]
    public var dismissed: Bool
    public var group: Int?

    public init(kind: String, itemID: String, title: String, details: [String: String], dismissed: Bool, group: Int?) {
        self.kind = kind
        self.itemID = itemID
        self.title = title
        self.details = details
        self.dismissed = dismissed
        self.group = group
    }
}

public struct FixFirstView: Codable, Sendable, Equatable {
    public var itemID: String
    public var title: String
    public var kinds: [String]
    public var points: Double

    public init(itemID: String, title: String, kinds: [String], points: Double) {
        self.itemID = itemID
        self.title = title
        self.kinds = kinds
        self.points = points
    }
}

/// The Security Check report.
public struct CheckReply: Codable, Sendable, Equatable {
    public var score: Int
    public var rating: String
    public var logins: Int
    public var secureLogins: Int
    public var tiles: [String: Int]
    public var deductions: [String: Double]
    public var fixFirst: [FixFirstView]
    /// Every login that is not secure, with what keeps it from secure and the points fixing that gains.
    public var notSecure: [FixFirstView]?
    public var findings: [FindingView]
    public var breachCheckEnabled: Bool
    public var lastBreachCheck: Date?
    /// When the breach check ran in this request: how many distinct passwords were found in breaches.
    public var breachedPasswordsFound: Int?
    /// The date of the breach catalogue's snapshot.
    public var catalogueDate: Date?
    /// A reminder to back up: "noPassword" (no backup password yet), "never" (no backup saved yet), "old"
    /// (the last is older than 30 days) or "failing" (the last auto-backup failed); nil when all is well.
    public var backupReminder: String?
    public var lastBackup: Date?

    public init(
        score: Int, rating: String, logins: Int, secureLogins: Int, tiles: [String: Int], deductions: [String: Double], fixFirst: [FixFirstView],
        findings: [FindingView], breachCheckEnabled: Bool, lastBreachCheck: Date?, breachedPasswordsFound: Int?, catalogueDate: Date?
    ) {
        self.score = score
        self.rating = rating
        self.logins = logins
        self.secureLogins = secureLogins
        self.tiles = tiles
        self.deductions = deductions
        self.fixFirst = fixFirst
        self.findings = findings
        self.breachCheckEnabled = breachCheckEnabled
        self.lastBreachCheck = lastBreachCheck
        self.breachedPasswordsFound = breachedPasswordsFound
        self.catalogueDate = catalogueDate
    }
}

public struct FillCandidate: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    public var username: String?
    public var website: String
    /// exact-host or same-domain
    public var match: String
    /// The badge of a login in a shared vault ("Doe family", AF-8).
    public var shared: String?

    public init(id: String, title: String, username: String?, website: String, match: String) {
        self.id = id
        self.title = title
        self.username = username
        self.website = website
        self.match = match
    }
}

public struct FillReply: Codable, Sendable, Equatable {
    /// The host asked for, in Unicode.
    public var host: String
    public var candidates: [FillCandidate]

    public init(host: String, candidates: [FillCandidate]) {
        self.host = host
        self.candidates = candidates
    }
}

/// A secret value the caller asked for (read, fill, show --field): showing it is the point of the request.
public struct ValueReply: Codable, Sendable, Equatable {
    public var itemID: String
    public var title: String
    public var value: String

    public init(itemID: String, title: String, value: String) {
        self.itemID = itemID
        self.title = title
        self.value = value
    }
}

public struct ResolveReply: Codable, Sendable, Equatable {
    /// One value per reference, in order.
    public var values: [String]

    public init(values: [String]) { self.values = values }
}

/// The machine-local settings and their effective values.
public struct SettingsView: Codable, Sendable, Equatable {
    public var autoLockMinutes: Int
    /// nil: on where PAM can be used.
    public var quickUnlock: Bool?
    public var reminderDays: Int
    public var breachCheck: Bool
    public var rangeURL: String
    /// Set when settings.json could not be read: the strictest choices are in force until it is fixed.
    public var damagedFile: String?
    /// Seconds before a copied value is cleared (since version 5).
    public var clipboardSeconds: Int?
    /// The web UI's language and theme (nil: the browser's language, dark), and its shortcuts (since version 5).
    public var webLanguage: String?
    public var webTheme: String?
    public var webShortcuts: Bool?
    /// Erase every vault after ten wrong passwords in a row: this machine's setting (since version 7).
    public var eraseAfterFailures: Bool?
    /// Where the agent refreshes a local vault's breach catalogue from every 6 hours (nil: it does not, or an
    /// agent from before this setting; an account's catalogue comes from its server).
    public var breachCatalogueURL: String?

    public init(autoLockMinutes: Int, quickUnlock: Bool?, reminderDays: Int, breachCheck: Bool, rangeURL: String, damagedFile: String?) {
        self.autoLockMinutes = autoLockMinutes
        self.quickUnlock = quickUnlock
        self.reminderDays = reminderDays
        self.breachCheck = breachCheck
        self.rangeURL = rangeURL
        self.damagedFile = damagedFile
    }
}

public struct QuickUnlockView: Codable, Sendable, Equatable {
    public var offered: Bool
    /// Why not: a key of the quickUnlock.* wording table, with `days` for the reminder.
    public var reason: String?
    public var days: Int?
    /// Whether the system can authenticate the user at all (PAM).
    public var available: Bool
    public var user: String?

    public init(offered: Bool, reason: String?, days: Int?, available: Bool, user: String?) {
        self.offered = offered
        self.reason = reason
        self.days = days
        self.available = available
        self.user = user
    }
}

public struct StatusReply: Codable, Sendable, Equatable {
    public var unlocked: Bool
    public var vault: String
    public var locksInSeconds: Int
    public var autoLockMinutes: Int
    public var pid: Int
    public var lockSignals: String
    public var quickUnlock: QuickUnlockView
    public var protocolVersion: Int
    /// The agent's product version (the web UI's About).
    public var productVersion: String? = ProtocolVersion.product
    /// The account's sync, when this data directory serves an account's vault and it is unlocked.
    public var sync: SyncStatusView?
    /// Whether the data directory has a vault (the web UI offers to make one when not).
    public var vaultExists: Bool?
    /// The account this data directory is signed in to (nil for the local vault).
    public var account: AccountBrief?
    /// When the open vault's last backup was saved (G79), and whether it has a backup password.
    public var lastBackup: Date?
    public var backupPasswordSet: Bool?
    /// SEC-14, SEC-18: how many logins breaches published since the last look put at risk, until Security Check
    /// is next asked for (`check`); nil when none (protocol 17).
    public var breachAlerts: Int?
    /// A random mark that changes with every save of the open vault (any client's, sync's), for a client that
    /// follows changes made elsewhere (the web page does not yet: see docs/CLI.md). Random, not a count: it says
    /// nothing of how much was saved, nor of which vault is open (protocol 17).
    public var vaultMark: Int?

    public init(unlocked: Bool, vault: String, locksInSeconds: Int, autoLockMinutes: Int, pid: Int, lockSignals: String, quickUnlock: QuickUnlockView, protocolVersion: Int = ProtocolVersion.current) {
        self.unlocked = unlocked
        self.vault = vault
        self.locksInSeconds = locksInSeconds
        self.autoLockMinutes = autoLockMinutes
        self.pid = pid
        self.lockSignals = lockSignals
        self.quickUnlock = quickUnlock
        self.protocolVersion = protocolVersion
    }
}

public struct OTPAccountView: Codable, Sendable, Equatable {
    public var issuer: String
    public var account: String
    public var kind: String
    public var period: Int
    public var digits: Int
    public var algorithm: String

    public init(issuer: String, account: String, kind: String, period: Int, digits: Int, algorithm: String) {
        self.issuer = issuer
        self.account = account
        self.kind = kind
        self.period = period
        self.digits = digits
        self.algorithm = algorithm
    }
}

public struct ImportedView: Codable, Sendable, Equatable {
    public var issuer: String
    public var account: String
    /// The item that received the code: a new one, or an existing login (`toLogin`).
    public var itemID: String
    public var title: String
    public var toLogin: Bool

    public init(issuer: String, account: String, itemID: String, title: String, toLogin: Bool) {
        self.issuer = issuer
        self.account = account
        self.itemID = itemID
        self.title = title
        self.toLogin = toLogin
    }
}

public struct ImportReply: Codable, Sendable, Equatable {
    /// Every account found, numbered from 1 in this order.
    public var accounts: [OTPAccountView]
    public var imported: [ImportedView]
    /// Accounts not imported because the vault already holds the same secret (or the selection named it twice).
    public var skippedDuplicates: Int

    public init(accounts: [OTPAccountView], imported: [ImportedView], skippedDuplicates: Int) {
        self.accounts = accounts
        self.imported = imported
        self.skippedDuplicates = skippedDuplicates
    }
}

public struct CountReply: Codable, Sendable, Equatable {
    public var count: Int
    /// The items concerned (fix-https: the ones switched).
    public var items: [ItemSummary]
    /// Items moved into a shared vault: who can see them there, as the verified member list says ("EMAIL (ACCESS)").
    public var seenBy: [String]?

    public init(count: Int, items: [ItemSummary] = []) {
        self.count = count
        self.items = items
    }
}

/// `breach-ranges` (generation 16): the range service's answers for these prefixes, fetched by the agent off
/// its vault queue for a client that cannot reach the service itself (the web page: its policy allows only
/// its own origin). The client pads: the agent cannot tell the real prefixes from the others.
public struct BreachRangesRequest: Codable, Sendable {
    public var prefixes: [String]
    /// The most prefixes one request may name (the page asks in batches, so it can show how far it got).
    public static let maximumPrefixes = 100
    public init(prefixes: [String]) { self.prefixes = prefixes }
}

/// `ranges`: prefix → the range service's answer.
public struct RangesReply: Codable, Sendable, Equatable {
    public var ranges: [String: String]
    public init(ranges: [String: String]) { self.ranges = ranges }
}

/// The five-character SHA-1 prefixes of the vault's login passwords, for the breached-password check.
public struct PrefixesReply: Codable, Sendable, Equatable {
    public var prefixes: [String]
    public init(prefixes: [String]) { self.prefixes = prefixes }
}
