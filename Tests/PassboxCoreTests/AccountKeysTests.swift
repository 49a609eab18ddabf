import Foundation
import PassboxCore
import PassboxCrypto
import PassboxProtocol
import Testing

@Suite struct SecretKeyTests {
    /// A key made once with `SecretKey.generate()`; its derivation below is pinned so it can never change.
    static let fixtureKey = "P1-CC4DNE-0Y4E10-4N2VWZ-FX8TN-M810Q-13480"

    @Test func aNewKeyReadsBackAsItself() throws {
        for _ in 0..<50 {
            let key = SecretKey.generate()
            let text = key.formatted()
            #expect(text.count == 41)
            #expect(text.hasPrefix("P1-" + key.accountID + "-"))
            #expect(text.split(separator: "-").map(\.count) == [2, 6, 6, 6, 5, 5, 5])
            let back = try SecretKey(parsing: text)
            #expect(back.isSameKey(as: key))
            #expect(back.formatted() == text)
            #expect(key.lastFour() == String(text.suffix(4)))
        }
    }

    @Test func inputIsForgiving() throws {
        let key = SecretKey.generate()
        let text = key.formatted()
        let variants = [
            text.lowercased(),
            text.replacingOccurrences(of: "-", with: ""),
            text.replacingOccurrences(of: "-", with: " "),
            "  " + text.replacingOccurrences(of: "-", with: " - ") + "\t",
            text.replacingOccurrences(of: "0", with: "O").replacingOccurrences(of: "1", with: "l"),
            text.replacingOccurrences(of: "1", with: "I").lowercased(),
        ]
        for variant in variants {
            #expect(try SecretKey(parsing: variant).isSameKey(as: key), "\(variant)")
        }
    }

    @Test func errorsSayWhatIsWrong() {
        let text = Self.fixtureKey
        let compact = text.replacingOccurrences(of: "-", with: "")
        #expect(throws: TypedCodeError.empty) { try SecretKey(parsing: " - ") }
        #expect(throws: TypedCodeError.missingVersion(expected: "P1")) { try SecretKey(parsing: String(compact.dropFirst(2))) }
        #expect(throws: TypedCodeError.missingVersion(expected: "P1")) { try SecretKey(parsing: "A3-" + compact.dropFirst(2)) }
        #expect(throws: TypedCodeError.unknownVersion("P2")) { try SecretKey(parsing: "P2" + compact.dropFirst(2)) }
        #expect(throws: TypedCodeError.charactersMissing(2, after: "P1")) { try SecretKey(parsing: String(text.dropLast(2))) }
        #expect(throws: TypedCodeError.charactersMissing(33, after: "P1")) { try SecretKey(parsing: "p1") }
        #expect(throws: TypedCodeError.charactersExtra(1)) { try SecretKey(parsing: text + "7") }
        var chars = Array(compact)
        chars[12] = "U"
        #expect(throws: TypedCodeError.invalidCharacter("U", position: 11)) { try SecretKey(parsing: String(chars)) }
    }

    /// Every single mistyped character and every swap of two different neighbours is caught on the device.
    @Test func everyTypoIsCaught() throws {
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        for _ in 0..<5 {
            let compact = Array(SecretKey.generate().formatted().replacingOccurrences(of: "-", with: ""))
            for position in 2..<compact.count {
                for replacement in alphabet where replacement != compact[position] {
                    var typo = compact
                    typo[position] = replacement
                    #expect(throws: TypedCodeError.self) { try SecretKey(parsing: String(typo)) }
                }
                if position + 1 < compact.count, compact[position] != compact[position + 1] {
                    var swapped = compact
                    swapped.swapAt(position, position + 1)
                    #expect(throws: TypedCodeError.mistyped) { try SecretKey(parsing: String(swapped)) }
                }
            }
        }
    }

