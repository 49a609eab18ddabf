internal import CSodium

/// libsodium's secretstream (XChaCha20-Poly1305 with a rekeying state): a sequence of messages under one key
/// that can be read back only whole and in order. Dropping, repeating or reordering a message fails to
/// authenticate, and a stream whose last message is not tagged final is known to be cut short. Passbox uses
/// it for attachments (security.md §4): one message per 64 KiB chunk.
public enum SecretStream {
    public static let keyLength = Int(crypto_secretstream_xchacha20poly1305_keybytes())
    public static let headerLength = Int(crypto_secretstream_xchacha20poly1305_headerbytes())
    /// What each message adds to its plaintext (a tag byte and the Poly1305 tag).
    public static let overhead = Int(crypto_secretstream_xchacha20poly1305_abytes())
    static let tagMessage = UInt8(crypto_secretstream_xchacha20poly1305_tag_message())
    static let tagFinal = UInt8(crypto_secretstream_xchacha20poly1305_tag_final())
    static let stateSize = crypto_secretstream_xchacha20poly1305_statebytes()

    /// The state of one stream, in memory of its own that is wiped when it goes.
    final class State {
        let pointer: UnsafeMutablePointer<crypto_secretstream_xchacha20poly1305_state>
        init() {
            pointer = .allocate(capacity: 1)
            sodium_memzero(pointer, SecretStream.stateSize)
        }
        deinit {
            sodium_memzero(pointer, SecretStream.stateSize)
            pointer.deallocate()
        }
    }

    /// Writes a stream: `header` first, then each `push`'s output in order.
    public final class Sealer {
        let state = State()
        public let header: [UInt8]
        private var finished = false

        public init(key: SecretBytes) throws {
            Sodium.ensureInitialised()
            guard key.count == keyLength else { throw CryptoError.invalidInput("key must be \(keyLength) bytes") }
            var header = [UInt8](repeating: 0, count: headerLength)
            let pointer = state.pointer
            let result = key.withUnsafeBytes { k in
                crypto_secretstream_xchacha20poly1305_init_push(pointer, &header, k.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            try Sodium.check(result, failure: .libraryFailure("secretstream init failed"))
            self.header = header
        }

        /// Seals one message into `output` (`message.count + overhead` bytes); `final` marks the last one.
        public func push(_ message: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, associatedData: [UInt8], final: Bool) throws {
            guard !finished else { throw CryptoError.invalidInput("the stream is already finished") }
            guard output.count == message.count + overhead else { throw CryptoError.invalidInput("output must be message + \(overhead) bytes") }
            let result = crypto_secretstream_xchacha20poly1305_push(
                state.pointer, output.baseAddress!.assumingMemoryBound(to: UInt8.self), nil,
                message.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(CryptoScratch.empty), UInt64(message.count),
                associatedData, UInt64(associatedData.count), final ? tagFinal : tagMessage)
            try Sodium.check(result, failure: .libraryFailure("secretstream push failed"))
            finished = final
        }
    }

    /// Reads a stream written by `Sealer`.
    public final class Opener {
        let state = State()
        /// Whether the last message opened was tagged final.
        public private(set) var finished = false

        /// Throws `authenticationFailed` when the header cannot start a stream (it never can fail for a
        /// header of the right length, but libsodium reports it).
        public init(key: SecretBytes, header: UnsafeRawBufferPointer) throws {
            Sodium.ensureInitialised()
            guard key.count == keyLength else { throw CryptoError.invalidInput("key must be \(keyLength) bytes") }
            guard header.count == headerLength else { throw CryptoError.invalidInput("header must be \(headerLength) bytes") }
            let result = key.withUnsafeBytes { k in
                crypto_secretstream_xchacha20poly1305_init_pull(
                    state.pointer, header.baseAddress!.assumingMemoryBound(to: UInt8.self), k.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            try Sodium.check(result)
        }

        /// Opens the next message into `output` (`sealed.count - overhead` bytes). Throws
        /// `authenticationFailed` for anything changed, dropped, repeated or out of order, and for a message
        /// after the final one.
        public func pull(_ sealed: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, associatedData: [UInt8]) throws {
            guard !finished else { throw CryptoError.authenticationFailed }
            guard sealed.count >= overhead, output.count == sealed.count - overhead else {
                throw CryptoError.invalidInput("output must be the sealed message − \(overhead) bytes")
            }
            var tag: UInt8 = 0
            let result = crypto_secretstream_xchacha20poly1305_pull(
                state.pointer, output.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? CryptoScratch.empty, nil, &tag,
                sealed.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(sealed.count), associatedData, UInt64(associatedData.count))
            try Sodium.check(result)
            guard tag == tagMessage || tag == tagFinal else { throw CryptoError.authenticationFailed }
            finished = tag == tagFinal
        }
    }
}
