import Foundation
import PassboxCrypto

/// An item's content sealed under a password of its own (security.md §7; G42, G68): its fields and notes,
/// encrypted with XChaCha20-Poly1305 under Argon2id of that password at 256 MiB × 4 passes × 4 lanes. The
/// password is never stored. The title, category, tags and websites stay readable to whoever opens the
/// vault (the accepted limit docs/SECURITY.md states).
public struct SealedContent: Sendable, Equatable {
    /// The seal's version: 1 = Argon2id, XChaCha20-Poly1305, MessagePack `{fields, notes}`.
    public var version: Int
    public var kdf: Argon2Parameters
    public var salt: [UInt8]
    public var nonce: [UInt8]
    /// Ciphertext and tag.
    public var box: [UInt8]

    public init(version: Int, kdf: Argon2Parameters, salt: [UInt8], nonce: [UInt8], box: [UInt8]) {
        self.version = version
        self.kdf = kdf
        self.salt = salt
        self.nonce = nonce
        self.box = box
    }
}

public enum ItemSeal {
    public static let version = 1
    /// G68: 256 MiB, 4 passes, 4 lanes, whenever an item password is set.
    public static let parameters = Argon2Parameters(memoryKiB: 256 * 1024, passes: 4, lanes: 4)
    /// The categories that take a password of their own; the first two always have one (G41, G102).
    public static let protectable: Set<Category> = [.recoveryPhrase, .privateKey, .secureNote, .sshKey]
    public static let alwaysProtected: Set<Category> = [.recoveryPhrase, .privateKey]
    /// The item passwords' rule: at least this many characters.
    public static let minimumPasswordLength = 8

    /// Binds the box to its item: moved to another item (or another category) it does not open.
    static func associatedData(_ item: Item) -> [UInt8] {
        Array("passbox/v1/item-seal".utf8) + [0] + Array(item.id.utf8) + [0] + Array(item.category.rawValue.utf8)
    }

    /// Seals `item`'s fields and notes under `password` (NFC UTF-8 bytes): they leave the item, which keeps
    /// its history only of versions made after (earlier versions held the content in the clear and are
    /// dropped, so the vault keeps no readable copy).
    public static func seal(_ item: inout Item, password: SecretBytes, parameters: Argon2Parameters = ItemSeal.parameters) throws {
        guard ItemSeal.protectable.contains(item.category) else { throw VaultError.cannotProtect(item.category.displayName) }
        guard item.sealed == nil else { throw VaultError.alreadyProtected(item.title) }
        guard password.count >= minimumPasswordLength else { throw VaultError.itemPasswordTooShort(minimumPasswordLength) }
        let salt = SecureRandom.bytes(count: 16)
        let key = try password.withUnsafeBytes { try Argon2.derive(password: $0, salt: salt, parameters: parameters) }
        var w = MessagePackWriter(capacity: 256)
        w.writeMapHeader(2)
        w.write("fields")
        w.writeArrayHeader(item.fields.count)
        for field in item.fields { field.pack(into: &w) }
        w.write("notes")
        w.write(item.notes)
        var plain = w.bytes
        defer { ConstantTime.wipe(&plain) }
        let nonce = SecureRandom.bytes(count: 24)
        let box = try XChaCha20Poly1305.seal(plain, key: key, nonce: nonce, associatedData: associatedData(item))
        item.sealed = SealedContent(version: version, kdf: parameters, salt: salt, nonce: nonce, box: box)
        item.fields = []
        item.notes = ""
        item.history = []
    }

    /// The item with its fields and notes back, and no seal: for showing (nothing is saved) or for taking the
    /// password off. A wrong password, or a box moved from another item, is `wrongItemPassword`.
    public static func open(_ item: Item, password: SecretBytes) throws -> Item {
        guard let sealed = item.sealed else { return item }
        guard sealed.version == version else { throw VaultError.newerItemSeal(sealed.version) }
        let key = try password.withUnsafeBytes { try Argon2.derive(password: $0, salt: sealed.salt, parameters: sealed.kdf) }
        guard var plain = try? XChaCha20Poly1305.open(sealed.box, key: key, nonce: sealed.nonce, associatedData: associatedData(item)) else {
            throw VaultError.wrongItemPassword
        }
        defer { ConstantTime.wipe(&plain) }
        var opened = item
        opened.sealed = nil
        try plain.withUnsafeBytes { raw in
            var r = MessagePackReader(raw)
            for _ in 0..<(try r.readMapHeader()) {
                switch try r.readString() {
                case "fields":
                    opened.fields = []
                    for _ in 0..<(try r.readArrayHeader()) { opened.fields.append(try Field(unpacking: &r)) }
                case "notes": opened.notes = try r.readString()
                default: _ = try r.readValue()
                }
            }
        }
        return opened
    }

    /// Whether there is room for the derivation (G48, AL-6): the memory it needs and 16 MiB more must be
    /// available, in the machine (MemAvailable) and in this process's cgroup (memory.max − memory.current).
    public static func checkMemory(for parameters: Argon2Parameters = ItemSeal.parameters) throws {
        let needed = Int(parameters.memoryKiB) * 1024 + 16 << 20
        if let available = MemoryHeadroom.available(), available < needed {
            throw VaultError.notEnoughMemory(neededMiB: needed >> 20, availableMiB: available >> 20)
        }
    }
}

/// The memory a large derivation may use, read from Linux.
public enum MemoryHeadroom {
    /// The smaller of MemAvailable and the cgroup's room, in bytes; nil when neither can be read.
    public static func available(meminfo: String = "/proc/meminfo", cgroup: String = "/sys/fs/cgroup") -> Int? {
        var room: Int?
        if let text = try? String(contentsOfFile: meminfo, encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("MemAvailable:") }),
            let kib = Int(line.split(separator: " ").dropFirst().first ?? "")
        {
            room = kib * 1024
        }
        if let max = try? String(contentsOfFile: cgroup + "/memory.max", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
            let limit = Int(max), let current = (try? String(contentsOfFile: cgroup + "/memory.current", encoding: .utf8)).flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
        {
            room = min(room ?? .max, limit - current)
        }
        return room
    }
}
