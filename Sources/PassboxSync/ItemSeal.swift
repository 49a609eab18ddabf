import Foundation
import PassboxCore
import PassboxCrypto

/// How items, vault keys and vault names are sealed for the server (security.md §3, §4; docs/FORMATS.md
/// "Synced items"). Every envelope's associated data names its kind, the format version and its place, so a
/// value moved to another item, vault or kind does not open.
public enum ItemSeal {
    /// Plaintexts are padded to a multiple of 256 bytes, and above 64 KiB to a power of two.
    public static func paddedSize(_ count: Int) -> Int {
        let needed = count + 1
        if needed <= 64 * 1024 { return (needed + 255) / 256 * 256 }
        var size = 128 * 1024
        while size < needed { size *= 2 }
        return size
    }

    static func pad(_ bytes: [UInt8]) -> [UInt8] { Padding.pad(bytes, blockSize: paddedSize(bytes.count)) }

    static func unpad(_ bytes: [UInt8]) -> [UInt8]? {
        // The block is the whole padded length for both rules (a multiple of 256, or a power of two).
        Padding.unpad(bytes, blockSize: bytes.count)
    }

    public static func itemData(vaultID: String, itemID: String, keyVersion: Int) -> [UInt8] {
        Array("passbox/v1/item|\(vaultID)|\(itemID)|\(keyVersion)".utf8)
    }

    public static func vaultKeyData(accountID: String, vaultID: String, keyVersion: Int) -> [UInt8] {
        Array("passbox/v1/vault-key|\(accountID)|\(vaultID)|\(keyVersion)".utf8)
    }

    public static func vaultMetaData(vaultID: String, keyVersion: Int) -> [UInt8] {
        Array("passbox/v1/vault-meta|\(vaultID)|\(keyVersion)".utf8)
    }

    /// The item's synced content (`Item.synced`), packed, padded and sealed under its vault's key.
    public static func seal(_ item: Item, vaultID: String, keyVersion: Int, key: SecretBytes) throws -> [UInt8] {
        try Envelope.seal(pad(item.synced.packed()), key: key, associatedData: itemData(vaultID: vaultID, itemID: item.id, keyVersion: keyVersion))
    }

    /// Opens an item's envelope. It must name the item id it is stored under.
    public static func open(_ envelope: [UInt8], vaultID: String, itemID: String, keyVersion: Int, key: SecretBytes) throws -> Item {
        let padded = try Envelope.open(envelope, key: key, associatedData: itemData(vaultID: vaultID, itemID: itemID, keyVersion: keyVersion))
        guard let plain = unpad(padded) else { throw SealError.malformed("the padding is wrong") }
        let item: Item
        do {
            item = try plain.withUnsafeBytes { try Item(unpacking: $0) }
        } catch {
            throw SealError.malformed("the item does not read")
        }
        guard item.id == itemID else { throw SealError.malformed("the item names another id") }
        return item
    }

    public static func wrapVaultKey(_ key: SecretBytes, accountID: String, vaultID: String, keyVersion: Int, wrapKey: SecretBytes) throws -> [UInt8] {
        try key.withUnsafeBytes { try Envelope.seal($0, key: wrapKey, associatedData: vaultKeyData(accountID: accountID, vaultID: vaultID, keyVersion: keyVersion)) }
    }

    public static func unwrapVaultKey(_ wrapped: [UInt8], accountID: String, vaultID: String, keyVersion: Int, wrapKey: SecretBytes) throws -> SecretBytes {
        let key = try wrapped.withUnsafeBytes { envelope in
            try Envelope.open(envelope, key: wrapKey, associatedData: vaultKeyData(accountID: accountID, vaultID: vaultID, keyVersion: keyVersion)) { plain in
                plain.count == 32 ? SecretBytes(copying: plain) : nil
            }
        }
        guard let key else { throw SealError.malformed("a vault key is not 32 bytes") }
        return key
    }

    public static func sealMeta(_ info: VaultInfo, keyVersion: Int, key: SecretBytes) throws -> [UInt8] {
        try Envelope.seal(pad(info.packed()), key: key, associatedData: vaultMetaData(vaultID: info.id, keyVersion: keyVersion))
    }

    public static func openMeta(_ envelope: [UInt8], vaultID: String, keyVersion: Int, key: SecretBytes) throws -> VaultInfo {
        let padded = try Envelope.open(envelope, key: key, associatedData: vaultMetaData(vaultID: vaultID, keyVersion: keyVersion))
        guard let plain = unpad(padded), let info = try? plain.withUnsafeBytes({ try VaultInfo(unpacking: $0) }) else {
            throw SealError.malformed("the vault's name does not read")
        }
        guard info.id == vaultID else { throw SealError.malformed("the vault's name names another vault") }
        return info
    }
}

public enum SealError: Error, Equatable, Sendable {
    case malformed(String)
}
