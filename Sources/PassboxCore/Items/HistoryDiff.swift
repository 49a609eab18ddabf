/// One difference between two versions of an item. Values of concealed fields are included, flagged with
/// `isConcealed`: whoever shows a change masks them unless the user asked to reveal.
public enum FieldChange: Sendable, Equatable {
    case title(from: String, to: String)
    /// A field, matched by label; `nil` where the version has no field with that label.
    case field(label: String, from: String?, to: String?, isConcealed: Bool)
    case websites(from: [String], to: [String])
    case notes(from: String, to: String)
    case tags(from: [String], to: [String])
    case favorite(isFavorite: Bool)
}

/// What changed between two versions of an item, for history lists.
public enum HistoryDiff {
    /// The changes from `old` to `new`: the title, then fields by label in label order (the first field with
    /// each label; a field counts as concealed if it is in either version), then websites, notes, tags and the
    /// favorite mark. Dates, history and dismissals are not content and are never reported.
    public static func changes(from old: Item, to new: Item) -> [FieldChange] {
        var changes = [FieldChange]()
        if old.title != new.title { changes.append(.title(from: old.title, to: new.title)) }
        let labels = Set(old.fields.map(\.label) + new.fields.map(\.label))
        for label in labels.sorted() {
            let a = old.fields.first { $0.label == label }
            let b = new.fields.first { $0.label == label }
            guard a?.value != b?.value else { continue }
            let concealed = (a?.kind.isConcealed ?? false) || (b?.kind.isConcealed ?? false)
            changes.append(.field(label: label, from: a?.value, to: b?.value, isConcealed: concealed))
        }
        if old.websites != new.websites { changes.append(.websites(from: old.websites, to: new.websites)) }
        if old.notes != new.notes { changes.append(.notes(from: old.notes, to: new.notes)) }
        if old.tags != new.tags { changes.append(.tags(from: old.tags, to: new.tags)) }
        if old.isFavorite != new.isFavorite { changes.append(.favorite(isFavorite: new.isFavorite)) }
        return changes
    }

    /// Each version in `item`'s history, newest first, with the changes from it to the version that replaced it.
    public static func versionChanges(of item: Item) -> [(version: ItemVersion, changes: [FieldChange])] {
        var newer = item
        var out = [(version: ItemVersion, changes: [FieldChange])]()
        for version in item.history.reversed() {
            out.append((version, changes(from: version.item, to: newer)))
            newer = version.item
        }
        return out
    }
}
