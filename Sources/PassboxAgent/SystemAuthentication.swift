import Foundation
import PassboxProtocol
internal import CPAMSupport

/// Asks the operating system to authenticate the agent's own user (PAM), for quick unlock.
public enum SystemAuthentication {
    /// The PAM service quick unlock uses: `/etc/pam.d/passbox`, which `make run` installs
    /// (`@include common-auth` and `common-account`: the user's login password, as `su` or a screen locker asks).
    public static let defaultService = "passbox"

    public enum Outcome: Equatable, Sendable {
        case accepted
        /// PAM refused, with its reason ("Authentication failure").
        case refused(String)
        /// PAM cannot be used here (no libpam, no such service).
        case unavailable(String)
    }

    /// Why quick unlock cannot use PAM on this machine, or nil when it can.
    public static func unavailability(service: String) -> String? {
        guard FileManager.default.fileExists(atPath: "/etc/pam.d/" + service) else {
            return "the PAM service file /etc/pam.d/\(service) is not installed (make run installs it)"
        }
        guard CPAM_available() == 1 else { return "libpam.so.0 could not be loaded" }
        guard userName() != nil else { return "this user has no name in the password database" }
        return nil
    }

    /// The name of the user this process runs as.
    public static func userName() -> String? {
        guard let entry = getpwuid(getuid()), let name = entry.pointee.pw_name else { return nil }
        return String(cString: name)
    }

    /// Authenticates this process's user with `password` through `service`.
    public static func authenticate(service: String, password: SecretText) -> Outcome {
        if let why = unavailability(service: service) { return .unavailable(why) }
        guard let user = userName() else { return .unavailable("this user has no name") }
        var error = [CChar](repeating: 0, count: 256)
        let result = password.withCString { CPAM_authenticate(service, user, $0, &error, error.count) }
        let message = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch result {
        case 0: return .accepted
        case 1: return .refused(message)
        default: return .unavailable(message)
        }
    }
}
