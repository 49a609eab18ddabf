import Foundation
import PassboxCore
import PassboxCrypto

/// What goes wrong making or reading a backup, as facts the surfaces word.
public enum BackupError: Error, Equatable, Sendable {
    /// The bytes are no Passbox backup (no magic, or a header that does not read).
    case notABackup
    /// A backup of a format this build does not know.
    case newerFormat(version: Int)
    /// Shorter than its header says (a cut-off download or copy).
    case truncated
    /// The backup password does not open it, or its bytes were changed: one answer for both.
    case wrongPassword
    /// It would expand past 64 MiB (G78): refused before anything is written.
    case tooLarge(limitMiB: Int)
    /// The vault has no backup password yet (`passbox backup password`).
    case noBackupPassword
    /// The codes read do not make a backup (see `BackupShards.ShardError`).
    case shards(BackupShards.ShardError)
}

/// The backup format (docs/FORMATS.md "Backup"; security.md §8): a 64-byte header in the clear, then the
/// whole vault, compressed and padded, sealed with XChaCha20-Poly1305 under Argon2id of the backup
/// password, with the header as associated data.
///
///     header  magic "PBBACKUP" (8) | version u16 LE = 1 | padding kind u8 (0 fixed, 1 random) | 0 (1)
///             | memory KiB u32 LE | passes u32 LE | lanes u8 | 0 0 0 | salt (16) | nonce (24)
///     sealed  plaintext = compressed length u64 LE | deflate(content) | random padding
///     content MessagePack {format: 1, made: ms, vault: the vault payload (docs/FORMATS.md)}
///
/// A saved backup (file, PDF, auto-backup) is 32 KiB long, or the first doubling of it that fits (G57); a
/// transfer is as long as its content plus a random 0–16 KiB.
public enum BackupFile {
    public static let magic = Array("PBBACKUP".utf8)
    public static let version: UInt16 = 1
    public static let headerLength = 64
    public static let contentFormat = 1
    /// security.md §8, G55: 512 MiB × 32 passes × 4 lanes, whenever a backup password is set.
    public static let parameters = Argon2Parameters(memoryKiB: 512 * 1024, passes: 32, lanes: 4)
    /// G78: nothing expands past 2^26 bytes.
    public static let expandedLimit = 1 << 26
    /// G57: the smallest saved backup.
    public static let minimumSize = 32 * 1024
    /// The most random padding a transfer gets.
    public static let transferPaddingLimit = 16 * 1024

    public enum Padding: UInt8, Sendable { case fixed = 0, random = 1 }

    public struct Header: Sendable, Equatable {
        public var padding: Padding
        public var kdf: Argon2Parameters
        public var salt: [UInt8]
        public var nonce: [UInt8]

        var bytes: [UInt8] {
            var b = magic
            b += [UInt8(version & 0xFF), UInt8(version >> 8), padding.rawValue, 0]
            b += withUnsafeBytes(of: kdf.memoryKiB.littleEndian, Array.init)
            b += withUnsafeBytes(of: kdf.passes.littleEndian, Array.init)
            b += [kdf.lanes, 0, 0, 0]
            return b + salt + nonce
        }
    }

    /// What a backup holds once opened.
    public struct Contents: Sendable {
        public var vault: Vault
        public var made: Date
        public var header: Header
    }

    /// Derives a backup key; the memory it needs is checked first (AL-6).
    public static func deriveKey(password: SecretBytes, salt: [UInt8], parameters: Argon2Parameters) throws -> SecretBytes {
        try ItemSeal.checkMemory(for: parameters)
        return try password.withUnsafeBytes { try Argon2.derive(password: $0, salt: salt, parameters: parameters) }
    }

    /// The vault as a backup holds it: what belongs to the vault, not to this file or device (its slot
    /// order, sync state and backup settings stay behind).
    public static func portable(_ vault: Vault) -> Vault {
        var copy = vault
        copy.slotOrder = []
        copy.sync = nil
        copy.backup = nil
        return copy
    }

