/// How a field's value is shown, entered and checked.
public enum FieldKind: String, Sendable, CaseIterable {
    case text, hidden, email, url, phone, date
    case monthYear = "month-year"
    case multiline
    /// Multi-line and concealed (private keys, recovery phrases).
    case multilineHidden = "multiline-hidden"
    /// A one-time-password secret (base32 key or otpauth link).
    case otp

    /// Whether the value is masked until revealed, never searched and never listed.
    public var isConcealed: Bool { self == .hidden || self == .multilineHidden || self == .otp }
}

/// One field of an item: a category's typed field (with a `key`) or a custom one (no key).
public struct Field: Sendable, Equatable {
    /// Stable id within the item, so edits and history can follow a field whose label changes.
    public var id: String
    /// The category template key, or nil for a custom field.
    public var key: String?
    public var label: String
    public var kind: FieldKind
    public var value: String
    /// Keys written by a newer Passbox, kept unchanged.
    public var unknown: [String: PackedValue]

    public init(id: String = Identifier.generateShort(), key: String? = nil, label: String, kind: FieldKind, value: String) {
        self.id = id
        self.key = key
        self.label = label
        self.kind = kind
        self.value = value
        unknown = [:]
    }

    public var isCustom: Bool { key == nil }
}
