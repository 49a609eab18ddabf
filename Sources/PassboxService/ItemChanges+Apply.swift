import Foundation
import PassboxCore
import PassboxProtocol

/// Limits that hold the same with and without the agent (the agent's frame holds a whole request).
public enum ItemLimits {
    public static let maximumFields = 1_000
    public static let maximumTitle = 4_096
    public static let maximumValue = 1 << 20
    public static let maximumNotes = 2 << 20
}

extension ItemChanges {
    /// Applies the changes to `item`. Returns the strength of a password the user typed when it is weak.
    func apply(to item: inout Item) throws -> StrengthReply? {
        try checkLimits()
        if let title { item.title = title }
        if let username { item.setValue(username, for: "username") }
        if let websites { item.websites = websites }
        if let tags { item.tags = tags }
        if let favorite { item.isFavorite = favorite }
        for name in removeFields {
            guard let index = item.fieldIndex(named: name) else { throw ProtocolError(.noField, ["title": item.title, "field": name, "id": item.id]) }
            if item.fields[index].isCustom { item.fields.remove(at: index) } else { item.fields[index].value = "" }
        }
        var seen = Set<String>()
        for assignment in fieldsFromCommandLine {
            guard seen.insert(assignment.label.lowercased()).inserted else { throw ProtocolError(.duplicateField, ["label": assignment.label]) }
            if Self.isConcealed(assignment.label, in: item) {
                // A concealed value on the command line would be visible in `ps` and shell history.
                throw ProtocolError(.concealedOnCommandLine, ["label": assignment.label])
            }
            item.setValue(assignment.value, for: assignment.label)
        }
        var weak: StrengthReply?
        if let generatePassword {
            if secretFields.contains(where: { $0.label == "password" }) {
                throw ProtocolError(.conflictingOptions, ["first": "--password-stdin", "second": "--generate"])
            }
            Self.setSecret(try Tools.generate(generatePassword).password, for: "password", in: &item)
        }
        for assignment in secretFields {
            Self.setSecret(assignment.value, for: assignment.label, in: &item)
            if assignment.label == "password" {
                // The warning is advice: without libzxcvbn there is none, and the item is saved all the same.
                if let strength = try? Tools.strength(assignment.value, userInputs: [item.title, item.username ?? ""]), strength.score < 3 { weak = strength }
            }
        }
        if let notes { item.notes = notes }
        if let customOrder { Self.reorderCustomFields(&item, customOrder) }
        for credential in removePasskeys ?? [] {
            guard let index = item.passkeys.firstIndex(where: { $0.credentialText == credential }) else {
                throw ProtocolError(.passkeyNotFound, ["rp": "", "title": item.title])
            }
            item.passkeys.remove(at: index)
        }
        return weak
    }

    /// Puts the custom fields in the order `labels` names (by label, ignoring case), in the places custom fields
    /// had, so the category's typed fields stay where they are.
    static func reorderCustomFields(_ item: inout Item, _ labels: [String]) {
        let rank = Dictionary(labels.enumerated().map { ($0.element.lowercased(), $0.offset) }, uniquingKeysWith: { first, _ in first })
        let slots = item.fields.indices.filter { item.fields[$0].isCustom }
        let ordered = slots.map { item.fields[$0] }.enumerated().sorted { a, b in
            let (ra, rb) = (rank[a.element.label.lowercased()] ?? labels.count + a.offset, rank[b.element.label.lowercased()] ?? labels.count + b.offset)
            return ra < rb
        }.map(\.element)
        for (slot, field) in zip(slots, ordered) { item.fields[slot] = field }
    }

    /// The limits on fields, titles, notes and values, the same with and without the agent (the CLI checks
    /// them before a request goes to the agent, so an oversized value is named rather than refused as a frame).
    public func checkLimits() throws {
        let count = fieldsFromCommandLine.count + secretFields.count
        guard count <= ItemLimits.maximumFields else { throw ProtocolError(.tooManyFields, ["count": String(count), "limit": String(ItemLimits.maximumFields)]) }
        if let title, title.utf8.count > ItemLimits.maximumTitle {
            throw ProtocolError(.valueTooLong, ["label": "title", "length": String(title.utf8.count), "limit": String(ItemLimits.maximumTitle)])
        }
        if let notes, notes.utf8.count > ItemLimits.maximumNotes {
            throw ProtocolError(.valueTooLong, ["label": "notes", "length": String(notes.utf8.count), "limit": String(ItemLimits.maximumNotes)])
        }
        for a in fieldsFromCommandLine + secretFields where a.value.utf8.count > ItemLimits.maximumValue {
            throw ProtocolError(.valueTooLong, ["label": a.label, "length": String(a.value.utf8.count), "limit": String(ItemLimits.maximumValue)])
        }
    }

    static func isConcealed(_ label: String, in item: Item) -> Bool {
        if let field = item.field(named: label) { return field.kind.isConcealed }
        return item.category.fieldTemplates.first { $0.key == label || $0.label.caseInsensitiveCompare(label) == .orderedSame }?.kind.isConcealed ?? false
    }

    static func setSecret(_ value: String, for label: String, in item: inout Item) {
        if item.fieldIndex(named: label) != nil || item.category.fieldTemplates.contains(where: { $0.key == label }) {
            item.setValue(value, for: label)
        } else {
            item.fields.append(Field(label: label, kind: .hidden, value: value))
        }
    }
}
