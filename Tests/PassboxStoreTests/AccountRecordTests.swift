import Foundation
import PassboxCore
import PassboxCrypto
import PassboxStore
import PassboxTestKit
import Testing

/// The account record, the Secret Key's written form, the two-secret derivation and the sealed keyset, pinned
/// by a record `passbox signup` wrote once (master password "tulip ocean marble violin anchor").
@Suite struct AccountRecordTests {
    func fixtureDirectory() throws -> String {
        try #require(Bundle.module.url(forResource: "Fixtures/account-v1/account", withExtension: "json")).deletingLastPathComponent().path
    }

    @Test func theRecordMadeOnceStillOpensItsKeyset() throws {
        let record = try #require(try AccountRecord.load(try fixtureDirectory()))
        #expect(record.v == 1)
        #expect(record.email == "me@example.org")
        let key = try SecretKey(parsing: record.secretKey)
        #expect(key.accountID == record.accountID)
        let parameters = Argon2Parameters(memoryKiB: record.memoryKiB, passes: record.passes, lanes: record.lanes)
        let keys = try Array("tulip ocean marble violin anchor".utf8).withUnsafeBytes {
            try AccountKeys.derive(password: $0, salt: Array(record.salt), parameters: parameters, secretKey: key)
        }
        let keyset = try AccountKeyset(opening: Array(record.keyset), accountID: record.accountID, unlockKey: keys.accountUnlockKey)
        #expect(keyset.boxPublicKey == Array(record.keyset[1..<33]))
        // Another password, or the keyset claimed for another account, does not open it.
        let wrong = try Array("tulip ocean marble violin anchors".utf8).withUnsafeBytes {
            try AccountKeys.derive(password: $0, salt: Array(record.salt), parameters: parameters, secretKey: key)
        }
        #expect(throws: CryptoError.authenticationFailed) { try AccountKeyset(opening: Array(record.keyset), accountID: record.accountID, unlockKey: wrong.accountUnlockKey) }
        #expect(throws: CryptoError.authenticationFailed) { try AccountKeyset(opening: Array(record.keyset), accountID: "ZZZZZZ", unlockKey: keys.accountUnlockKey) }
        var newer = Array(record.keyset)
        newer[0] = 2
        #expect(throws: AccountKeysetError.newerVersion(2)) { try AccountKeyset(opening: newer, accountID: record.accountID, unlockKey: keys.accountUnlockKey) }
    }

    @Test func aRecordRoundTripsAndBadOnesAreNamed() throws {
        let dir = try TemporaryDirectory()
        #expect(try AccountRecord.load(dir.path) == nil)
        let fixture = try #require(try AccountRecord.load(try fixtureDirectory()))
        try fixture.save(dir.path)
        #expect(try AccountRecord.load(dir.path) == fixture)
        let mode = try FileManager.default.attributesOfItem(atPath: AccountRecord.path(dir.path))[.posixPermissions] as? Int
        #expect(mode == 0o600)
        for (text, expected) in [("garbage", "damaged"), (#"{"v":1}"#, "damaged"), (#"{"v":9}"#, "newer")] {
            try text.write(toFile: AccountRecord.path(dir.path), atomically: true, encoding: .utf8)
            do {
                _ = try AccountRecord.load(dir.path)
                Issue.record("\(text) was read")
            } catch let error as StoreError {
                switch (error, expected) {
                case (.damaged, "damaged"), (.newerFormat(version: 9), "newer"): break
                default: Issue.record("\(text): \(error)")
                }
            }
        }
        try AccountRecord.remove(dir.path)
        try AccountRecord.remove(dir.path)
        #expect(try AccountRecord.load(dir.path) == nil)
    }
}
