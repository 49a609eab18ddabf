import Foundation

/// The browsers paired with this data directory: `browsers.json` (0600, written atomically), each an
/// extension's Ed25519 public key the user confirmed by its code. Public keys only: nothing here is secret,
/// but a key written here is trusted, so the file is as private as the vault's.
public struct PairedBrowsers: Codable, Sendable, Equatable {
    public static let fileName = "browsers.json"
    /// The file's format; a newer one is refused, never rewritten.
    public static let currentFormat = 1

    public struct Browser: Codable, Sendable, Equatable {
        public var id: String
        /// chromium, chrome, firefox.
        public var browser: String
        public var name: String
        /// base64url, 32 bytes.
        public var publicKey: String
        public var pairedAt: Date
        public var lastUsed: Date?
        public init(id: String, browser: String, name: String, publicKey: String, pairedAt: Date, lastUsed: Date? = nil) {
            self.id = id
            self.browser = browser
            self.name = name
            self.publicKey = publicKey
            self.pairedAt = pairedAt
            self.lastUsed = lastUsed
        }
    }

    public var format: Int
    public var browsers: [Browser]

    public init(browsers: [Browser] = []) {
        format = Self.currentFormat
        self.browsers = browsers
    }

    public struct Damaged: Error, Equatable {
        public let path: String
    }

    /// The paired browsers of `directory` (none when the file is absent); a file that cannot be read or is of a
    /// newer format is `Damaged` (nothing is paired then, and nothing is written over it).
    public static func load(_ directory: String) throws -> PairedBrowsers {
        let path = directory + "/" + fileName
        let bytes: [UInt8]
        do {
            guard let read = try POSIX.readFile(path) else { return PairedBrowsers() }
            bytes = read
        } catch {
            throw Damaged(path: path)
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard bytes.count <= 1 << 20, let file = try? decoder.decode(PairedBrowsers.self, from: Data(bytes)), file.format == currentFormat else {
            throw Damaged(path: path)
        }
        return file
    }

    public func save(_ directory: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        try StoreFiles.writeAtomically(Array(try encoder.encode(self)), to: directory + "/" + Self.fileName, directory: directory)
    }
}
