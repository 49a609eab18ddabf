import Foundation
import PassboxCrypto

/// A one-time-password generator: TOTP (RFC 6238) or HOTP (RFC 4226).
public struct OTPParameters: Sendable, Equatable {
    public enum Kind: String, Sendable { case totp, hotp }

    public var kind: Kind
    public var secret: [UInt8]
    public var algorithm: HMAC.Algorithm
    public var digits: Int
    /// Seconds per code (TOTP).
    public var period: UInt64
    /// The next counter value (HOTP).
    public var counter: UInt64
    public var issuer: String
    public var account: String

    public static let digitsRange = 6...8
    /// The longest period accepted: one year. Longer periods are legal in otpauth but no service uses them,
    /// and a typo (an extra zero) should not silently make a code that never changes.
    public static let maximumPeriod: UInt64 = 366 * 86_400
    /// The largest HOTP counter accepted: one below Int64's largest, so the counter after it is still a
    /// signed 64-bit number everywhere it travels (protobuf int64, JSON, `Int`). A link, setup key or export
    /// asking for more is refused at the door rather than trapping where codes are computed.
    public static let maximumCounter = UInt64(Int64.max) - 1
    /// Shortest secret accepted (RFC 4226 requires 128 bits, many services use 80).
    public static let minimumSecretBytes = 10

    public init(kind: Kind = .totp, secret: [UInt8], algorithm: HMAC.Algorithm = .sha1, digits: Int = 6, period: UInt64 = 30, counter: UInt64 = 0, issuer: String = "", account: String = "") {
        self.kind = kind
        self.secret = secret
        self.algorithm = algorithm
        self.digits = digits
        self.period = period
        self.counter = counter
        self.issuer = issuer
        self.account = account
    }

    /// Checks the settings, saying what is wrong.
    public func validate() throws {
        guard secret.count >= OTPParameters.minimumSecretBytes else {
            throw ValidationError("otp.keyTooShort", ["bits": String(secret.count * 8)])
        }
        guard OTPParameters.digitsRange.contains(digits) else {
            throw ValidationError("otp.digits", ["digits": String(digits)])
        }
        if kind == .totp {
            guard period > 0 else { throw ValidationError("otp.periodZero") }
            guard period <= OTPParameters.maximumPeriod else {
                throw ValidationError("otp.periodTooLong", ["period": String(period)])
            }
        } else {
            guard counter <= OTPParameters.maximumCounter else {
                throw ValidationError("otp.counterTooLarge", ["counter": String(counter), "maximum": String(OTPParameters.maximumCounter)])
            }
        }
    }

    /// The HOTP value for `counter` (RFC 4226 §5.3: dynamic truncation, then modulo 10^digits).
    public func code(counter: UInt64) -> String {
        HOTP.code(algorithm, key: secret, counter: counter, digits: digits)
    }

    /// The TOTP time step for `date`; nil before 1970 (a counter that does not fit).
    public func timeStep(at date: Date) -> UInt64? {
        let seconds = date.timeIntervalSince1970
        guard seconds >= 0, period > 0 else { return nil }
        return UInt64(seconds) / period
    }

    /// The current code and the seconds it stays valid (TOTP), or the code for the stored counter (HOTP).
    public func currentCode(at date: Date) throws -> (code: String, secondsLeft: Int?) {
        try validate()
        switch kind {
        case .hotp: return (code(counter: counter), nil)
        case .totp:
            guard let step = timeStep(at: date) else { throw ValidationError("otp.clockBefore1970") }
            let left = Int(period - UInt64(date.timeIntervalSince1970) % period)
            return (code(counter: step), left)
        }
    }
}