    /// Seals `vault` under the vault's kept backup key. `nonce` and `paddingBytes` are for fixture tests
    /// that rewrite a golden backup byte for byte; otherwise new random ones are made.
    public static func seal(
        _ vault: Vault, settings: BackupSettings, made: Date, padding: Padding, nonce: [UInt8]? = nil, paddingBytes: [UInt8]? = nil
    ) throws -> [UInt8] {
        let header = Header(padding: padding, kdf: settings.kdf, salt: settings.salt, nonce: nonce ?? SecureRandom.bytes(count: 24))
        var content = MessagePackWriter(capacity: 256)
        content.writeMapHeader(3)
        content.write("format")
        content.write(contentFormat)
        content.write("made")
        content.write(Int((made.timeIntervalSince1970 * 1000).rounded()))
        content.write("vault")
        var payload = portable(vault).packed()
        content.write(binary: payload)
        ConstantTime.wipe(&payload)
        var packed = content.bytes
        content = MessagePackWriter()  // the writer's reference dropped, so the wipe below is of the only copy
        defer { ConstantTime.wipe(&packed) }
        guard packed.count <= expandedLimit else { throw BackupError.tooLarge(limitMiB: expandedLimit >> 20) }
        var compressed = try packed.withUnsafeBytes { try Deflate.compress($0, level: 6) }
        defer { ConstantTime.wipe(&compressed) }
        let needed = headerLength + 8 + compressed.count + XChaCha20Poly1305.tagLength
        let total: Int
        switch padding {
        case .fixed:
            var size = minimumSize
            while size < needed { size *= 2 }
            total = size
        case .random:
            total = needed + (paddingBytes?.count ?? Int(SecureRandom.uniform(UInt32(transferPaddingLimit + 1))))
        }
        let fill = paddingBytes ?? SecureRandom.bytes(count: total - needed)
        guard fill.count == total - needed else { throw BackupError.notABackup }
        var plain = withUnsafeBytes(of: UInt64(compressed.count).littleEndian, Array.init) + compressed + fill
        defer { ConstantTime.wipe(&plain) }
        let key = SecretBytes(copying: settings.key)
        let headerBytes = header.bytes
        return headerBytes + (try XChaCha20Poly1305.seal(plain, key: key, nonce: header.nonce, associatedData: headerBytes))
    }

