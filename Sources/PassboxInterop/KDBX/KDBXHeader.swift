import PassboxCrypto

/// The outer header of a KeePass file (KDBX 3.1 and 4.x): format version, outer cipher, compression, seeds and
/// the key-derivation parameters. Every value is checked here, before any key is derived.
struct KDBXHeader {
    static let signature1: UInt32 = 0x9AA2_D903
    static let signature2: UInt32 = 0xB54B_FB67

    enum OuterCipher: Equatable {
        case aes256
        case chacha20

        static let aesUUID: [UInt8] = [0x31, 0xC1, 0xF2, 0xE6, 0xBF, 0x71, 0x43, 0x50, 0xBE, 0x58, 0x05, 0x21, 0x6A, 0xFC, 0x5A, 0xFF]
        static let chachaUUID: [UInt8] = [0xD6, 0x03, 0x8A, 0x2B, 0x8B, 0x6F, 0x4C, 0xB5, 0xA5, 0x24, 0x33, 0x9A, 0x31, 0xDB, 0xB5, 0x9A]
        static let twofishUUID: [UInt8] = [0xAD, 0x68, 0xF2, 0x9F, 0x57, 0x6F, 0x4B, 0xB9, 0xA3, 0x6A, 0xD4, 0x7A, 0xF9, 0x65, 0x34, 0x6C]

        var uuid: [UInt8] { self == .aes256 ? Self.aesUUID : Self.chachaUUID }
        var ivLength: Int { self == .aes256 ? 16 : 12 }
    }

    enum KDF: Equatable {
        case aes(seed: [UInt8], rounds: UInt64)
        case argon2(variant: Argon2Variant, salt: [UInt8], parameters: Argon2Parameters, secret: [UInt8], associatedData: [UInt8])

        static let aesKDBX3UUID: [UInt8] = [0xC9, 0xD9, 0xF3, 0x9A, 0x62, 0x8A, 0x44, 0x60, 0xBF, 0x74, 0x0D, 0x08, 0xC1, 0x8A, 0x4F, 0xEA]
        static let aesKDBX4UUID: [UInt8] = [0x7C, 0x02, 0xBB, 0x82, 0x79, 0xA7, 0x4A, 0xC0, 0x92, 0x7D, 0x11, 0x4A, 0x00, 0x64, 0x82, 0x38]
        static let argon2dUUID: [UInt8] = [0xEF, 0x63, 0x6D, 0xDF, 0x8C, 0x29, 0x44, 0x4B, 0x91, 0xF7, 0xA9, 0xA4, 0x03, 0xE3, 0x0A, 0x0C]
        static let argon2idUUID: [UInt8] = [0x9E, 0x29, 0x8B, 0x19, 0x56, 0xDB, 0x47, 0x73, 0xB2, 0x3D, 0xFC, 0x3E, 0xC6, 0xF0, 0xA1, 0xE6]

        /// AES-KDF up to 2^31 rounds; Argon2 within `ImportKDFLimits`. A file asking more is refused before any
        /// derivation.
        static let aesRoundsLimit: UInt64 = ImportKDFLimits.aesRoundsLimit

        var description: String {
            switch self {
            case .aes(_, let rounds): "AES-KDF, \(rounds) rounds"
            case .argon2(let v, _, let p, _, _): "\(v == .argon2id ? "Argon2id" : "Argon2d"), \(p.memoryKiB / 1024) MiB × \(p.passes) passes × \(p.lanes) lanes"
            }
        }
    }

    enum InnerStream: UInt32 {
        case salsa20 = 2
        case chacha20 = 3
    }

    var major: UInt16
    var minor: UInt16
    var cipher: OuterCipher
    var compressed: Bool
    var masterSeed: [UInt8]
    var encryptionIV: [UInt8]
    var kdf: KDF
    /// KDBX 3.1 only (4.x keeps them in the inner header).
    var protectedStreamKey: [UInt8] = []
    var streamStartBytes: [UInt8] = []
    var innerStream: InnerStream?
    /// The header's bytes as read, from the signature to the end of its last field (hashed and MACed in 4.x).
    var bytes: [UInt8] = []

