import Foundation

/// `duress-set` (a new duress vault: `duress` is its password, `new` absent) and `duress-change` (`duress` is
/// the duress vault's password now, `new` the one it gets). Every password travels after the JSON.
public struct DuressRequest: Codable, Sendable {
    /// The open vault's own password, checked as a counted attempt.
    public var current: SecretText
    public var duress: SecretText
    public var new: SecretText?
    public init(current: SecretText, duress: SecretText, new: SecretText? = nil) {
        self.current = current
        self.duress = duress
        self.new = new
    }
}

/// `erase-setting`: erase every vault after ten wrong passwords in a row, on or off (this machine's setting).
public struct EraseSettingRequest: Codable, Sendable {
    public var current: SecretText
    public var on: Bool
    public init(current: SecretText, on: Bool) {
        self.current = current
        self.on = on
    }
}

/// `item-protect`, `item-unprotect` and `item-open`: an item and its own password (after the JSON).
public struct ProtectItemRequest: Codable, Sendable {
    public var item: String
    public var password: SecretText
    public init(item: String, password: SecretText) {
        self.item = item
        self.password = password
    }
}

/// `delete-all-data`: every vault of the file erased, after the open vault's password.
public struct DeleteAllDataRequest: Codable, Sendable {
    public var current: SecretText
    public init(current: SecretText) { self.current = current }
}
