import Foundation

/// How `list` orders items.
public enum ItemSort: String, Sendable, CaseIterable {
    case newest, oldest, az, za, recent
}

extension Vault {
    /// Resolves what a user typed as ITEM: an exact id, an id prefix (at least 4 characters), or a title
    /// (exactly as typed, else ignoring case and accents). More than one match is an error listing the candidates.
    public func resolve(_ reference: String, inTrash: Bool = false) throws -> Item {
        // One pass per rule over the items, without copying them into a pool first (10,000 item copies cost
        // milliseconds on every `read` the agent answers).
        if let exact = items.first(where: { $0.isTrashed == inTrash && $0.id == reference }) { return exact }
        let lower = reference.lowercased()
        var matches = lower.count >= 4 ? items.filter { $0.isTrashed == inTrash && $0.id.hasPrefix(lower) } : []
        if matches.isEmpty {
            matches = items.filter { $0.isTrashed == inTrash && $0.title == reference }
        }
        if matches.isEmpty {
            let wanted = TextFolding.fold(reference)
            matches = items.filter { $0.isTrashed == inTrash && TextFolding.fold($0.title) == wanted }
        }
        switch matches.count {
        case 0: throw VaultError.itemNotFound(reference)
        case 1: return matches[0]
        default:
            throw VaultError.ambiguous(reference, candidates: matches.map { "\($0.id)  \($0.title)  (\($0.category.displayName))" })
        }
    }

    /// Active items filtered and sorted as `passbox list` shows them.
    public func list(category: Category? = nil, tag: String? = nil, favoritesOnly: Bool = false, sort: ItemSort = .az) -> [Item] {
        var result = items.filter { item in
            !item.isTrashed && (category == nil || item.category == category!)
                && (tag == nil || item.tags.contains { $0.caseInsensitiveCompare(tag!) == .orderedSame })
                && (!favoritesOnly || item.isFavorite)
        }
        switch sort {
        case .az, .za:
            // Sort keys are computed once per item, not per comparison.
            let keyed = result.map { (TextFolding.fold($0.title), $0) }
            let sorted = keyed.sorted { $0.0 == $1.0 ? $0.1.id < $1.1.id : $0.0 < $1.0 }.map(\.1)
            result = sort == .az ? sorted : sorted.reversed()
        case .newest: result.sort { ($0.created ?? .distantPast) > ($1.created ?? .distantPast) }
        case .oldest: result.sort { ($0.created ?? .distantPast) < ($1.created ?? .distantPast) }
        case .recent:
            result.sort {
                max($0.lastUsed ?? .distantPast, $0.lastChanged ?? .distantPast) > max($1.lastUsed ?? .distantPast, $1.lastChanged ?? .distantPast)
            }
        }
        return result
    }
}
