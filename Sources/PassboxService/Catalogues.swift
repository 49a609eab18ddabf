import Foundation
import PassboxCore
import PassboxProtocol
import PassboxStore

/// The breach catalogue, the 2FA list and the passkey list: a copy the user refreshed (`passbox check
/// update-data`) in the data directory, else the snapshot shipped beside the executable.
public enum Catalogues {
    public static let breachesFile = "hibp-breaches.json"
    public static let twoFactorFile = "2fa-directory-totp.json"
    public static let passkeysFile = "passkey-directory.json"

    public static func load(_ name: String, directory: String) throws -> Data {
        if let data = FileManager.default.contents(atPath: directory + "/" + name) { return data }
        for dir in resourceDirectories {
            if let data = FileManager.default.contents(atPath: dir + "/Data/" + name) { return data }
        }
        throw ProtocolError(.catalogueMissing, ["name": name])
    }

    /// The files `load` reads from, in order: the data directory's copy, then the shipped snapshot.
    public static func candidates(_ name: String, directory: String) -> [String] {
        [directory + "/" + name] + resourceDirectories.map { $0 + "/Data/" + name }
    }

    /// Which file `load` would read and what it is now (device, inode, size, modification and change times):
    /// "-" when there is none, so a catalogue that appears is seen too.
    static func identity(_ name: String, directory: String) -> String {
        for path in [directory + "/" + name] + resourceDirectories.map({ $0 + "/Data/" + name }) {
            var st = stat()
            if stat(path, &st) == 0 {
                return "\(path)|\(st.st_dev)|\(st.st_ino)|\(st.st_size)|\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)|\(st.st_ctim.tv_sec).\(st.st_ctim.tv_nsec)"
            }
        }
        return "-"
    }

    /// Where this module's resources are: a `Passbox_PassboxService.resources` folder beside the binary, under
    /// PASSBOX_RESOURCES or /usr/share/passbox (`InstalledResources`; worked out once: every check asks).
    static let resourceDirectories: [String] = InstalledResources.candidates("Passbox_PassboxService.resources")

    /// Both catalogues, parsed. The last ones parsed are kept with the identity of their files, so an agent
    /// parses them once (150 ms here) and again only when a file changed (`update-data` replaces it in the
    /// data directory from another process; a replaced file is a new inode).
    public static func load(directory: String) throws -> (BreachCatalog, TwoFactorDirectory) {
        let key = identity(breachesFile, directory: directory) + "\n" + identity(twoFactorFile, directory: directory)
        if let kept = Kept.shared.value(for: key) { return kept }
        let parsed = (try BreachCatalog.parse(try load(breachesFile, directory: directory)), try TwoFactorDirectory.parse(try load(twoFactorFile, directory: directory)))
        Kept.shared.keep(parsed, for: key)
        return parsed
    }

    /// The passkey list, parsed (kept as the other two are: parsed again only when its file changed).
    public static func passkeySites(directory: String) throws -> PasskeyDirectory {
        let key = identity(passkeysFile, directory: directory)
        if let kept = KeptPasskeys.shared.value(for: key) { return kept }
        let parsed = try PasskeyDirectory.parse(try load(passkeysFile, directory: directory))
        KeptPasskeys.shared.keep(parsed, for: key)
        return parsed
    }

    final class KeptPasskeys: @unchecked Sendable {
        static let shared = KeptPasskeys()
        private let lock = NSLock()
        private var kept: (key: String, sites: PasskeyDirectory)?

        func value(for key: String) -> PasskeyDirectory? {
            lock.withLock { kept?.key == key ? kept?.sites : nil }
        }

        func keep(_ sites: PasskeyDirectory, for key: String) {
            lock.withLock { kept = (key, sites) }
        }
    }

    /// The last catalogues parsed in this process, under a lock (the agent serves checks on several threads).
    final class Kept: @unchecked Sendable {
        static let shared = Kept()
        private let lock = NSLock()
        private var kept: (key: String, catalogues: (BreachCatalog, TwoFactorDirectory))?

        func value(for key: String) -> (BreachCatalog, TwoFactorDirectory)? {
            lock.withLock { kept?.key == key ? kept?.catalogues : nil }
        }

        func keep(_ catalogues: (BreachCatalog, TwoFactorDirectory), for key: String) {
            lock.withLock { kept = (key, catalogues) }
        }
    }

    /// Parses `data` as the named catalogue (refusing what does not parse) and keeps it in the data directory.
    public static func replace(_ name: String, with data: Data, directory: String) throws {
        switch name {
        case breachesFile: _ = try BreachCatalog.parse(data)
        case passkeysFile: _ = try PasskeyDirectory.parse(data)
        default: _ = try TwoFactorDirectory.parse(data)
        }
        try StoreFiles.writeAtomically(Array(data), to: directory + "/" + name, directory: directory)
    }
}
