import Foundation
import PassboxCore

/// What an import would bring over, before anything is written: the items (each with the vault it goes to
/// when groups become vaults), and what cannot be brought over, counted by reason.
public struct ImportPlan: Sendable {
    public struct Entry: Sendable {
        public var item: Item
        /// The vault (by name) the item goes into; nil: the vault the import targets.
        public var vaultName: String?
        /// Files the entry carries (KeePass attachments), encrypted as attachments when the import is confirmed.
        public var files: [File] = []
        /// Files of versions in the item's history, by the version's index in `item.history`.
        public var versionFiles: [Int: [File]] = [:]

        /// How many blobs its files make: a file of the same `reference` is one blob, wherever it is.
        public var blobCount: Int {
            let all = files + versionFiles.values.flatMap { $0 }
            let referenced = Set(all.compactMap(\.reference))
            return referenced.count + all.filter { $0.reference == nil }.count
        }
    }

    /// A file an entry carries: its name and bytes (shared with the file's pool, not copied), and where in the
    /// source's pool it is (a version and the current entry that share a file share one blob).
    public struct File: Sendable {
        public var name: String
        public var bytes: [UInt8]
        public var reference: Int?
        public init(name: String, bytes: [UInt8], reference: Int? = nil) {
            self.name = name
            self.bytes = bytes
            self.reference = reference
        }
    }

    public var entries: [Entry] = []
    /// Reason code → how many ("attachment", "recoveryPhrase", "autoType" …); the surfaces word them.
    public var notBrought: [String: Int] = [:]
    /// A line about the source: "KDBX 4.0, ChaCha20, Argon2d 64 MiB × 10 passes × 2 lanes".
    public var source: String = ""

    public init() {}

    mutating func skip(_ reason: String, _ count: Int = 1) {
        guard count > 0 else { return }
        notBrought[reason, default: 0] += count
    }
}

extension ImportPlan.Entry {
    /// An entry made outside the importers (a plan read back from the parse child).
    public init(item: Item) {
        self.init(item: item, vaultName: nil)
    }
}

/// What every importer does alike with an item it is making.
extension Item {
    /// Nothing to keep: no title, notes, website or field value.
    var isBlank: Bool { title.isEmpty && notes.isEmpty && websites.isEmpty && fields.allSatisfy { $0.value.isEmpty } }

    /// A website when it is an address; otherwise kept as a text field (`cmd://…`, `androidapp://…`, a place name)
    /// rather than refused.
    mutating func addWebsite(_ site: String, fieldLabel: String = "URL") {
        let site = site.trimmingWhitespace()
        guard !site.isEmpty, !websites.contains(site) else { return }
        if (try? Validation.normalizedURL(site)) != nil {
            websites.append(site)
        } else {
            fields.append(Field(label: KeePassImport.uniqueLabel(fieldLabel, in: self), kind: .text, value: site))
        }
    }

    /// A one-time-password setup in the item's own field when it reads, else kept concealed under its name.
    mutating func addOneTimePassword(_ setup: String) {
        guard !setup.isEmpty else { return }
        if (try? OTPInput.parse(setup)) != nil, category.fieldTemplates.contains(where: { $0.key == "otp" }) {
            setValue(setup, for: "otp")
        } else {
            fields.append(Field(label: KeePassImport.uniqueLabel("One-time password setup", in: self), kind: .hidden, value: setup))
        }
    }
}

/// Which items an export writes: never the trashed ones, nor those sealed under their own password (which an
/// export cannot open); both are counted by reason ("trashed", "sealed"). Hidden items never reach an export.
enum ExportSelection {
    static func split(_ items: [Item]) -> (kept: [Item], leftOut: [String: Int]) {
        var leftOut: [String: Int] = [:]
        var kept: [Item] = []
        for item in items {
            if item.isTrashed {
                leftOut["trashed", default: 0] += 1
            } else if item.sealed != nil {
                leftOut["sealed", default: 0] += 1
            } else {
                kept.append(item)
            }
        }
        return (kept, leftOut)
    }
}