    var isVersion4: Bool { major == 4 }

    /// Reads the header at the start of `file`; `length` is where the data after it starts.
    static func read(_ file: [UInt8]) throws -> (header: KDBXHeader, length: Int) {
        var r = ByteReader(file)
        guard file.count >= 12, try r.uint32() == signature1, try r.uint32() == signature2 else { throw InteropError.notThisFormat(format: "kdbx") }
        let minor = try r.uint16()
        let major = try r.uint16()
        guard major == 3 || major == 4 else {
            throw major < 3 ? InteropError.unsupported(what: "KeePass 1 or KDBX \(major) files (save it as KDBX 4 in KeePassXC first)") : InteropError.unsupported(what: "KDBX \(major).\(minor), newer than this Passbox reads")
        }
        var cipher: OuterCipher?
        var compressed = false
        var masterSeed: [UInt8]?, iv: [UInt8]?, kdfMap: VariantDictionary?
        var transformSeed: [UInt8]?, transformRounds: UInt64?
        var streamKey: [UInt8] = [], startBytes: [UInt8] = [], innerStream: InnerStream?
        fieldLoop: while true {
            let id = try r.uint8()
            let size = major == 4 ? Int(try r.uint32()) : Int(try r.uint16())
            let data = try r.take(size)
            switch id {
            case 0: break fieldLoop
            case 1: break  // a comment
            case 2:
                switch data {
                case OuterCipher.aesUUID: cipher = .aes256
                case OuterCipher.chachaUUID: cipher = .chacha20
                case OuterCipher.twofishUUID: throw InteropError.unsupported(what: "the Twofish cipher (change it to AES or ChaCha20 in KeePassXC's database settings)")
                default: throw InteropError.unsupported(what: "an unknown cipher")
                }
            case 3:
                guard data.count == 4 else { throw InteropError.damaged(reason: "the compression flag has the wrong size") }
                var d = ByteReader(data)
                switch try d.uint32() {
                case 0: compressed = false
                case 1: compressed = true
                default: throw InteropError.unsupported(what: "an unknown compression")
                }
            case 4: masterSeed = data
            case 5 where major == 3: transformSeed = data
            case 6 where major == 3:
                guard data.count == 8 else { throw InteropError.damaged(reason: "the rounds field has the wrong size") }
                var d = ByteReader(data)
                transformRounds = try d.uint64()
            case 7: iv = data
            case 8 where major == 3: streamKey = data
            case 9 where major == 3: startBytes = data
            case 10 where major == 3:
                guard data.count == 4 else { throw InteropError.damaged(reason: "the stream id has the wrong size") }
                var d = ByteReader(data)
                let raw = try d.uint32()
                guard let s = InnerStream(rawValue: raw) else { throw InteropError.unsupported(what: raw == 1 ? "the ArcFour inner stream" : "an unknown inner stream") }
                innerStream = s
            case 11 where major == 4: kdfMap = try VariantDictionary(parsing: data)
            case 12 where major == 4: break  // public custom data: plugins' own, not read
            default: throw InteropError.damaged(reason: "an unknown header field \(id)")
            }
        }
        guard let cipher else { throw InteropError.damaged(reason: "the header names no cipher") }
        guard let masterSeed, masterSeed.count == 32 else { throw InteropError.damaged(reason: "the master seed is missing or of the wrong size") }
        guard let iv, iv.count == cipher.ivLength else { throw InteropError.damaged(reason: "the encryption IV is missing or of the wrong size") }
        let kdf: KDF
        if major == 4 {
            guard let kdfMap else { throw InteropError.damaged(reason: "the header has no key-derivation parameters") }
            kdf = try parseKDF(kdfMap)
        } else {
            guard let transformSeed, transformSeed.count == 32, let transformRounds else { throw InteropError.damaged(reason: "the key-derivation seed or rounds are missing") }
            guard transformRounds <= KDF.aesRoundsLimit else { throw InteropError.unsupported(what: "AES-KDF with \(transformRounds) rounds (at most \(KDF.aesRoundsLimit))") }
            kdf = .aes(seed: transformSeed, rounds: transformRounds)
            guard startBytes.count == 32, !streamKey.isEmpty, innerStream != nil else { throw InteropError.damaged(reason: "the stream fields are missing") }
        }
        var header = KDBXHeader(
            major: major, minor: minor, cipher: cipher, compressed: compressed, masterSeed: masterSeed, encryptionIV: iv, kdf: kdf,
            protectedStreamKey: streamKey, streamStartBytes: startBytes, innerStream: innerStream)
        header.bytes = Array(file[0..<r.offset])
        return (header, r.offset)
    }

