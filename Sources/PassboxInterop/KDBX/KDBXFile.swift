import Foundation
import PassboxCrypto
import PassboxStore

/// Reads KDBX 3.1 and 4.x files and writes KDBX 4.0 (docs/FORMATS.md "KeePass files"). Every length and hash
/// of a hostile file is checked; a file is read whole, and a file or payload past `sizeLimit` is refused.
public enum KDBXFile {
    /// The largest file read (256 MiB).
    public static let sizeLimit = 256 << 20
    /// Everything one file may inflate to, all together: its payload and (KDBX 3.1) each compressed
    /// `<Binary>` draw on this one budget (128 MiB), so an 11 KB file of many small bombs is refused as soon as
    /// their sum passes it, and an import's memory stays bounded (doubling growth peaks at 1.5 × the budget).
    public static let inflatedLimit = 128 << 20
    /// HMAC block size of files written (KeePass's own choice, 1 MiB).
    static let blockSize = 1 << 20

    /// What reading found, besides the database: for the preview and the benchmark.
    public struct ReadInfo: Sendable {
        /// "KDBX 4.0, ChaCha20, Argon2d 64 MiB × 10 passes × 2 lanes".
        public var description: String
        /// Seconds spent in the key derivation.
        public var kdfSeconds: Double
        /// Seconds to check, decrypt and decompress the payload.
        public var decryptSeconds: Double = 0
        /// Seconds to read the XML into the database.
        public var xmlSeconds: Double = 0
        /// The XML's length once decompressed.
        public var xmlBytes = 0
    }

    public static func looksLikeKDBX(_ head: [UInt8]) -> Bool {
        head.count >= 8 && head[0..<8].elementsEqual(LittleEndian.bytes(KDBXHeader.signature1) + LittleEndian.bytes(KDBXHeader.signature2))
    }

    /// `keyDerived` is called once the file's key derivation is done (the parse child resets its peak-memory
    /// mark there, so the figure it reports is the reading's, not the derivation's).
    public static func read(_ file: [UInt8], credentials: KeePassCredentials, keyDerived: () -> Void = {}) throws -> (database: KeePassDatabase, info: ReadInfo) {
        guard file.count <= sizeLimit else { throw InteropError.tooLarge(limitMiB: sizeLimit >> 20) }
        let (header, headerLength) = try KDBXHeader.read(file)
        let started = Date()
        var transformed = try credentials.transformedKey(header.kdf)
        let kdfSeconds = Date().timeIntervalSince(started)
        keyDerived()
        var keys = KDBXKeys(masterSeed: header.masterSeed, transformed: transformed)
        ConstantTime.wipe(&transformed)
        defer { keys.wipe() }
        let cipherName = header.cipher == .aes256 ? "AES-256" : "ChaCha20"
        var info = ReadInfo(description: "KDBX \(header.major).\(header.minor), \(cipherName), \(header.kdf.description)", kdfSeconds: kdfSeconds)
        let decrypting = Date()
        var r = ByteReader(file, offset: headerLength)
        if header.isVersion4 {
            let hash = try r.take(32)
            guard hash == Hash.sha256(header.bytes) else { throw InteropError.damaged(reason: "the header does not match its hash") }
            let mac = try r.take(32)
            let expected = HMAC.authenticationCode(.sha256, key: keys.blockKey(UInt64.max), message: header.bytes)
            guard ConstantTime.equal(mac, expected) else { throw InteropError.wrongPassword }
            let encrypted = try readHMACBlocks(&r, keys: keys)
            var payload = try decrypt(encrypted, header: header, key: keys.cipherKey, wrongKeyIsDamage: true)
            if header.compressed { payload = try inflate(payload, budget: inflatedLimit) }
            info.decryptSeconds = Date().timeIntervalSince(decrypting)
            let parsing = Date()
            var database = try readPayload(consuming: &payload)
            info.xmlSeconds = Date().timeIntervalSince(parsing)
            info.xmlBytes = payload.count  // the XML alone: the inner header was taken off its front
            database.version = "\(header.major).\(header.minor)"
            return (database, info)
        }
        // KDBX 3.1: the payload starts with the header's stream start bytes, then hashed blocks.
        let decrypted = try decrypt(Array(file[headerLength...]), header: header, key: keys.cipherKey, wrongKeyIsDamage: false)
        guard decrypted.count >= 32, ConstantTime.equal(Array(decrypted[0..<32]), header.streamStartBytes) else { throw InteropError.wrongPassword }
        var blocks = ByteReader(decrypted, offset: 32)
        var payload: [UInt8] = []
        var index: UInt32 = 0
        while true {
            guard try blocks.uint32() == index else { throw InteropError.damaged(reason: "its blocks are out of order") }
            let hash = try blocks.take(32)
            let size = Int(try blocks.uint32())
            if size == 0 {
                guard hash.allSatisfy({ $0 == 0 }) else { throw InteropError.damaged(reason: "its last block is wrong") }
                break
            }
            let data = try blocks.take(size)
            guard Hash.sha256(data) == hash else { throw InteropError.damaged(reason: "block \(index) does not match its hash") }
            payload += data
            guard payload.count <= sizeLimit else { throw InteropError.tooLarge(limitMiB: sizeLimit >> 20) }
            index &+= 1
        }
        var budget = inflatedLimit
        if header.compressed {
            payload = try inflate(payload, budget: budget)
            budget -= payload.count
        }
        info.decryptSeconds = Date().timeIntervalSince(decrypting)
        info.xmlBytes = payload.count
        let parsing = Date()
        let stream = try innerCipher(header.innerStream!, key: header.protectedStreamKey)
        var database = try KeePassXML.read(payload, stream: stream, binaries: nil, inflateBudget: budget)
        info.xmlSeconds = Date().timeIntervalSince(parsing)
        database.version = "\(header.major).\(header.minor)"
        return (database, info)
    }

