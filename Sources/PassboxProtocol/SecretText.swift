import Foundation

/// A password on its way to the agent or service: UTF-8 bytes (NFC) in a buffer of its own, wiped when the
/// value is released, never a `String` that would leave copies behind in freed memory.
///
/// On the wire a secret does not go through JSON at all: the request's JSON names it by number and its bytes
/// follow the JSON in the same frame (docs/PROTOCOL.md, "Secrets"), so the agent copies them straight from
/// the frame (wiped once read) into a `SecretText`. Encoding one with a plain `JSONEncoder` fails, so a
/// password cannot slip into JSON shown to people.
public final class SecretText: Codable, @unchecked Sendable, Equatable {
    // @unchecked: the buffer is written only while the value is made, and read-only afterwards.
    private let storage: UnsafeMutableRawPointer
    /// Number of bytes.
    public let count: Int
    public var isEmpty: Bool { count == 0 }
    private var buffer: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage, count: count) }

    /// Copies `bytes` (which the caller wipes where it can).
    public init(bytes: UnsafeRawBufferPointer) {
        count = bytes.count
        storage = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        if let base = bytes.baseAddress, bytes.count > 0 { storage.copyMemory(from: base, byteCount: bytes.count) }
    }

    /// The NFC form of `text`, so that composed and decomposed accents are the same password (G65). For
    /// text a person typed; the `String` itself cannot be wiped.
    public convenience init(_ text: String) {
        var bytes = Array(text.precomposedStringWithCanonicalMapping.utf8)
        defer { SecretText.wipe(&bytes) }
        self.init(bytes: bytes.withUnsafeBytes { $0 })
    }

    deinit {
        explicit_bzero(storage, count)
        storage.deallocate()
    }

    /// Read access to the bytes for the duration of `body`.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(buffer)
    }

    /// The bytes as a C string (NUL-terminated) for the duration of `body`, in a buffer wiped afterwards.
    public func withCString<R>(_ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        let copy = UnsafeMutableRawPointer.allocate(byteCount: count + 1, alignment: 1)
        defer {
            explicit_bzero(copy, count + 1)
            copy.deallocate()
        }
        if count > 0 { copy.copyMemory(from: storage, byteCount: count) }
        copy.storeBytes(of: 0, toByteOffset: count, as: UInt8.self)
        return try body(copy.assumingMemoryBound(to: CChar.self))
    }

    /// The same bytes, compared in time that does not depend on where they differ (equal lengths).
    public static func == (a: SecretText, b: SecretText) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<a.count { difference |= a.buffer[i] ^ b.buffer[i] }
        return difference == 0
    }

    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } }
    }

    // MARK: Coding

    /// The secrets of one frame, in the order their numbers name them.
    public final class Frame: @unchecked Sendable {
        // @unchecked: one frame is encoded or decoded on one thread.
        public internal(set) var secrets: [SecretText]
        public init(_ secrets: [SecretText] = []) { self.secrets = secrets }
    }

    public static let frameKey = CodingUserInfoKey(rawValue: "passbox.secretFrame")!

    public func encode(to encoder: Encoder) throws {
        guard let frame = encoder.userInfo[Self.frameKey] as? Frame else {
            throw EncodingError.invalidValue(
                "secret", EncodingError.Context(codingPath: encoder.codingPath, debugDescription: "a secret is sent only in a request frame's secret part"))
        }
        var container = encoder.singleValueContainer()
        try container.encode(["secret": frame.secrets.count])
        frame.secrets.append(self)
    }

    public convenience init(from decoder: Decoder) throws {
        let reference = try decoder.singleValueContainer().decode([String: Int].self)
        guard let frame = decoder.userInfo[Self.frameKey] as? Frame, let number = reference["secret"], frame.secrets.indices.contains(number) else {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "the frame has no such secret"))
        }
        let secret = frame.secrets[number]
        self.init(bytes: secret.buffer)
    }
}

extension SecretText: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "SecretText(\(count) bytes, redacted)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
