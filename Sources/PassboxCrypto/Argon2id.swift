internal import CArgon2
internal import CSodium

/// Argon2id (v1.3) parameters, recorded beside every use so a derivation can always be repeated.
public struct Argon2Parameters: Sendable, Equatable, Hashable, Codable {
    /// Memory in KiB.
    public var memoryKiB: UInt32
    /// Number of passes over memory (t).
    public var passes: UInt32
    /// Degree of parallelism (lanes).
    public var lanes: UInt8

    public init(memoryKiB: UInt32, passes: UInt32, lanes: UInt8) {
        self.memoryKiB = memoryKiB
        self.passes = passes
        self.lanes = lanes
    }

    /// Memory × passes in MiB, the work figure calibration maximises.
    public var work: Double { Double(memoryKiB) / 1024 * Double(passes) }
}

/// Which Argon2 variant to run (Argon2d only for reading other apps' files, such as KeePass).
public enum Argon2Variant: Sendable {
    case argon2id
    case argon2d
}

/// Argon2 password hashing.
///
/// One lane with a 16-byte salt runs on libsodium (the fastest single-lane code here); every other shape runs
/// on the reference library libargon2. Both compute the same function (a test pins that).
public enum Argon2 {
    /// Derives `length` bytes from `password` into locked memory.
    public static func derive(
        password: UnsafeRawBufferPointer, salt: [UInt8], parameters: Argon2Parameters, length: Int = 32,
        variant: Argon2Variant = .argon2id, secret: [UInt8] = [], associatedData: [UInt8] = []
    ) throws -> SecretBytes {
        guard salt.count >= 8, length >= 16, parameters.passes >= 1, parameters.lanes >= 1,
            parameters.memoryKiB >= 8 * UInt32(parameters.lanes)
        else { throw CryptoError.invalidInput("Argon2 parameters out of range") }
        Sodium.ensureInitialised()
        let useSodium =
            variant == .argon2id && parameters.lanes == 1 && salt.count == Int(crypto_pwhash_saltbytes())
            && secret.isEmpty && associatedData.isEmpty
        return try SecretBytes(count: length) { out in
            let outPointer = out.baseAddress!.assumingMemoryBound(to: UInt8.self)
            if useSodium {
                let result = crypto_pwhash(
                    outPointer, UInt64(length),
                    UnsafeRawPointer(password.baseAddress ?? UnsafeRawPointer(CryptoScratch.empty)).assumingMemoryBound(to: CChar.self), UInt64(password.count),
                    salt, UInt64(parameters.passes), Int(parameters.memoryKiB) * 1024,
                    crypto_pwhash_alg_argon2id13())
                try Sodium.check(result, failure: .libraryFailure("Argon2id ran out of memory"))
            } else {
                try runReference(
                    out: outPointer, length: length, password: password, salt: salt, parameters: parameters,
                    variant: variant, secret: secret, associatedData: associatedData)
            }
        }
    }

    /// Derives from a password given as bytes in an array (wiped by the caller).
    public static func derive(
        password: [UInt8], salt: [UInt8], parameters: Argon2Parameters, length: Int = 32,
        variant: Argon2Variant = .argon2id, secret: [UInt8] = [], associatedData: [UInt8] = []
    ) throws -> SecretBytes {
        try password.withUnsafeBytes {
            try derive(
                password: $0, salt: salt, parameters: parameters, length: length, variant: variant, secret: secret,
                associatedData: associatedData)
        }
    }

    private static func runReference(
        out: UnsafeMutablePointer<UInt8>, length: Int, password: UnsafeRawBufferPointer, salt: [UInt8],
        parameters: Argon2Parameters, variant: Argon2Variant, secret: [UInt8], associatedData: [UInt8]
    ) throws {
        var saltCopy = salt
        var secretCopy = secret
        var adCopy = associatedData
        // libargon2 takes non-const pointers for inputs it only reads; the copies keep our arrays untouched.
        let passwordCopy = UnsafeMutablePointer<UInt8>.allocate(capacity: max(password.count, 1))
        defer {
            sodium_memzero(passwordCopy, max(password.count, 1))
            passwordCopy.deallocate()
            ConstantTime.wipe(&secretCopy)
        }
        if password.count > 0 { passwordCopy.initialize(from: password.bindMemory(to: UInt8.self).baseAddress!, count: password.count) }
        let result: Int32 = saltCopy.withUnsafeMutableBufferPointer { s in
            secretCopy.withUnsafeMutableBufferPointer { k in
                adCopy.withUnsafeMutableBufferPointer { a in
                    var context = argon2_context()
                    context.out = out
                    context.outlen = UInt32(length)
                    context.pwd = passwordCopy
                    context.pwdlen = UInt32(password.count)
                    context.salt = s.baseAddress
                    context.saltlen = UInt32(s.count)
                    context.secret = k.count > 0 ? k.baseAddress : nil
                    context.secretlen = UInt32(k.count)
                    context.ad = a.count > 0 ? a.baseAddress : nil
                    context.adlen = UInt32(a.count)
                    context.t_cost = parameters.passes
                    context.m_cost = parameters.memoryKiB
                    context.lanes = UInt32(parameters.lanes)
                    context.threads = UInt32(parameters.lanes)
                    context.version = UInt32(ARGON2_VERSION_13.rawValue)
                    context.flags = 0  // ARGON2_DEFAULT_FLAGS, a macro Swift does not import
                    return argon2_ctx(&context, variant == .argon2id ? Argon2_id : Argon2_d)
                }
            }
        }
        guard result == ARGON2_OK.rawValue else {
            let message = String(cString: argon2_error_message(result))
            throw CryptoError.libraryFailure("Argon2: \(message)")
        }
    }
}