    /// A KDBX 4 payload once decrypted and decompressed: the inner header (inner stream, attachments), then
    /// the XML. Everything before it is authenticated; this is what the fuzz target KDBXPayload feeds.
    static func readPayload(_ payload: [UInt8]) throws -> KeePassDatabase {
        var copy = payload
        return try readPayload(consuming: &copy)
    }

    /// The same, taking the inner header off the front of `payload` in place (no second copy of the XML) and
    /// leaving the XML there.
    static func readPayload(consuming payload: inout [UInt8]) throws -> KeePassDatabase {
        var inner = ByteReader(payload)
        var streamID: UInt32?
        var streamKey: [UInt8] = []
        var binaries: [[UInt8]] = []
        fieldLoop: while true {
            let id = try inner.uint8()
            let data = try inner.take(Int(try inner.uint32()))
            switch id {
            case 0: break fieldLoop
            case 1:
                var d = ByteReader(data)
                guard data.count == 4 else { throw InteropError.damaged(reason: "the inner stream id has the wrong size") }
                streamID = try d.uint32()
            case 2: streamKey = data
            case 3:
                guard !data.isEmpty else { throw InteropError.damaged(reason: "an attachment without its flags") }
                binaries.append(Array(data.dropFirst()))
            default: throw InteropError.damaged(reason: "an unknown inner header field \(id)")
            }
        }
        guard let raw = streamID, let kind = KDBXHeader.InnerStream(rawValue: raw), !streamKey.isEmpty else {
            throw InteropError.unsupported(what: "its inner stream (only ChaCha20 and Salsa20 are read)")
        }
        let stream = try innerCipher(kind, key: streamKey)
        let xmlStart = inner.offset
        inner = ByteReader([])
        payload.removeSubrange(0..<xmlStart)
        return try KeePassXML.read(payload, stream: stream, binaries: binaries)
    }

    /// KDBX 4's HMAC block stream: each block's HMAC covers its index, size and data, so a block removed,
    /// moved, cut or changed is caught; an empty block ends it.
    static func readHMACBlocks(_ r: inout ByteReader, keys: KDBXKeys) throws -> [UInt8] {
        var out: [UInt8] = []
        var index: UInt64 = 0
        while true {
            let mac = try r.take(32)
            let sizeField = try r.uint32()
            let size = Int(Int32(bitPattern: sizeField))
            guard size >= 0 else { throw InteropError.damaged(reason: "a block has a negative size") }
            let data = try r.take(size)
            let message = LittleEndian.bytes(index) + LittleEndian.bytes(sizeField) + data
            guard ConstantTime.equal(mac, HMAC.authenticationCode(.sha256, key: keys.blockKey(index), message: message)) else {
                throw InteropError.damaged(reason: "block \(index) does not match its HMAC")
            }
            if size == 0 { break }
            out += data
            index += 1
        }
        return out
    }

    static func decrypt(_ data: [UInt8], header: KDBXHeader, key: [UInt8], wrongKeyIsDamage: Bool) throws -> [UInt8] {
        switch header.cipher {
        case .aes256:
            do {
                return try AES256CBC.decrypt(data, key: key, iv: header.encryptionIV)
            } catch CryptoError.authenticationFailed {
                // In 4.x the HMAC already proved the key, so bad padding is damage; in 3.1 it is the first sign
                // of a wrong password.
                throw wrongKeyIsDamage ? InteropError.damaged(reason: "its encrypted payload is damaged") : InteropError.wrongPassword
            }
        case .chacha20:
            var out = data
            try StreamCipher(.chacha20, key: key, nonce: header.encryptionIV).apply(&out)
            return out
        }
    }

