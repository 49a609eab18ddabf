/// Errors from the cryptographic layer.
///
/// A wrong key, a wrong password and tampered data are all `authenticationFailed`: callers never learn
/// which one it was.
public enum CryptoError: Error, Equatable, Sendable {
    /// The data did not authenticate under the key (wrong key, wrong password or tampered data).
    case authenticationFailed
    /// An input had a length or value the primitive cannot take (a programmer or format error).
    case invalidInput(String)
    /// The C library reported a failure that is not about authentication (for example out of memory).
    case libraryFailure(String)
    /// An envelope carries a version this build does not know.
    case unsupportedVersion(UInt8)
}
