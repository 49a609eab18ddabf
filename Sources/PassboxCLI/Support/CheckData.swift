import Foundation
import PassboxCore
import PassboxStore

/// Machine-local, non-secret settings (`settings.json` in the data directory).
struct Settings: Codable {
    /// The format version written ("v": 1); readers take the keys they know from any version.
    var v = 1
    var breachCheck = false
    var rangeURL: String?
    /// The agent's idle time before it locks: 0 (immediately), 1, 5, 15, 30 or 60 minutes.
    var autoLockMinutes: Int?
    /// Quick unlock after the agent locks: nil means on where PAM can be used, off elsewhere.
    var quickUnlock: Bool?
    /// Days after which the master password must be typed again: 14 (default), 30, or 0 for never.
    var reminderDays: Int?

    init() {}

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        v = try c.decodeIfPresent(Int.self, forKey: .v) ?? 1
        breachCheck = try c.decodeIfPresent(Bool.self, forKey: .breachCheck) ?? false
        rangeURL = try c.decodeIfPresent(String.self, forKey: .rangeURL)
        autoLockMinutes = try c.decodeIfPresent(Int.self, forKey: .autoLockMinutes)
        quickUnlock = try c.decodeIfPresent(Bool.self, forKey: .quickUnlock)
        reminderDays = try c.decodeIfPresent(Int.self, forKey: .reminderDays)
    }

    static func load(_ directory: String) -> Settings {
        guard let data = FileManager.default.contents(atPath: directory + "/settings.json"),
            let settings = try? JSONDecoder().decode(Settings.self, from: data)
        else { return Settings() }
        return settings
    }

    func save(_ directory: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try StoreFiles.writeAtomically(Array(try encoder.encode(self)), to: directory + "/settings.json", directory: directory)
    }
}

/// The breach catalogue and 2FA list: a copy the user refreshed (`passbox check update-data`) in the data
/// directory, else the snapshot shipped beside the executable.
enum CheckData {
    static let breachesFile = "hibp-breaches.json"
    static let twoFactorFile = "2fa-directory-totp.json"

    static func load(_ name: String, directory: String) throws -> Data {
        if let data = FileManager.default.contents(atPath: directory + "/" + name) { return data }
        for dir in resourceDirectories() {
            if let data = FileManager.default.contents(atPath: dir + "/Data/" + name) { return data }
        }
        throw CLIError.failure("the bundled \(name) was not found next to the passbox executable", hint: "run \"passbox check update-data\" with --breaches-file/--2fa-file, or run passbox from its build directory")
    }

    /// Where SwiftPM puts this module's resources: a `Passbox_PassboxCLI.resources` folder beside the binary.
    static func resourceDirectories() -> [String] {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let argv0 = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return [executable, argv0].map { $0.appendingPathComponent("Passbox_PassboxCLI.resources").path }
    }

    static func catalogs(directory: String) throws -> (BreachCatalog, TwoFactorDirectory) {
        (try BreachCatalog.parse(try load(breachesFile, directory: directory)), try TwoFactorDirectory.parse(try load(twoFactorFile, directory: directory)))
    }
}