    static func parseKDF(_ map: VariantDictionary) throws -> KDF {
        guard let uuid = map.bytes("$UUID") else { throw InteropError.damaged(reason: "the key derivation is not named") }
        switch uuid {
        case KDF.aesKDBX3UUID, KDF.aesKDBX4UUID:
            guard let seed = map.bytes("S"), seed.count == 32, let rounds = map.number("R") else { throw InteropError.damaged(reason: "AES-KDF's seed or rounds are missing") }
            guard rounds <= KDF.aesRoundsLimit else { throw InteropError.unsupported(what: "AES-KDF with \(rounds) rounds (at most \(KDF.aesRoundsLimit))") }
            return .aes(seed: seed, rounds: rounds)
        case KDF.argon2dUUID, KDF.argon2idUUID:
            guard let salt = map.bytes("S"), (8...1024).contains(salt.count), let lanes = map.number("P"), let memory = map.number("M"),
                let passes = map.number("I"), let version = map.number("V")
            else { throw InteropError.damaged(reason: "Argon2's parameters are missing") }
            guard version == 0x13 else { throw InteropError.unsupported(what: "Argon2 version \(version) (only 1.3 is read)") }
            let memoryKiB = memory / 1024
            guard (1...255).contains(lanes), passes >= 1, memoryKiB >= 8 * lanes else { throw InteropError.damaged(reason: "Argon2's parameters are out of range") }
            try ImportKDFLimits.checkArgon2(memoryKiB: memoryKiB, passes: passes)
            let parameters = Argon2Parameters(memoryKiB: UInt32(memoryKiB), passes: UInt32(passes), lanes: UInt8(lanes))
            return .argon2(variant: uuid == KDF.argon2idUUID ? .argon2id : .argon2d, salt: salt, parameters: parameters, secret: map.bytes("K") ?? [], associatedData: map.bytes("A") ?? [])
        default:
            throw InteropError.unsupported(what: "an unknown key derivation")
        }
    }

    /// The header of a KDBX 4.0 file this Passbox writes (inner stream fields live in the inner header).
    func serialized() -> [UInt8] {
        precondition(isVersion4, "Passbox writes KDBX 4 only")
        var out = LittleEndian.bytes(Self.signature1) + LittleEndian.bytes(Self.signature2) + LittleEndian.bytes(minor) + LittleEndian.bytes(major)
        func field(_ id: UInt8, _ data: [UInt8]) {
            out.append(id)
            out += LittleEndian.bytes(UInt32(data.count)) + data
        }
        field(2, cipher.uuid)
        field(3, LittleEndian.bytes(UInt32(compressed ? 1 : 0)))
        field(4, masterSeed)
        field(7, encryptionIV)
        var map = VariantDictionary()
        switch kdf {
        case .aes(let seed, let rounds):
            map["$UUID"] = .bytes(KDF.aesKDBX4UUID)
            map["R"] = .uint64(rounds)
            map["S"] = .bytes(seed)
        case .argon2(let variant, let salt, let p, _, _):
            map["$UUID"] = .bytes(variant == .argon2id ? KDF.argon2idUUID : KDF.argon2dUUID)
            map["S"] = .bytes(salt)
            map["P"] = .uint32(UInt32(p.lanes))
            map["M"] = .uint64(UInt64(p.memoryKiB) * 1024)
            map["I"] = .uint64(UInt64(p.passes))
            map["V"] = .uint32(0x13)
        }
        field(11, map.serialized())
        field(0, [0x0D, 0x0A, 0x0D, 0x0A])
        return out
    }
}