    /// Reads the header (in the clear): enough to derive the key.
    public static func header(of bytes: [UInt8]) throws -> Header {
        guard bytes.count >= magic.count, Array(bytes.prefix(magic.count)) == magic else { throw BackupError.notABackup }
        guard bytes.count >= headerLength else { throw BackupError.truncated }
        let v = UInt16(bytes[8]) | UInt16(bytes[9]) << 8
        guard v == version else { throw v > version ? BackupError.newerFormat(version: Int(v)) : BackupError.notABackup }
        guard let padding = Padding(rawValue: bytes[10]), bytes[11] == 0, bytes[21...23].allSatisfy({ $0 == 0 }) else { throw BackupError.notABackup }
        func u32(_ at: Int) -> UInt32 { (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) } }
        let kdf = Argon2Parameters(memoryKiB: u32(12), passes: u32(16), lanes: bytes[20])
        // A hostile header could ask for any amount of work: the bounds of what Passbox ever writes, and some.
        // At most 1 GiB and twice the work of the parameters Passbox writes (a restore must not take minutes).
        guard (8...(1 << 20)).contains(kdf.memoryKiB), (1...64).contains(kdf.passes), (1...16).contains(kdf.lanes),
            kdf.memoryKiB >= 8 * UInt32(kdf.lanes), kdf.work <= 2 * parameters.work
        else { throw BackupError.notABackup }
        return Header(padding: padding, kdf: kdf, salt: Array(bytes[24..<40]), nonce: Array(bytes[40..<64]))
    }

    /// A saved backup is a power of two of at least 32 KiB: anything else was cut off.
    static func checkLength(_ bytes: [UInt8], _ header: Header) throws {
        if header.padding == .fixed, bytes.count < minimumSize || bytes.count & (bytes.count - 1) != 0 { throw BackupError.truncated }
    }

    /// Opens a backup with its password (G59: always asked, never the kept key).
    public static func open(_ bytes: [UInt8], password: SecretBytes) throws -> Contents {
        let header = try header(of: bytes)
        guard bytes.count >= headerLength + 8 + XChaCha20Poly1305.tagLength else { throw BackupError.truncated }
        // A cut-off saved backup is told before the derivation's 512 MiB and seconds.
        try checkLength(bytes, header)
        let key = try deriveKey(password: password, salt: header.salt, parameters: header.kdf)
        return try open(bytes, header: header, key: key)
    }

    static func open(_ bytes: [UInt8], header: Header, key: SecretBytes) throws -> Contents {
        try checkLength(bytes, header)
        // The plaintext stays in libsodium's buffer, wiped when this returns; only the inflated content leaves it.
        let inflated: Result<[UInt8], BackupError>
        do {
            inflated = try bytes.withUnsafeBytes { raw in
                try XChaCha20Poly1305.open(UnsafeRawBufferPointer(rebasing: raw[headerLength...]), key: key, nonce: header.nonce, associatedData: Array(bytes.prefix(headerLength))) {
                    plain -> Result<[UInt8], BackupError> in
                    guard plain.count >= 8 else { return .failure(.notABackup) }
                    let length = (0..<8).reduce(UInt64(0)) { $0 | UInt64(plain[$1]) << (8 * UInt64($1)) }
                    guard length <= UInt64(plain.count - 8) else { return .failure(.notABackup) }
                    do {
                        return .success(try Deflate.decompress(UnsafeRawBufferPointer(rebasing: plain[8..<(8 + Int(length))]), limit: expandedLimit))
                    } catch StoreError.damaged(_, let reason) where reason == Deflate.beyondLimit {
                        return .failure(.tooLarge(limitMiB: expandedLimit >> 20))
                    } catch {
                        return .failure(.notABackup)
                    }
                }
            }
        } catch {
            throw BackupError.wrongPassword
        }
        var content = try inflated.get()
        defer { ConstantTime.wipe(&content) }
        var vault: Vault?
        var made = Date(timeIntervalSince1970: 0)
        do {
            try content.withUnsafeBytes { raw in
                var r = MessagePackReader(raw)
                for _ in 0..<(try r.readMapHeader()) {
                    switch try r.readString() {
                    case "format":
                        let format = try r.readInt()
                        guard format == contentFormat else { throw BackupError.newerFormat(version: Int(format)) }
                    case "made": made = Date(timeIntervalSince1970: Double(try r.readInt()) / 1000)
                    case "vault":
                        let payload = try r.readBinary()
                        vault = try payload.withUnsafeBytes { try Vault(unpacking: $0) }
                    default: _ = try r.readValue()
                    }
                }
            }
        } catch let error as BackupError {
            throw error
        } catch {
            throw BackupError.notABackup
        }
        guard let vault else { throw BackupError.notABackup }
        return Contents(vault: vault, made: made, header: header)
    }

    /// New backup settings for `password`: a new salt, the key derived at `parameters` (the real ones
    /// outside tests, G55).
    public static func settings(password: SecretBytes, hint: String, parameters: Argon2Parameters = BackupFile.parameters) throws -> BackupSettings {
        let salt = SecureRandom.bytes(count: 16)
        let key = try deriveKey(password: password, salt: salt, parameters: parameters)
        return BackupSettings(key: key.revealBytes(), salt: salt, kdf: parameters, hint: hint)
    }
}
