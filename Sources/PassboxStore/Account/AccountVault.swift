import Foundation
import PassboxCore
import PassboxCrypto

/// How a typed password becomes the key that opens a vault file's slot.
public enum SlotKeySource: Sendable {
    /// A local vault: Argon2id of the password with the parameters and salt in the file's header.
    case password
    /// The vault of the account signed in on this device: the master password and the Secret Key kept here
    /// make the account unlock key (security.md §4, offline), which must open the keyset this device keeps;
    /// the slot key is then derived from the keyset's private halves. A wrong master password makes a
    /// random key instead, which opens no slot, so it is counted and timed exactly like a wrong vault
    /// password. The master password changes the keyset's seal, never its halves, so `passwd --account`
    /// leaves this vault as it is.
    case account(AccountVaultKey)
}

/// What this device keeps to open its account's vault without the network (from `account.json`).
public struct AccountVaultKey: Sendable {
    public let accountID: String
    public let secretKey: String
    public let salt: [UInt8]
    public let parameters: Argon2Parameters
    public let sealedKeyset: [UInt8]

    public init(_ record: AccountRecord) {
        accountID = record.accountID
        secretKey = record.secretKey
        salt = Array(record.salt)
        parameters = record.parameters
        sealedKeyset = Array(record.keyset)
    }

    /// The slot key for `password` (its NFC UTF-8 bytes), or a random key when the keyset does not open.
    func slotKey(password: SecretBytes) throws -> SecretBytes {
        try openedSlotKey(password: password) ?? SecretBytes.generate(count: 32)
    }

    /// The slot key, or nil when `password` does not open the kept keyset.
    func openedSlotKey(password: SecretBytes) throws -> SecretBytes? {
        try openedKeyset(password: password)?.derivePersonalVaultKey(accountID: accountID)
    }

    /// The kept keyset opened with `password`, or nil when it does not open.
    public func openedKeyset(password: SecretBytes) throws -> AccountKeyset? {
        let secretKey = try SecretKey(parsing: secretKey)
        let keys = try password.withUnsafeBytes { try AccountKeys.derive(password: $0, salt: salt, parameters: parameters, secretKey: secretKey) }
        do {
            return try AccountKeyset(opening: sealedKeyset, accountID: accountID, unlockKey: keys.accountUnlockKey)
        } catch CryptoError.authenticationFailed {
            return nil
        }
    }
}

extension VaultStore {
    /// The directory of an account's vault inside a data directory (one per account id, so signing in to
    /// another account never meets the first one's vault).
    public static func accountDirectory(_ dataDirectory: String, accountID: String) -> String { dataDirectory + "/accounts/" + accountID }

    /// The vault a data directory serves: the account's (in `accounts/ACCOUNTID/`) when this device is signed
    /// in to one, else the local vault.
    public static func serving(_ dataDirectory: String) -> VaultStore {
        if let record = try? AccountRecord.load(dataDirectory), record.accountID.utf8.count == 6,
            record.accountID.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) })
        {
            return VaultStore(directory: accountDirectory(dataDirectory, accountID: record.accountID), keySource: .account(AccountVaultKey(record)))
        }
        return VaultStore(directory: dataDirectory)
    }

    /// Makes the account's vault when it is missing (a device signed in before accounts kept one), once the
    /// master password has opened the kept keyset; a wrong password makes nothing and is `wrongPassword`.
    /// The try is counted and held to the unlock deadline like any unlock, so guesses gain nothing here.
    public func createAccountVault(password: SecretBytes) throws -> OpenVault {
        guard case .account(let account) = keySource else { throw StoreError.accountVaultPassword }
        try POSIX.ensurePrivateDirectory(directory)
        try attempts.beginAttempt(now: clock.now())
        let start = clock.monotonic()
        let key = try account.openedSlotKey(password: password)
        let deadline = timing.deadline(forWork: clock.monotonic() - start)
        guard let key else {
            clock.sleep(until: start + deadline)
            throw StoreError.wrongPassword
        }
        try attempts.succeeded()
        return try create(slotKey: key, parameters: account.parameters)
    }

    /// The account key source of an account's vault (nil for the local vault).
    public var accountKey: AccountVaultKey? {
        if case .account(let key) = keySource { return key }
        return nil
    }

    /// Whether this store is an account's vault (its password is the account's master password).
    public var isAccountVault: Bool {
        if case .account = keySource { return true }
        return false
    }
}
