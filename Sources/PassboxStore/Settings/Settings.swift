import Foundation

/// Machine-local, non-secret settings (`settings.json` in the data directory, docs/FORMATS.md).
///
/// A file that exists but cannot be read gives the strictest choices (`Settings.strictest`) and says so
/// (`LoadedSettings.damagedPath`) until it is fixed: never looser defaults.
public struct Settings: Codable, Sendable, Equatable {
    /// The format version written ("v": 1); readers take the keys they know from any version.
    public var v = 1
    public var breachCheck = false
    public var rangeURL: String?
    /// The agent's idle time before it locks: 0 (immediately), 1, 5, 15, 30 or 60 minutes.
    public var autoLockMinutes: Int?
    /// Quick unlock after the agent locks: nil means on where PAM can be used, off elsewhere.
    public var quickUnlock: Bool?
    /// Days after which the master password must be typed again: 14 (default), 30, or 0 for never.
    public var reminderDays: Int?
    /// Seconds before a copied value is cleared from the clipboard (10–600; default 90), for every surface.
    public var clipboardSeconds: Int?
    /// The web UI's language ("en", "de"; nil: the browser's) and theme ("dark", "light"; nil: dark), and
    /// whether its single-key shortcuts act (nil: on). Kept here, not in the browser: its origin's port
    /// changes with every agent.
    public var webLanguage: String?
    public var webTheme: String?
    public var webShortcuts: Bool?
    /// SEC-14: the newest publication date (seconds since 1970) of the breaches already matched against the
    /// vault; breaches published later are new. Says nothing of the vault (only when the catalogue was looked at).
    public var breachesSeenUntil: Int?
    /// SEC-14 for a vault with no account: where the agent refreshes the breach catalogue from every 6 hours
    /// (nil: never; `passbox settings breach-catalogue on` names Have I Been Pwned's list). Opt-in: a local
    /// vault makes no request on its own otherwise. An account's catalogue comes from its own server.
    public var breachCatalogueURL: String?

    /// Have I Been Pwned's catalogue of breaches (public, no key: the whole list, nothing about the vault sent).
    public static let defaultBreachCatalogueURL = "https://haveibeenpwned.com/api/v3/breaches"

    public static let fileName = "settings.json"
    public static let autoLockChoices = [0, 1, 5, 15, 30, 60]
    public static let defaultAutoLockMinutes = 5
    public static let reminderChoices = [0, 14, 30]
    public static let defaultReminderDays = 14
    public static let clipboardRange = 10...600
    public static let defaultClipboardSeconds = 90
    public static let webLanguages = ["en", "de"]
    public static let webThemes = ["system", "dark", "light"]

    public init() {}

    /// What a damaged file means: quick unlock off, auto-lock after one minute, breach check off.
    public static var strictest: Settings {
        var s = Settings()
        s.quickUnlock = false
        s.autoLockMinutes = 1
        s.reminderDays = 14
        return s
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        v = try c.decodeIfPresent(Int.self, forKey: .v) ?? 1
        breachCheck = try c.decodeIfPresent(Bool.self, forKey: .breachCheck) ?? false
        rangeURL = try c.decodeIfPresent(String.self, forKey: .rangeURL)
        autoLockMinutes = try c.decodeIfPresent(Int.self, forKey: .autoLockMinutes)
        quickUnlock = try c.decodeIfPresent(Bool.self, forKey: .quickUnlock)
        reminderDays = try c.decodeIfPresent(Int.self, forKey: .reminderDays)
        clipboardSeconds = try c.decodeIfPresent(Int.self, forKey: .clipboardSeconds)
        webLanguage = try c.decodeIfPresent(String.self, forKey: .webLanguage)
        webTheme = try c.decodeIfPresent(String.self, forKey: .webTheme)
        webShortcuts = try c.decodeIfPresent(Bool.self, forKey: .webShortcuts)
        breachesSeenUntil = try c.decodeIfPresent(Int.self, forKey: .breachesSeenUntil)
        breachCatalogueURL = try c.decodeIfPresent(String.self, forKey: .breachCatalogueURL)
    }

    /// The clipboard time in force: the setting when it is in range, else the default.
    public var effectiveClipboardSeconds: Int {
        guard let s = clipboardSeconds, Self.clipboardRange.contains(s) else { return Self.defaultClipboardSeconds }
        return s
    }

    /// The auto-lock minutes in force: the setting when it is one of the choices, else the default.
    public var effectiveAutoLockMinutes: Int {
        guard let m = autoLockMinutes, Self.autoLockChoices.contains(m) else { return Self.defaultAutoLockMinutes }
        return m
    }

    public var effectiveReminderDays: Int {
        guard let d = reminderDays, Self.reminderChoices.contains(d) else { return Self.defaultReminderDays }
        return d
    }

    /// The settings of `directory`, the strictest ones when the file cannot be read.
    public static func load(_ directory: String) -> Settings { loadChecked(directory).settings }

    /// The settings and, when the file exists but cannot be read, its path.
    public static func loadChecked(_ directory: String) -> LoadedSettings {
        let path = directory + "/" + fileName
        // Read on every command: plain POSIX calls (no FileManager error objects when it is absent). A file
        // that exists but cannot be read counts as damaged: the strictest choices, never looser defaults.
        let bytes: [UInt8]
        do {
            guard let read = try POSIX.readFile(path) else { return LoadedSettings(settings: Settings(), damagedPath: nil) }
            bytes = read
        } catch {
            return LoadedSettings(settings: .strictest, damagedPath: path)
        }
        guard let settings = try? JSONDecoder().decode(Settings.self, from: Data(bytes)),
            settings.autoLockMinutes.map(autoLockChoices.contains) ?? true,
            settings.reminderDays.map(reminderChoices.contains) ?? true
        else { return LoadedSettings(settings: .strictest, damagedPath: path) }
        return LoadedSettings(settings: settings, damagedPath: nil)
    }

    public func save(_ directory: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try StoreFiles.writeAtomically(Array(try encoder.encode(self)), to: directory + "/" + Self.fileName, directory: directory)
    }
}

public struct LoadedSettings: Sendable, Equatable {
    public let settings: Settings
    /// Set when settings.json exists but could not be read (the strictest settings are in force).
    public let damagedPath: String?
}