    /// The two-secret derivation of a fixed key, password, salt and parameters, pinned (made once).
    @Test func derivationIsPinned() throws {
        let key = try SecretKey(parsing: Self.fixtureKey)
        #expect(key.accountID == "CC4DNE")
        let salt = Array(0x10..<0x20).map(UInt8.init)
        let parameters = Argon2Parameters(memoryKiB: 8 * 1024, passes: 1, lanes: 1)
        let keys = try Array("correct horse".utf8).withUnsafeBytes {
            try AccountKeys.derive(password: $0, salt: salt, parameters: parameters, secretKey: key)
        }
        #expect(hex(keys.accountUnlockKey.revealBytes()) == "430ac30fcfff8d99aa66b4107595a0baa5633209be6aadf1420b47ad55a16518")
        #expect(hex(keys.signInKey.publicKey) == "7c72809daf5e1b07a070ede47b6dc7bea1086306e6563781ad0cbf620b03aef0")
    }

    /// Neither secret alone makes the keys: another password or another Secret Key gives other keys.
    @Test func bothSecretsCount() throws {
        let salt = [UInt8](repeating: 7, count: 16)
        let parameters = Argon2Parameters(memoryKiB: 8 * 1024, passes: 1, lanes: 1)
        let key = SecretKey.generate(), other = SecretKey.generate()
        func derive(_ password: String, _ key: SecretKey) throws -> AccountKeys {
            try Array(password.utf8).withUnsafeBytes { try AccountKeys.derive(password: $0, salt: salt, parameters: parameters, secretKey: key) }
        }
        let base = try derive("pw one", key)
        #expect(!base.accountUnlockKey.isEqual(to: try derive("pw two", key).accountUnlockKey))
        #expect(!base.accountUnlockKey.isEqual(to: try derive("pw one", other).accountUnlockKey))
        #expect(base.accountUnlockKey.isEqual(to: try derive("pw one", key).accountUnlockKey))
        #expect(base.signInKey.publicKey != base.accountUnlockKey.revealBytes())
    }

    @Test func aSignInSignatureServesOneChallengeOneServerOneDevice() throws {
        let salt = [UInt8](repeating: 9, count: 16)
        let keys = try Array("pw".utf8).withUnsafeBytes {
            try AccountKeys.derive(password: $0, salt: salt, parameters: .init(memoryKiB: 8192, passes: 1, lanes: 1), secretKey: .generate())
        }
        let challenge = [UInt8](repeating: 1, count: 32)
        let transcript = SignInTranscript.bytes(origin: "https://vault.example.org", email: "a@example.org", challenge: challenge, deviceID: "dev1")
        let signature = keys.signInKey.signature(for: transcript)
        #expect(SigningKey.isValidSignature(signature, for: transcript, publicKey: keys.signInKey.publicKey))
        let others = [
            SignInTranscript.bytes(origin: "https://evil.example.org", email: "a@example.org", challenge: challenge, deviceID: "dev1"),
            SignInTranscript.bytes(origin: "https://vault.example.org", email: "b@example.org", challenge: challenge, deviceID: "dev1"),
            SignInTranscript.bytes(origin: "https://vault.example.org", email: "a@example.org", challenge: [UInt8](repeating: 2, count: 32), deviceID: "dev1"),
            SignInTranscript.bytes(origin: "https://vault.example.org", email: "a@example.org", challenge: challenge, deviceID: "dev2"),
            SignInTranscript.bytes(label: SignInTranscript.recoveryLabel, origin: "https://vault.example.org", email: "a@example.org", challenge: challenge, deviceID: "dev1"),
        ]
        for other in others { #expect(!SigningKey.isValidSignature(signature, for: other, publicKey: keys.signInKey.publicKey)) }
        // Lengths before parts: moving a byte from one part to the next makes another transcript.
        #expect(SignInTranscript.bytes(origin: "ab", email: "c", challenge: [], deviceID: "")
            != SignInTranscript.bytes(origin: "a", email: "bc", challenge: [], deviceID: ""))
        #expect(SignInTranscript.normalizedEmail("  Alice@Example.ORG ") == "alice@example.org")
    }

