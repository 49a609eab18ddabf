import Foundation
import PassboxCrypto

/// What a device keeps of its account (`DATA/account.json`, 0600 in the 0700 data directory, version 1,
/// docs/FORMATS.md): the server, the email, the Secret Key (it never leaves the device), this device's id
/// and name, the key-derivation salt and parameters used last (a server cannot change them silently), the
/// sealed keyset and the session token.
public struct AccountRecord: Codable, Equatable, Sendable {
    public static let fileName = "account.json"
    public static let currentVersion = 1

    public var v: Int
    public var server: String
    public var email: String
    public var accountID: String
    /// The Secret Key as written (`P1-…`).
    public var secretKey: String
    public var deviceID: String
    public var deviceName: String
    public var salt: Data
    public var memoryKiB: UInt32
    public var passes: UInt32
    public var lanes: UInt8
    public var keyset: Data
    public var token: String?
    /// Whether the user confirmed keeping the Emergency Kit (by typing the Secret Key's last four
    /// characters); until then every command reminds them. Absent in records written before the kit existed.
    public var kitConfirmed: Bool?

    public init(
        server: String, email: String, accountID: String, secretKey: String, deviceID: String, deviceName: String, salt: Data, memoryKiB: UInt32,
        passes: UInt32, lanes: UInt8, keyset: Data, token: String?
    ) {
        v = Self.currentVersion
        self.server = server
        self.email = email
        self.accountID = accountID
        self.secretKey = secretKey
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.salt = salt
        self.memoryKiB = memoryKiB
        self.passes = passes
        self.lanes = lanes
        self.keyset = keyset
        self.token = token
    }

    public static func path(_ directory: String) -> String { directory + "/" + fileName }

    /// The key-derivation parameters this device last derived with.
    public var parameters: Argon2Parameters { Argon2Parameters(memoryKiB: memoryKiB, passes: passes, lanes: lanes) }

    /// The record, or nil when this data directory has none. A record that does not read is `damaged`; one
    /// of a newer version is `newerFormat`.
    public static func load(_ directory: String) throws -> AccountRecord? {
        try StoreFiles.readVersioned(AccountRecord.self, at: path(directory), current: currentVersion, what: "not an account record")
    }

    /// Writes the record atomically (0600).
    public func save(_ directory: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        try StoreFiles.writeAtomically(Array(try encoder.encode(self)), to: Self.path(directory), directory: directory)
    }

    /// Removes the record (sign-out).
    public static func remove(_ directory: String) throws {
        let path = path(directory)
        guard unlink(path) == 0 || errno == ENOENT else { throw StoreError.io(operation: "remove", path: path, errno: errno) }
    }
}

/// A device remembered for two-factor sign-in (`DATA/remembered-device.json`, 0600, version 1): the server,
/// email and device id it was given for, and the token that skips the second factor there for 30 days. It
/// outlives a sign-out, as "remember this device" promises.
public struct RememberedDevice: Codable, Equatable, Sendable {
    public static let fileName = "remembered-device.json"
    public var v = 1
    public var server: String
    public var email: String
    public var deviceID: String
    public var token: String

    public init(server: String, email: String, deviceID: String, token: String) {
        self.server = server
        self.email = email
        self.deviceID = deviceID
        self.token = token
    }

    /// The remembered device for this server and email, if any (a record that does not read is ignored: it
    /// only saves typing a code).
    public static func load(_ directory: String, server: String, email: String) -> RememberedDevice? {
        guard let data = FileManager.default.contents(atPath: directory + "/" + fileName),
            let device = try? JSONDecoder().decode(RememberedDevice.self, from: data), device.v == 1
        else { return nil }
        return device.server == server && device.email == email ? device : nil
    }

    public func save(_ directory: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        try StoreFiles.writeAtomically(Array(try encoder.encode(self)), to: directory + "/" + Self.fileName, directory: directory)
    }
}

/// The key-derivation parameters and salt this device last used for each account (`DATA/known-accounts.json`,
/// 0600, version 1), kept across sign-outs so a server cannot lower the parameters or swap the salt silently
/// at the next sign-in (security.md §4): both are checked before anything is derived.
public struct KnownAccounts: Codable, Equatable, Sendable {
    public static let fileName = "known-accounts.json"
    public var v = 1
    /// Keyed by "server email".
    public var accounts: [String: Argon2Parameters] = [:]
    /// The salts, base64, keyed as `accounts` (an optional key: files written before it read as before, and
    /// an account with no salt kept is checked from its next sign-in on).
    public var salts: [String: String]?

    public init() {}

    static func key(_ server: String, _ email: String) -> String { server + " " + email }

    /// The file, or an empty one when it is missing; one that does not read is `damaged` (it guards a check,
    /// so it is never silently dropped).
    public static func load(_ directory: String) throws -> KnownAccounts {
        let path = directory + "/" + fileName
        guard let data = FileManager.default.contents(atPath: path) else { return KnownAccounts() }
        guard let known = try? JSONDecoder().decode(KnownAccounts.self, from: data), known.v == 1 else {
            throw StoreError.damaged(path: path, reason: "not a list of known accounts")
        }
        return known
    }

    public func parameters(server: String, email: String) -> Argon2Parameters? { accounts[Self.key(server, email)] }

    public func salt(server: String, email: String) -> [UInt8]? { salts?[Self.key(server, email)].flatMap { Data(base64Encoded: $0) }.map(Array.init) }

    /// Records the parameters and salt used now and saves the file.
    public static func remember(_ parameters: Argon2Parameters, salt: [UInt8], server: String, email: String, in directory: String) throws {
        var known = (try? load(directory)) ?? KnownAccounts()
        known.accounts[key(server, email)] = parameters
        known.salts = (known.salts ?? [:]).merging([key(server, email): Data(salt).base64EncodedString()]) { $1 }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        try StoreFiles.writeAtomically(Array(try encoder.encode(known)), to: directory + "/" + fileName, directory: directory)
    }
}
