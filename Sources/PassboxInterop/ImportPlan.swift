import Foundation
import PassboxCore

/// What an import would bring over, before anything is written: the items (each with the vault it goes to
/// when groups become vaults), and what cannot be brought over, counted by reason.
public struct ImportPlan: Sendable {
    public struct Entry: Sendable {
        public var item: Item
        /// The vault (by name) the item goes into; nil: the vault the import targets.
        public var vaultName: String?
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
