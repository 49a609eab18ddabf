internal import CSodium

/// The one seam to libsodium: initialises it once and turns its return codes into `CryptoError`.
enum Sodium {
    /// `sodium_init` is idempotent and thread-safe; calling it from a lazy global runs it once.
    private static let initialised: Bool = sodium_init() >= 0

    static func ensureInitialised() {
        precondition(initialised, "libsodium failed to initialise")
    }

    /// Maps libsodium's 0 / -1 convention: -1 from a verifying function means the data did not authenticate.
    static func check(_ result: Int32, failure: CryptoError = .authenticationFailed) throws {
        if result != 0 { throw failure }
    }
}

/// A zeroed byte whose address C functions get in place of an empty buffer's nil base address.
enum CryptoScratch {
    // Never written: C callees only read it (with a length of zero), so sharing it is safe.
    nonisolated(unsafe) static let empty: UnsafeMutablePointer<UInt8> = {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 16)
        p.initialize(repeating: 0, count: 16)
        return p
    }()
}
