import Foundation

/// What can go wrong opening or saving a vault, as cases with facts (never a secret); the surfaces word
/// them (ErrorCode and the en/de tables).
public enum StoreError: Error, Equatable, Sendable {
    /// The password opened no vault (or the data did not authenticate): one answer for both.
    case wrongPassword
    /// Too many wrong passwords in a row: the next try is allowed after this many seconds.
    case mustWait(seconds: Int)
    /// The attempt counter at `path` could not be read as one; it was rewritten as the longest wait from
    /// now, and the next try is allowed after this many seconds.
    case attemptCounterDamaged(path: String, seconds: Int)
    /// The data directory belongs to another user (`owner` is its uid): Passbox neither uses nor changes it.
    case directoryNotOwned(path: String, owner: UInt32)
    /// No vault file exists yet.
    case noVault(path: String)
    /// A vault file already exists where one was to be created.
    case vaultExists(path: String)
    /// The file is not a Passbox vault.
    case notAVault(path: String)
    /// The file is a Passbox vault of a format this build does not know.
    case newerFormat(version: Int)
    /// The file is damaged or truncated.
    case damaged(path: String, reason: String)
    /// Another process holds the vault's write lock.
    case busy
    /// The vault changed on disk since it was opened (another process saved).
    case conflict
    /// The vault would outgrow the largest slot.
    case tooLarge
    /// A file-system operation failed.
    case io(operation: String, path: String, errno: Int32)
    /// The new password equals the current one.
    case passwordUnchanged
    /// The vault is an account's: its password is the account's master password (`passwd --account`).
    case accountVaultPassword
    /// The next wrong password would be the tenth in a row: it may only be tried at the unlock prompt (G20).
    case unlockPromptOnly
    /// The new duress password is the open vault's own password (G14).
    case duressSameAsOwn
    /// The password given as this vault's duress password does not open it.
    case wrongDuressPassword
    /// Duress passwords, killphrases, erasing and Delete All Data are for the local vault.
    case localVaultOnly

    /// Whether this is the "wrong password or locked" class (exit code 3).
    public var isAuthentication: Bool {
        switch self {
        case .wrongPassword, .mustWait, .attemptCounterDamaged: true
        default: false
        }
    }
}