    /// Inflates `data` to at most `budget` bytes (what is left of `inflatedLimit`); past it the file is refused
    /// as too large for an import.
    static func inflate(_ data: [UInt8], budget: Int) throws -> [UInt8] {
        guard budget > 0 else { throw InteropError.tooLarge(limitMiB: inflatedLimit >> 20) }
        do {
            return try Gzip.decompress(data, limit: budget)
        } catch let e as Gzip.Failure where e.reason.hasPrefix("it expands beyond") {
            throw InteropError.tooLarge(limitMiB: inflatedLimit >> 20)
        } catch let e as Gzip.Failure {
            throw InteropError.damaged(reason: "its compressed payload: \(e.reason)")
        }
    }

    static func innerCipher(_ kind: KDBXHeader.InnerStream, key: [UInt8]) throws -> StreamCipher {
        switch kind {
        case .salsa20:
            return try StreamCipher(.salsa20, key: Hash.sha256(key), nonce: [0xE8, 0x30, 0x09, 0x4B, 0x97, 0x20, 0x5D, 0x2A])
        case .chacha20:
            let h = Hash.sha512(key)
            return try StreamCipher(.chacha20, key: Array(h[0..<32]), nonce: Array(h[32..<44]))
        }
    }

    // MARK: Writing

    /// A KDBX 4.0 file: ChaCha20 outer cipher, Argon2id at `parameters`, gzip, ChaCha20 inner stream, HMAC
    /// blocks of 1 MiB. The database's attachments go into the inner header.
    public static func write(_ database: KeePassDatabase, credentials: KeePassCredentials, parameters: Argon2Parameters) throws -> [UInt8] {
        let streamKey = SecureRandom.bytes(count: 64)
        var inner: [UInt8] = []
        func field(_ id: UInt8, _ data: [UInt8]) {
            inner.append(id)
            inner += LittleEndian.bytes(UInt32(data.count)) + data
        }
        field(1, LittleEndian.bytes(KDBXHeader.InnerStream.chacha20.rawValue))
        field(2, streamKey)
        for binary in database.binaries { field(3, [0] + binary) }
        field(0, [])
        let xml = try KeePassXML.write(database, stream: innerCipher(.chacha20, key: streamKey))
        return try seal(inner + Array(xml.utf8), credentials: credentials, parameters: parameters)
    }

    /// Seals a plaintext payload (inner header and XML) as a KDBX 4.0 file: gzip, ChaCha20 under a new master
    /// seed and nonce, the header's SHA-256 and HMAC, then HMAC blocks.
    static func seal(_ plaintext: [UInt8], credentials: KeePassCredentials, parameters: Argon2Parameters) throws -> [UInt8] {
        let header = KDBXHeader(
            major: 4, minor: 0, cipher: .chacha20, compressed: true, masterSeed: SecureRandom.bytes(count: 32), encryptionIV: SecureRandom.bytes(count: 12),
            kdf: .argon2(variant: .argon2id, salt: SecureRandom.bytes(count: 32), parameters: parameters, secret: [], associatedData: []))
        let headerBytes = header.serialized()
        var transformed = try credentials.transformedKey(header.kdf)
        var keys = KDBXKeys(masterSeed: header.masterSeed, transformed: transformed)
        ConstantTime.wipe(&transformed)
        defer { keys.wipe() }
        var payload: [UInt8]
        do {
            payload = try Gzip.compress(plaintext)
        } catch let e as Gzip.Failure {
            throw InteropError.damaged(reason: e.reason)
        }
        try StreamCipher(.chacha20, key: keys.cipherKey, nonce: header.encryptionIV).apply(&payload)
        var out = headerBytes + Hash.sha256(headerBytes) + HMAC.authenticationCode(.sha256, key: keys.blockKey(UInt64.max), message: headerBytes)
        var index: UInt64 = 0
        var offset = 0
        while true {
            let block = Array(payload[offset..<min(offset + blockSize, payload.count)])
            let size = LittleEndian.bytes(UInt32(block.count))
            out += HMAC.authenticationCode(.sha256, key: keys.blockKey(index), message: LittleEndian.bytes(index) + size + block) + size + block
            if block.isEmpty { break }
            offset += block.count
            index += 1
        }
        return out
    }
}
