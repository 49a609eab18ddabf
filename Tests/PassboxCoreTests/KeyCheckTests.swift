import Foundation
import PassboxCore
import PassboxCrypto
import Testing

/// What Passbox reads of recovery phrases and private keys (G104), against published vectors: BIP-39's test
/// vectors, the Bitcoin wiki's WIF example, BIP-32 test vector 1, BIP-173's valid strings.
@Suite struct KeyCheckTests {
    @Test(arguments: [
        "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
        "legal winner thank year wave sausage worth useful legal winner thank yellow",
        "letter advice cage absurd amount doctor acoustic avoid letter advice cage above",
        "zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong",
        "  Abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon art\n",
        "hamster diagram private dutch cause delay private meat slide toddler razor book happy fancy gospel tennis maple dilemma loan word shrug inflict delay length",
    ])
    func bip39VectorsCheck(_ phrase: String) {
        #expect(RecoveryPhraseCheck.check(phrase) == .valid(kind: "bip39"))
    }

    @Test func wrongPhrasesSayWhy() {
        #expect(RecoveryPhraseCheck.check("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon") == .invalid(kind: "bip39", problem: "checksum"))
        #expect(RecoveryPhraseCheck.check("legal winner thank year wave sausage worth useful legal winner yellow thank") == .invalid(kind: "bip39", problem: "checksum"))
        #expect(RecoveryPhraseCheck.check("abandon abandon abandon") == .invalid(kind: "bip39", problem: "length"))
        #expect(RecoveryPhraseCheck.check("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abuot") == .invalid(kind: "bip39", problem: "word"))
        #expect(RecoveryPhraseCheck.check("") == .unrecognised)
        #expect(RecoveryPhraseCheck.check("abandon abandon abandon").warningKey == "keyCheck.bip39.length")
    }

    @Test func privateKeysInTheirForms() {
        #expect(PrivateKeyCheck.check("5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ") == .valid(kind: "wif"))
        #expect(PrivateKeyCheck.check("5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTK") == .invalid(kind: "wif", problem: "checksum"))
        #expect(PrivateKeyCheck.check("0C28FCA386C7A227600B2FE50B7CAE11EC86D3BF1FBE471BE89827E19D72AA1D") == .valid(kind: "hex"))
        #expect(PrivateKeyCheck.check(String(repeating: "0", count: 64)) == .invalid(kind: "hex", problem: "range"))
        #expect(PrivateKeyCheck.check("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141") == .invalid(kind: "hex", problem: "range"), "n itself")
        #expect(PrivateKeyCheck.check("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364140") == .valid(kind: "hex"), "n − 1")
        #expect(
            PrivateKeyCheck.check("xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi")
                == .valid(kind: "xprv"))
        #expect(PrivateKeyCheck.check("A12UEL5L") == .valid(kind: "bech32"))
        #expect(PrivateKeyCheck.check("abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw") == .valid(kind: "bech32"))
        #expect(PrivateKeyCheck.check("abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxx") == .invalid(kind: "bech32", problem: "checksum"))
        let pem = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIDgQ3gZ9ZBqUuGBmKQGcfnGZX6mRD8D8Yp1JeTgW0s4v\n-----END PRIVATE KEY-----\n"
        #expect(PrivateKeyCheck.check(pem) == .valid(kind: "armored"))
        #expect(PrivateKeyCheck.check(pem.replacingOccurrences(of: "END PRIVATE", with: "END PUBLIC")) == .invalid(kind: "armored", problem: "end"))
        #expect(PrivateKeyCheck.check("just some words") == .unrecognised)
    }

    /// A seal opens with its password to exactly its content; the content is gone from the item (and its
    /// earlier versions with it); the payload holds none of it in the clear.
    @Test func aSealedItemKeepsNothingReadable() throws {
        var item = Item(category: .secureNote, title: "Plans")
        item.notes = "meet at the old mill"
        item.history = [ItemVersion(id: "v1", replacedAt: Date(), item: Item(category: .secureNote, title: "Plans"))]
        let cheap = Argon2Parameters(memoryKiB: 64, passes: 1, lanes: 4)
        let password = SecretBytes(copying: Array("an item password".utf8))
        try ItemSeal.seal(&item, password: password, parameters: cheap)
        #expect(item.notes.isEmpty && item.history.isEmpty && item.sealed != nil)
        let packed = item.packed()
        #expect(!String(decoding: packed, as: UTF8.self).contains("old mill"))
        let back = try Item(unpacking: packed.withUnsafeBytes { $0 })
        #expect(back == item, "the seal round-trips through the payload")
        #expect(try ItemSeal.open(back, password: password).notes == "meet at the old mill")
        #expect(throws: VaultError.wrongItemPassword) { try ItemSeal.open(back, password: SecretBytes(copying: Array("another one".utf8))) }
        #expect(throws: VaultError.itemPasswordTooShort(8)) {
            var other = Item(category: .secureNote, title: "x")
            try ItemSeal.seal(&other, password: SecretBytes(copying: Array("short".utf8)), parameters: cheap)
        }
        #expect(throws: VaultError.cannotProtect("Login")) {
            var login = Item(category: .login, title: "x")
            try ItemSeal.seal(&login, password: password, parameters: cheap)
        }
    }

    /// Headroom is the smaller of MemAvailable and the cgroup's room.
    @Test func memoryHeadroomReadsMeminfoAndTheCgroup() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("headroom-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "MemTotal:  1000000 kB\nMemAvailable:  204800 kB\n".write(to: dir.appendingPathComponent("meminfo"), atomically: true, encoding: .utf8)
        #expect(MemoryHeadroom.available(meminfo: dir.appendingPathComponent("meminfo").path, cgroup: dir.path) == 200 << 20)
        try "104857600\n".write(to: dir.appendingPathComponent("memory.max"), atomically: true, encoding: .utf8)
        try "52428800\n".write(to: dir.appendingPathComponent("memory.current"), atomically: true, encoding: .utf8)
        #expect(MemoryHeadroom.available(meminfo: dir.appendingPathComponent("meminfo").path, cgroup: dir.path) == 50 << 20)
    }
}
