import Foundation
import PassboxCore
import PassboxProtocol
import PassboxStore

/// The breach catalogue and 2FA list: a copy the user refreshed (`passbox check update-data`) in the data
/// directory, else the snapshot shipped beside the executable.
public enum Catalogues {
    public static let breachesFile = "hibp-breaches.json"
    public static let twoFactorFile = "2fa-directory-totp.json"

    public static func load(_ name: String, directory: String) throws -> Data {
        if let data = FileManager.default.contents(atPath: directory + "/" + name) { return data }
        for dir in resourceDirectories() {
            if let data = FileManager.default.contents(atPath: dir + "/Data/" + name) { return data }
        }
        throw ProtocolError(.catalogueMissing, ["name": name])
    }

    /// Where SwiftPM puts this module's resources: a `Passbox_PassboxService.resources` folder beside the binary.
    static func resourceDirectories() -> [String] {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let argv0 = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return [executable, argv0].map { $0.appendingPathComponent("Passbox_PassboxService.resources").path }
    }

    public static func load(directory: String) throws -> (BreachCatalog, TwoFactorDirectory) {
        (try BreachCatalog.parse(try load(breachesFile, directory: directory)), try TwoFactorDirectory.parse(try load(twoFactorFile, directory: directory)))
    }

    /// Parses `data` as the named catalogue (refusing what does not parse) and keeps it in the data directory.
    public static func replace(_ name: String, with data: Data, directory: String) throws {
        if name == breachesFile { _ = try BreachCatalog.parse(data) } else { _ = try TwoFactorDirectory.parse(data) }
        try StoreFiles.writeAtomically(Array(data), to: directory + "/" + name, directory: directory)
    }
}
