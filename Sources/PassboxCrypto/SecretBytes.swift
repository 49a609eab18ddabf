internal import CSodium

/// Bytes of a key or secret, held in locked memory and wiped when released.
///
/// The memory comes from `sodium_malloc` (guard pages, `mlock`, excluded from core dumps where the kernel
/// allows), is zeroed by `sodium_free`, compares in constant time and never prints its contents.
public final class SecretBytes: @unchecked Sendable {
    // @unchecked: the buffer is written only during initialisation and read-only afterwards.
    private let pointer: UnsafeMutableRawPointer
    /// Number of secret bytes.
    public let count: Int

    /// Allocates `count` zero bytes in locked memory and lets `body` fill them.
    public init(count: Int, initializer body: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        Sodium.ensureInitialised()
        precondition(count >= 0)
        guard let raw = sodium_malloc(max(count, 1)) else {
            preconditionFailure("sodium_malloc failed: out of locked memory")
        }
        pointer = raw
        self.count = count
        sodium_memzero(raw, max(count, 1))
        // If `body` throws, every stored property is set, so `deinit` runs and frees the buffer.
        try body(UnsafeMutableRawBufferPointer(start: raw, count: count))
    }

    /// Copies `bytes` into locked memory. The caller should wipe its own copy where it can.
    public convenience init<Bytes: Collection>(copying bytes: Bytes) where Bytes.Element == UInt8 {
        self.init(count: bytes.count) { buffer in
            _ = buffer.initializeMemory(as: UInt8.self, from: bytes)
        }
    }

    /// `count` random bytes from libsodium's generator.
    public static func generate(count: Int) -> SecretBytes {
        SecretBytes(count: count) { buffer in
            if let base = buffer.baseAddress { randombytes_buf(base, buffer.count) }
        }
    }

    deinit { sodium_free(pointer) }

    /// Gives read access to the bytes for the duration of `body`.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Compares with another secret in constant time (for equal lengths).
    public func isEqual(to other: SecretBytes) -> Bool {
        guard count == other.count else { return false }
        return withUnsafeBytes { a in other.withUnsafeBytes { b in ConstantTime.equal(a, b) } }
    }

    /// A copy of the bytes as an ordinary array, for handing to code that needs one (tests, encoders).
    /// Reveals the secret: each caller says why it needs it.
    public func revealBytes() -> [UInt8] {
        withUnsafeBytes { Array($0) }
    }
}

extension SecretBytes: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "SecretBytes(\(count) bytes, redacted)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

/// Constant-time helpers for comparing secrets.
public enum ConstantTime {
    /// True when both buffers have the same length and bytes; the time does not depend on where they differ.
    public static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        if a.count == 0 { return true }
        return sodium_memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
    }

    /// True when both byte arrays are equal, compared in constant time.
    public static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBytes { x in b.withUnsafeBytes { y in equal(x, y) } }
    }

    /// Overwrites an array's bytes with zeros in a way the optimiser cannot drop.
    public static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { sodium_memzero(base, buffer.count) }
        }
    }
}

/// A secret kept for later with its page made inaccessible (`sodium_mprotect_noaccess`): any read, by a bug
/// in this process or a debugger-free memory scan through the process's own code, faults until `open`
/// briefly makes it readable. The bytes stay in locked, guarded memory and are wiped when released.
public final class SealedSecret: @unchecked Sendable {
    // @unchecked: used from one serial queue (the agent's); `open` restores no-access before returning.
    private let pointer: UnsafeMutableRawPointer
    public let count: Int

    /// Copies `secret` into a fresh sealed allocation.
    public init(_ secret: SecretBytes) {
        Sodium.ensureInitialised()
        guard let raw = sodium_malloc(max(secret.count, 1)) else { preconditionFailure("sodium_malloc failed: out of locked memory") }
        pointer = raw
        count = secret.count
        secret.withUnsafeBytes { if let base = $0.baseAddress { raw.copyMemory(from: base, byteCount: $0.count) } }
        sodium_mprotect_noaccess(raw)
    }

    /// A readable copy, in ordinary locked memory, for the duration of one unlock.
    public func open() -> SecretBytes {
        sodium_mprotect_readonly(pointer)
        defer { sodium_mprotect_noaccess(pointer) }
        return SecretBytes(count: count) { $0.copyMemory(from: UnsafeRawBufferPointer(start: pointer, count: count)) }
    }

    deinit {
        sodium_mprotect_readwrite(pointer)
        sodium_free(pointer)
    }
}
