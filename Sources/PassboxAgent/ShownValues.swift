import Foundation
import PassboxCrypto
import PassboxProtocol

/// CLIP-1: the SHA-256 fingerprints of the values this agent answered since the vault opened (an item's fields,
/// notes and title, a field, a code, history, resolved references): what a terminal or the web page showed, and so
/// what a stray selection can have put into the X PRIMARY selection without a Copy action. At lock the agent
/// hands them to a helper that clears PRIMARY if it holds one of them; the values themselves are not kept.
public struct ShownValues {
    /// At most this many (about 3 MiB): past it, later values are not noted.
    public static let limit = 100_000
    private(set) var fingerprints = Set<String>()

    mutating func note(_ reply: Reply) {
        switch reply {
        case .item(let detail): note(detail)
        case .value(let value): add(value.value)
        case .code(let code): add(code.code)
        case .resolved(let resolved): resolved.values.forEach { add($0) }
        case .history(let history):
            for version in history.versions {
                note(version.item)
                for change in version.changes {
                    add(change.old)
                    add(change.new)
                }
            }
        default: break
        }
    }

    private mutating func note(_ detail: ItemDetail) {
        add(detail.summary.title)
        add(detail.notes)
        for field in detail.fields where !field.masked {
            add(field.value)
            add(field.code?.code)
        }
    }

    /// A value as a selection of it would be: without the blanks around it.
    public static func fingerprint<S: StringProtocol>(_ text: S) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        return Hash.sha256Hex(Array(trimmed.utf8))
    }

    private mutating func add(_ value: String?) {
        guard let value, fingerprints.count < Self.limit, let fingerprint = Self.fingerprint(value) else { return }
        fingerprints.insert(fingerprint)
    }

    /// The fingerprints, forgotten here (the vault locks).
    mutating func take() -> Set<String> {
        defer { fingerprints = [] }
        return fingerprints
    }
}
