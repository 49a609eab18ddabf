import Foundation
import Synchronization
internal import CSodium

/// Randomness from libsodium's `randombytes_buf`, the only source Passbox uses.
public enum SecureRandom {
    /// `count` random bytes.
    public static func bytes(count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { fill($0) }
        return out
    }

    /// Fills a buffer with random bytes. Up to 4 KiB straight from the system (`randombytes_buf`); more (the
    /// random fill of a vault file's unused slots, mebibytes each) as ChaCha20's stream under a fresh random
    /// 32-byte key (`randombytes_buf_deterministic`), which is as unpredictable and indistinguishable from
    /// ciphertext as the key, and costs one system call instead of one per 256 bytes (libsodium asks the kernel
    /// for at most 256 bytes at a time: 61,000 calls for the fifteen empty slots of a new vault). The key is
    /// wiped at once.
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        Sodium.ensureInitialised()
        guard let base = buffer.baseAddress else { return }
        guard buffer.count > 4096 else {
            randombytes_buf(base, buffer.count)
            return
        }
        var seed = [UInt8](repeating: 0, count: Int(randombytes_seedbytes()))
        seed.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) }
        seed.withUnsafeBufferPointer { randombytes_buf_deterministic(base, buffer.count, $0.baseAddress!) }
        ConstantTime.wipe(&seed)
    }

    /// A uniform integer in `0..<upperBound`, without modulo bias (libsodium rejects and redraws).
    public static func uniform(_ upperBound: UInt32) -> UInt32 {
        precondition(upperBound > 0)
        Sodium.ensureInitialised()
        return randombytes_uniform(upperBound)
    }
}

/// Random bytes for identifiers (item, field and version ids), which must be unique and unguessable but are
/// not secrets: they are stored beside the items and sent to the server as they are. An import makes tens of
/// thousands of them, and one `randombytes_buf` call each was sixteen `getrandom` system calls an item (a
/// fifth of a 10,000-entry KeePass import). So they come from a 4 KiB buffer that libsodium fills; each byte
/// is handed out once. A process forked from this one drops the buffer first (`pthread_atfork`), so two
/// processes never hand out the same bytes. Keys, nonces and salts keep calling `SecureRandom` directly.
public enum IdentifierRandom {
    private struct Pool {
        var bytes = [UInt8](repeating: 0, count: 4096)
        var used = 4096
        var registered = false
    }

    private static let pool = Mutex(Pool())
    /// Set in a forked child (by the `pthread_atfork` handler), which then refills before handing anything out.
    private static let forked = Atomic<Bool>(false)

    /// `count` random bytes (at most 64).
    public static func bytes(count: Int) -> [UInt8] {
        precondition((0...64).contains(count))
        return pool.withLock { p in
            if !p.registered {
                p.registered = true
                pthread_atfork(nil, nil) { IdentifierRandom.forked.store(true, ordering: .sequentiallyConsistent) }
            }
            if forked.exchange(false, ordering: .sequentiallyConsistent) { p.used = p.bytes.count }
            if p.used + count > p.bytes.count {
                p.bytes.withUnsafeMutableBytes { SecureRandom.fill($0) }
                p.used = 0
            }
            let out = Array(p.bytes[p.used..<(p.used + count)])
            // Handed out once: the buffer keeps no copy of what it gave.
            for i in p.used..<(p.used + count) { p.bytes[i] = 0 }
            p.used += count
            return out
        }
    }
}
