import Foundation
import PassboxCore
import PassboxCrypto

/// One set of bounds for every importer's key derivation (KeePass, Bitwarden, Aegis, 2FAS), checked before
/// any derivation starts: a file names its own parameters, so a hostile one could otherwise ask for hours of
/// work or more memory than the machine has.
///
/// - Argon2 (KeePass 4, Bitwarden): at most 2 GiB, and memory × passes at most 64 GiB (about a minute here).
/// - AES-KDF (KeePass): at most 2^31 rounds. PBKDF2 (Bitwarden, 2FAS): at most 10,000,000 rounds.
/// - scrypt (Aegis): 128 × N × r at most 1 GiB, and that memory × p at most the same 64 GiB of work.
/// - Memory: what a derivation needs, and 16 MiB more, must be free in the machine and this process's cgroup
///   (`ItemSeal.checkMemory`, AL-6).
public enum ImportKDFLimits {
    public static let memoryLimitKiB: UInt64 = 2 << 20
    public static let workLimitMiB: UInt64 = 64 << 10
    public static let aesRoundsLimit: UInt64 = 1 << 31
    public static let pbkdf2RoundsLimit: UInt64 = 10_000_000

    /// Argon2 with `memoryKiB` × `passes`; `name` says which (for the message).
    public static func checkArgon2(memoryKiB: UInt64, passes: UInt64, name: String = "Argon2") throws {
        guard memoryKiB <= memoryLimitKiB, passes <= UInt64(UInt32.max), memoryKiB / 1024 * passes <= workLimitMiB else {
            throw InteropError.unsupported(what: "\(name) with \(memoryKiB / 1024) MiB × \(passes) passes (at most 2 GiB, and 64 GiB × passes)")
        }
        try ItemSeal.checkMemory(for: Argon2Parameters(memoryKiB: UInt32(memoryKiB), passes: 1, lanes: 1))
    }

    /// scrypt with N, r and p as an Aegis slot names them.
    public static func checkScrypt(n: UInt64, r: UInt32, p: UInt32) throws {
        let bytes = n.multipliedReportingOverflow(by: 128 * UInt64(r))
        guard !bytes.overflow, bytes.partialValue <= 1 << 30, (bytes.partialValue >> 20) * UInt64(p) <= workLimitMiB else {
            throw InteropError.unsupported(what: "scrypt with N = \(n), r = \(r), p = \(p) (at most 2^20, 32, 16 and 1 GiB)")
        }
        try ItemSeal.checkMemory(for: Argon2Parameters(memoryKiB: UInt32(bytes.partialValue >> 10), passes: 1, lanes: 1))
    }

    /// PBKDF2 with `rounds` (`name` says which).
    public static func checkPBKDF2(rounds: Int, name: String = "PBKDF2") throws {
        guard rounds >= 1, UInt64(rounds) <= pbkdf2RoundsLimit else { throw InteropError.unsupported(what: "\(name) with \(rounds) iterations (at most 10,000,000)") }
    }
}
