import Foundation

/// What can go wrong opening or saving a vault, each with a message that says what happened and a hint
/// that says what to do. Messages never contain a secret.
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

    public var message: String {
        switch self {
        case .wrongPassword: "wrong password"
        case .mustWait(let s): "too many wrong passwords in a row; the next try is possible in \(Self.minutes(s))"
        case .attemptCounterDamaged(let p, let s):
            "the attempt counter \(p) was damaged and now counts as the longest wait; the next try is possible in \(Self.minutes(s))"
        case .directoryNotOwned(let p, let owner): "the data directory \(p) belongs to another user (uid \(owner))"
        case .noVault(let p): "there is no vault at \(p)"
        case .vaultExists(let p): "a vault already exists at \(p)"
        case .notAVault(let p): "\(p) is not a Passbox vault file"
        case .newerFormat(let v): "this vault uses format version \(v), which needs a newer Passbox"
        case .damaged(let p, let r): "the vault file \(p) is damaged (\(r)); it was not changed"
        case .busy: "another Passbox process is saving this vault"
        case .conflict: "the vault was changed by another Passbox process while this one had it open; nothing was saved"
        case .tooLarge: "the vault is too large to save (over 1 GiB per slot)"
        case .io(let op, let p, let e): "could not \(op) \(p): \(String(cString: strerror(e)))"
        case .passwordUnchanged: "the new password must differ from the current one"
        }
    }

    public var hint: String {
        switch self {
        case .wrongPassword: "check Caps Lock and the keyboard layout, then try again"
        case .mustWait: "wait, then try again; each wrong password from now on adds a longer wait"
        case .attemptCounterDamaged: "wait, then try again; the wait does not restart"
        case .directoryNotOwned: "use a directory of your own (--data DIR), or have its owner give it to you"
        case .noVault: "run \"passbox init\" to create one, or pass --data DIR to use another directory"
        case .vaultExists: "use \"passbox passwd\" to change its password, or choose another directory with --data DIR"
        case .notAVault: "check the path; Passbox never writes to a file it does not recognise"
        case .newerFormat: "update Passbox; this version leaves the file untouched"
        case .damaged: "restore the vault file from a backup; Passbox will not overwrite it"
        case .busy: "wait for the other command to finish, then try again"
        case .conflict: "run the command again"
        case .tooLarge: "move some documents out of the vault"
        case .io: "check the directory's permissions and free space"
        case .passwordUnchanged: "choose a new password"
        }
    }

    /// Whether this is the "wrong password or locked" class (exit code 3).
    public var isAuthentication: Bool {
        switch self {
        case .wrongPassword, .mustWait, .attemptCounterDamaged: true
        default: false
        }
    }

    private static func minutes(_ seconds: Int) -> String {
        let m = (seconds + 59) / 60
        return m == 1 ? "1 minute" : "\(m) minutes"
    }
}
