import Foundation

/// What this device believes of sharing (`DATA/sharing.json`, 0600, version 1; docs/FORMATS.md): the keys it
/// pinned for each contact, the newest member list version it verified for each organisation, and the
/// warnings the user has not dealt with. It lives beside the account record, not in the account's folder,
/// and outlives a sign-out: a pin that a sign-out dropped could be replaced at the next lookup unseen
/// (security.md §6, SHR-18).
public struct SharingFile: Codable, Equatable, Sendable {
    public static let fileName = "sharing.json"
    public static let currentVersion = 1
    public var v = SharingFile.currentVersion
    public var contacts: [Contact] = []
    public var lists: [KeptList] = []
    public var warnings: [Warning] = []

    public init() {}

    /// The keys pinned for an email on a server. `pending` holds keys the directory showed later that differ:
    /// the pin stays in force until the user compares the new security code and accepts it.
    public struct Contact: Codable, Equatable, Sendable {
        public var server: String
        public var email: String
        public var accountID: String
        /// The 129-byte key bundle pinned (base64 in the file).
        public var bundle: Data
        public var pinned: Date
        /// Whether the user compared the security code (and it matched) rather than trusting the first sight.
        public var compared: Bool
        public var pending: Data?
        public var pendingAccountID: String?
        public init(server: String, email: String, accountID: String, bundle: Data, pinned: Date, compared: Bool) {
            self.server = server
            self.email = email
            self.accountID = accountID
            self.bundle = bundle
            self.pinned = pinned
            self.compared = compared
        }
    }

    /// The newest version of an organisation's member list this device verified (its encoded bytes).
    public struct KeptList: Codable, Equatable, Sendable {
        public var server: String
        public var orgID: String
        public var head: Data
        /// The organisation code (`#org=`) when this device verified the list from its first version.
        public var code: String?
        /// Whether the organisation is the one the user meant: made here, joined by a link whose code matched,
        /// or its code compared by the user (`passbox org trust`). A list first seen through the server alone
        /// is shown but nothing is signed or sealed on it (nil: not trusted).
        public var trusted: Bool?
        public init(server: String, orgID: String, head: Data, code: String?, trusted: Bool? = nil) {
            self.server = server
            self.orgID = orgID
            self.head = head
            self.code = code
            self.trusted = trusted
        }
    }

    /// A sharing warning (SHR-17): its kind (`keyChanged`, `listInvalid`, `listForked`, `listWentBack`,
    /// `notTheOrganisation`, `grantRefused`, `keysDiffer`), what it concerns, and the technical detail.
    public struct Warning: Codable, Equatable, Sendable {
        public var kind: String
        public var server: String
        public var subject: String
        public var detail: String
        public var seen: Date
        public init(kind: String, server: String, subject: String, detail: String, seen: Date) {
            self.kind = kind
            self.server = server
            self.subject = subject
            self.detail = detail
            self.seen = seen
        }
    }

    public static func path(_ directory: String) -> String { directory + "/" + fileName }

    /// The file, or an empty one when there is none. One that does not read is `damaged` (nothing is
    /// overwritten: a damaged file of pins must not silently become "no pins").
    public static func load(_ directory: String) throws -> SharingFile {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try StoreFiles.readVersioned(SharingFile.self, at: path(directory), current: currentVersion, what: "not Passbox's sharing file", decoder: decoder) ?? SharingFile()
    }

    /// Held while a sharing command or an organisations' sync reads and writes the file: each loads it, asks
    /// the server, and saves it again, and two at once (the agent syncing while `passbox org` runs) would write
    /// over each other's pins, kept heads and warnings. An advisory `flock` on `sharing.lock` beside it, waited
    /// for up to a minute (a sync of a long list takes seconds).
    /// (No data directory yet: nothing to lock, and the command says what is missing.)
    public static func lock(_ directory: String) throws -> SharingLock {
        guard FileManager.default.fileExists(atPath: directory) else { return SharingLock(nil) }
        return SharingLock(try FileLock(path: directory + "/sharing.lock", timeout: 60))
    }

    public func save(_ directory: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        try StoreFiles.writeAtomically(Array(try encoder.encode(self)), to: Self.path(directory), directory: directory)
    }

    public func contact(server: String, email: String) -> Contact? { contacts.first { $0.server == server && $0.email == email } }

    public mutating func set(_ contact: Contact) {
        contacts.removeAll { $0.server == contact.server && $0.email == contact.email }
        contacts.append(contact)
        contacts.sort { ($0.server, $0.email) < ($1.server, $1.email) }
    }

    public func list(server: String, orgID: String) -> Data? { lists.first { $0.server == server && $0.orgID == orgID }?.head }

    /// Keeps a verified head; `trusted` nil keeps what was said before.
    public mutating func keep(server: String, orgID: String, head: Data, code: String?, trusted: Bool? = nil) {
        let before = lists.first { $0.server == server && $0.orgID == orgID }
        lists.removeAll { $0.server == server && $0.orgID == orgID }
        lists.append(KeptList(server: server, orgID: orgID, head: head, code: code ?? before?.code, trusted: trusted ?? before?.trusted))
        lists.sort { ($0.server, $0.orgID) < ($1.server, $1.orgID) }
    }

    /// Adds a warning unless the same one is already there.
    public mutating func warn(_ warning: Warning) {
        guard !warnings.contains(where: { $0.kind == warning.kind && $0.server == warning.server && $0.subject == warning.subject && $0.detail == warning.detail }) else {
            return
        }
        warnings.append(warning)
    }
}

/// The sharing file's lock, released when the value goes.
public final class SharingLock {
    private let lock: FileLock?
    init(_ lock: FileLock?) { self.lock = lock }
}
