import Foundation
import PassboxCrypto

/// A killphrase or search passphrase as stored: HMAC-SHA256 of the normalised phrase under the vault's key
/// for that kind, with a salt of its own made anew at every set (security.md §7, G7). Never the phrase.
public struct PhraseDigest: Sendable, Equatable {
    public var salt: [UInt8]
    public var digest: [UInt8]

    public init(salt: [UInt8], digest: [UInt8]) {
        self.salt = salt
        self.digest = digest
    }
}

/// The two kinds of phrase an item can have.
public enum PhraseKind: String, Sendable, CaseIterable {
    /// Searching for it deletes the item silently.
    case killphrase
    /// The item is hidden except while the whole search equals it.
    case searchPassphrase
}

/// Making and matching phrase digests. Both kinds match case- and accent-insensitively (security.md §7,
/// which wins over the seed's case-sensitive killphrase, G2), after trimming the whole query.
public enum Phrases {
    public static let saltLength = 16
    public static let keyLength = 32
    /// The longest phrase kept (longer searches never match, so they cost nothing per item).
    public static let maximumLength = 1024

    /// The bytes a phrase is digested as: trimmed, case and accents folded, NFC, UTF-8; nil when empty or
    /// too long.
    public static func normalized(_ phrase: String) -> [UInt8]? {
        let trimmed = phrase.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.utf8.count <= maximumLength else { return nil }
        let folded = trimmed.precomposedStringWithCanonicalMapping.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        return Array(folded.precomposedStringWithCanonicalMapping.utf8)
    }

    /// A new digest of `normalized` under `key`, with a fresh salt.
    public static func digest(normalized: [UInt8], key: [UInt8]) -> PhraseDigest {
        let salt = SecureRandom.bytes(count: saltLength)
        return PhraseDigest(salt: salt, digest: HMAC.authenticationCode(.sha256, key: key, message: salt + normalized))
    }

    /// Whether `normalized` is the phrase `digest` was made from, under any key of the ring. Every key is
    /// tried and compared in constant time, with no early exit (G7).
    public static func matches(_ normalized: [UInt8], _ digest: PhraseDigest, keys: [[UInt8]]) -> Bool {
        var found = false
        for key in keys {
            let mac = HMAC.authenticationCode(.sha256, key: key, message: digest.salt + normalized)
            if ConstantTime.equal(mac, digest.digest) { found = true }
        }
        return found
    }
}

/// A vault's phrase keys (the keyrings of G7): one ring per kind; the first key makes new digests, the rest
/// came with restored backups and are only matched against. Kept inside the vault's encrypted payload.
public struct PhraseKeyrings: Sendable, Equatable {
    public var killphrase: [[UInt8]]
    public var searchPassphrase: [[UInt8]]

    public init(killphrase: [[UInt8]] = [], searchPassphrase: [[UInt8]] = []) {
        self.killphrase = killphrase
        self.searchPassphrase = searchPassphrase
    }

    /// Rings with a new random key each: every vault (a duress vault too) has its own from birth.
    public static func generate() -> PhraseKeyrings {
        PhraseKeyrings(killphrase: [SecureRandom.bytes(count: Phrases.keyLength)], searchPassphrase: [SecureRandom.bytes(count: Phrases.keyLength)])
    }

    public func ring(_ kind: PhraseKind) -> [[UInt8]] { kind == .killphrase ? killphrase : searchPassphrase }

    public var isEmpty: Bool { killphrase.isEmpty && searchPassphrase.isEmpty }
}

extension Vault {
    /// A new local vault (the first of a file, or a duress vault): empty, with its own keyrings and the
    /// file's secret slot order.
    public static func newLocal(slotOrder: [Int], created: Date) -> Vault {
        var vault = Vault(slotOrder: slotOrder, created: created)
        vault.keyrings = .generate()
        return vault
    }

    /// A digest of `phrase` for an item of this vault (the ring's key is made first if this vault has none).
    public mutating func phraseDigest(_ phrase: String, kind: PhraseKind) throws -> PhraseDigest {
        guard let normalized = Phrases.normalized(phrase) else { throw VaultError.invalidPhrase }
        if keyrings.ring(kind).isEmpty {
            let key = SecureRandom.bytes(count: Phrases.keyLength)
            if kind == .killphrase { keyrings.killphrase = [key] } else { keyrings.searchPassphrase = [key] }
        }
        return Phrases.digest(normalized: normalized, key: keyrings.ring(kind)[0])
    }

    /// Moves items with a search passphrase out of `items` into `hiddenItems`, and hidden items whose
    /// passphrase was taken off back into `items`. Every change ends with this, so `items` (what every list,
    /// search, count and check reads) never holds a hidden item.
    public mutating func settleHiddenItems() {
        if items.contains(where: { $0.searchPassphrase != nil }) {
            hiddenItems.append(contentsOf: items.filter { $0.searchPassphrase != nil })
            items.removeAll { $0.searchPassphrase != nil }
        }
        if hiddenItems.contains(where: { $0.searchPassphrase == nil }) {
            items.append(contentsOf: hiddenItems.filter { $0.searchPassphrase == nil })
            hiddenItems.removeAll { $0.searchPassphrase == nil }
        }
    }

    /// Puts the hidden item `id` among `items` for one change (the change then finds it as any other);
    /// `settleHiddenItems` hides it again. Whether it was hidden.
    @discardableResult
    public mutating func exposeHiddenItem(id: String) -> Bool {
        guard let i = hiddenItems.firstIndex(where: { $0.id == id }) else { return false }
        items.append(hiddenItems.remove(at: i))
        return true
    }

    /// The ids of items (hidden ones and trashed ones too) whose killphrase `query` is.
    public func killphraseMatches(_ query: String) -> [String] {
        guard let normalized = Phrases.normalized(query), !keyrings.killphrase.isEmpty else { return [] }
        var ids = [String]()
        // Each list walked where it is: `items + hiddenItems` copied every item per search.
        for list in [\Vault.items, \Vault.hiddenItems] {
            for item in self[keyPath: list] {
                guard let digest = item.killphrase else { continue }
                if Phrases.matches(normalized, digest, keys: keyrings.killphrase) { ids.append(item.id) }
            }
        }
        return ids
    }

    /// The hidden items whose search passphrase `query` is (trashed ones are left out, as a search leaves
    /// trashed items out).
    public func hiddenMatches(_ query: String) -> [Item] {
        guard !hiddenItems.isEmpty, let normalized = Phrases.normalized(query), !keyrings.searchPassphrase.isEmpty else { return [] }
        return hiddenItems.filter { item in
            guard let digest = item.searchPassphrase else { return false }
            return Phrases.matches(normalized, digest, keys: keyrings.searchPassphrase) && !item.isTrashed
        }
    }

    /// Deletes items for good, with their history, wherever they are (hidden, trashed or not): what a
    /// killphrase does. Returns how many went.
    @discardableResult
    public mutating func deleteSilently(ids: Set<String>) -> Int {
        let before = items.count + hiddenItems.count
        items.removeAll { ids.contains($0.id) }
        hiddenItems.removeAll { ids.contains($0.id) }
        return before - items.count - hiddenItems.count
    }
}
