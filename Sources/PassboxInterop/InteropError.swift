/// Why another app's file could not be read or written: a closed set with facts, never a secret or a value
/// from the file. The service turns it into a `ProtocolError` that each surface words.
public enum InteropError: Error, Equatable, Sendable {
    /// The file is not of the format it was read as (its signature or structure is wrong).
    case notThisFormat(format: String)
    /// The file ends before its structure does.
    case truncated
    /// The file is damaged: a hash, a length or a structure does not hold (what, in a few words).
    case damaged(reason: String)
    /// The password (or key file) does not open the file, or the file was changed: one answer for both.
    case wrongPassword
    /// The file uses something this Passbox does not read (a cipher, a key derivation, a version).
    case unsupported(what: String)
    /// The file (or what it expands to) is larger than an import takes.
    case tooLarge(limitMiB: Int)
    /// Nothing in the file could be brought over.
    case empty
    /// A CSV file whose columns are none Passbox knows, and no mapping names them.
    case unknownColumns(columns: String)
    /// A CSV mapping that names a target or a column that does not exist.
    case badMapping(name: String, columns: String)
}
