import Foundation

/// The account key derivation's Argon2id parameters (security.md §4), in one place for the client's policy
/// (PassboxCore's `AccountKDFPolicy`, which adds the ceiling and the checks) and the account server (which
/// does not link PassboxCore).
public enum AccountKDFParameters {
    /// New accounts: 128 MiB, 4 passes, 1 lane.
    public static let standardNewAccount = Argon2Parameters(memoryKiB: 128 * 1024, passes: 4, lanes: 1)
    /// The least a client accepts from any server, and a server from any sign-up: 64 MiB and 3 passes.
    public static let standardFloor = Argon2Parameters(memoryKiB: 64 * 1024, passes: 3, lanes: 1)

    /// What new accounts get: the standard parameters, or the tests' cheap ones (`TestAccountKDF`).
    public static var newAccount: Argon2Parameters { TestAccountKDF.isOn ? TestAccountKDF.parameters : standardNewAccount }
    /// The floor in force: the standard one, or the tests' cheap parameters (`TestAccountKDF`).
    public static var floor: Argon2Parameters { TestAccountKDF.isOn ? TestAccountKDF.parameters : standardFloor }
}

/// The tests' cheap account key derivation (issue 29): in a debug build, `PASSBOX_TEST_ACCOUNT_KDF=cheap` in
/// the environment makes new accounts use 2 MiB and 1 pass, and lowers the floor of client and server to that.
/// `make test` sets it, so the hundreds of sign-ups, sign-ins and unlocks of the account tests cost
/// milliseconds instead of half a second of 128 MiB each. A release build compiles the check out: the
/// variable means nothing to it, and a release client refuses such an account as below the floor
/// (ReleaseBinaryTests.theCheapAccountDerivationIsRefused).
public enum TestAccountKDF {
    public static let parameters = Argon2Parameters(memoryKiB: 2 * 1024, passes: 1, lanes: 1)
    #if DEBUG
    public static let isOn = ProcessInfo.processInfo.environment["PASSBOX_TEST_ACCOUNT_KDF"] == "cheap"
    #else
    public static let isOn = false
    #endif
}
