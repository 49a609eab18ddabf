internal import CSodium

/// Randomness from libsodium's `randombytes_buf`, the only source Passbox uses.
public enum SecureRandom {
    /// `count` random bytes.
    public static func bytes(count: Int) -> [UInt8] {
        Sodium.ensureInitialised()
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { randombytes_buf(base, buffer.count) }
        }
        return out
    }

    /// Fills a buffer with random bytes.
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        Sodium.ensureInitialised()
        if let base = buffer.baseAddress { randombytes_buf(base, buffer.count) }
    }

    /// A uniform integer in `0..<upperBound`, without modulo bias (libsodium rejects and redraws).
    public static func uniform(_ upperBound: UInt32) -> UInt32 {
        precondition(upperBound > 0)
        Sodium.ensureInitialised()
        return randombytes_uniform(upperBound)
    }
}