    /// The standard policy, whatever the tests' cheap derivation (PASSBOX_TEST_ACCOUNT_KDF) is set to.
    @Test func serverParametersAreCheckedAgainstFloorCeilingAndMemory() throws {
        let standard = AccountKDFParameters.standardNewAccount, floor = AccountKDFParameters.standardFloor
        #expect(standard == Argon2Parameters(memoryKiB: 128 * 1024, passes: 4, lanes: 1) && floor == Argon2Parameters(memoryKiB: 64 * 1024, passes: 3, lanes: 1))
        func check(_ offered: Argon2Parameters, lastUsed: Argon2Parameters?) throws { try AccountKDFPolicy.check(offered, lastUsed: lastUsed, floor: floor) }
        try check(standard, lastUsed: nil)
        try check(floor, lastUsed: floor)
        let weak = Argon2Parameters(memoryKiB: 32 * 1024, passes: 4, lanes: 1)
        #expect(throws: AccountKDFError.belowFloor(weak)) { try check(weak, lastUsed: nil) }
        let fewPasses = Argon2Parameters(memoryKiB: 128 * 1024, passes: 2, lanes: 1)
        #expect(throws: AccountKDFError.belowFloor(fewPasses)) { try check(fewPasses, lastUsed: nil) }
        let huge = Argon2Parameters(memoryKiB: 64 * 1024 * 1024, passes: 4, lanes: 1)
        #expect(throws: AccountKDFError.aboveCeiling(huge)) { try check(huge, lastUsed: nil) }
        #expect(throws: AccountKDFError.changedSinceLastSignIn(last: standard, offered: floor)) { try check(floor, lastUsed: standard) }
    }

    /// The tests' cheap derivation is what the environment asks for in a debug build, and still refuses a
    /// server that offers less (the hostile-server tests' 1 MiB and 1 pass).
    @Test func theTestsCheapDerivationFollowsTheEnvironment() throws {
        let asked = ProcessInfo.processInfo.environment["PASSBOX_TEST_ACCOUNT_KDF"] == "cheap"
        #expect(TestAccountKDF.isOn == asked)
        #expect(AccountKDFParameters.newAccount == (asked ? TestAccountKDF.parameters : AccountKDFParameters.standardNewAccount))
        #expect(AccountKDFParameters.floor == (asked ? TestAccountKDF.parameters : AccountKDFParameters.standardFloor))
        let lessThanTheCheapest = Argon2Parameters(memoryKiB: 1024, passes: 1, lanes: 1)
        #expect(throws: AccountKDFError.belowFloor(lessThanTheCheapest)) { try AccountKDFPolicy.check(lessThanTheCheapest, lastUsed: nil) }
    }
}

@Suite struct RecoveryCodeTests {
    @Test func aCodeReadsBackAndMakesTwoDifferentKeys() throws {
        let code = RecoveryCode.generate()
        let text = code.formatted()
        #expect(text.hasPrefix("R1-"))
        #expect(text.split(separator: "-").map(\.count) == [2, 6, 6, 5, 5, 5])
        let back = try RecoveryCode(parsing: text.lowercased().replacingOccurrences(of: "-", with: " "))
        #expect(back.formatted() == text)
        #expect(try back.recoveryKey().isEqual(to: code.recoveryKey()))
        #expect(try back.signInKey().publicKey == code.signInKey().publicKey)
        #expect(try code.recoveryKey().revealBytes() != code.signInKey().publicKey)
        #expect(try RecoveryCode.generate().recoveryKey().isEqual(to: code.recoveryKey()) == false)
    }

    @Test func aSecretKeyIsNotARecoveryCode() {
        let key = SecretKey.generate().formatted()
        #expect(throws: TypedCodeError.missingVersion(expected: "R1")) { try RecoveryCode(parsing: key) }
        #expect(throws: TypedCodeError.charactersMissing(1, after: "R1")) { try RecoveryCode(parsing: String(RecoveryCode.generate().formatted().dropLast())) }
    }
}

private func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
}
