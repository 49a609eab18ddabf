import Foundation
import PassboxCore
import PassboxCrypto
import PassboxTestKit
import Testing

@testable import PassboxInterop

/// Aegis and 2FAS exports, plain and encrypted: the fixtures were made once by make-authenticators.py with
/// Python's hashlib and PyCryptodome (an implementation apart from Passbox's), in each app's documented layout.
@Suite struct AuthenticatorImportTests {
    static let password = "authenticator fixture"
    static func secret(_ text: String) -> SecretBytes { SecretBytes(copying: Array(text.utf8)) }

    func check(_ plan: ImportPlan) throws {
        #expect(plan.notBrought == ["unsupportedCode": 1])
        #expect(plan.entries.count == 2)
        let github = try #require(plan.entries.first { $0.item.title == "GitHub" }?.item)
        #expect(github.category == .oneTimePassword && github.isFavorite && github.notes == "work account" && github.tags == ["Work"])
        let p = try OTPInput.parse(try #require(github.value(of: "otp")))
        #expect(p.secret == (try Base32.decode("JBSWY3DPEHPK3PXP")) && p.account == "octocat" && p.issuer == "GitHub" && p.period == 30)
        let bank = try OTPInput.parse(try #require(plan.entries.first { $0.item.title == "Bank" }?.item.value(of: "otp")))
        #expect(bank.kind == .hotp && bank.counter == 7 && bank.digits == 8 && bank.algorithm == .sha256)
        for entry in plan.entries { _ = try entry.item.validated() }
    }

    @Test func aegisPlainAndEncrypted() throws {
        try check(try AuthenticatorImport.planAegis(try KDBXReadTests.fixture("aegis-plain.json"), password: nil, groupsAsVaults: false))
        let encrypted = try KDBXReadTests.fixture("aegis-encrypted.json")
        #expect(ImportFormat.needsPassword(encrypted, format: "aegis"))
        let plan = try AuthenticatorImport.planAegis(encrypted, password: Self.secret(Self.password), groupsAsVaults: false)
        try check(plan)
        #expect(plan.source == "Aegis export, encrypted (scrypt, AES-256-GCM)")
        #expect(throws: InteropError.wrongPassword) { try AuthenticatorImport.planAegis(encrypted, password: Self.secret("authenticator fixturE"), groupsAsVaults: false) }
        #expect(throws: InteropError.wrongPassword) { try AuthenticatorImport.planAegis(encrypted, password: nil, groupsAsVaults: false) }
        let vaults = try AuthenticatorImport.planAegis(encrypted, password: Self.secret(Self.password), groupsAsVaults: true)
        #expect(vaults.entries.first { $0.item.title == "GitHub" }?.vaultName == "Work")
    }

    @Test func twoFASPlainAndEncrypted() throws {
        for (name, password) in [("2fas-plain.2fas", nil), ("2fas-encrypted.2fas", Self.password)] as [(String, String?)] {
            let bytes = try KDBXReadTests.fixture(name)
            #expect(ImportFormat.needsPassword(bytes, format: "2fas") == (password != nil))
            let plan = try AuthenticatorImport.planTwoFAS(bytes, password: password.map(Self.secret), groupsAsVaults: false)
            #expect(plan.entries.map(\.item.title) == ["GitHub", "Mail"])
            #expect(plan.entries[0].item.tags == ["Work"])
            let mail = try OTPInput.parse(try #require(plan.entries[1].item.value(of: "otp")))
            #expect(mail.account == "me@example.org" && mail.digits == 8 && mail.period == 60 && mail.algorithm == .sha512)
        }
        #expect(throws: InteropError.wrongPassword) { try AuthenticatorImport.planTwoFAS(try KDBXReadTests.fixture("2fas-encrypted.2fas"), password: Self.secret("no"), groupsAsVaults: false) }
    }

    @Test func hostileAuthenticatorFiles() throws {
        // scrypt parameters past the bound are refused before any derivation.
        var aegis = String(decoding: try KDBXReadTests.fixture("aegis-encrypted.json"), as: UTF8.self)
        aegis = aegis.replacingOccurrences(of: "\"n\": 32768", with: "\"n\": 4194304")
        #expect(throws: InteropError.self) { try AuthenticatorImport.planAegis(Array(aegis.utf8), password: Self.secret(Self.password), groupsAsVaults: false) }
        #expect(throws: InteropError.notThisFormat(format: "Aegis")) { try AuthenticatorImport.planAegis(Array("{}".utf8), password: nil, groupsAsVaults: false) }
        #expect(throws: InteropError.notThisFormat(format: "2FAS")) { try AuthenticatorImport.planTwoFAS(Array("{\"schemaVersion\": 4}".utf8), password: nil, groupsAsVaults: false) }
        for name in ["aegis-plain.json", "aegis-encrypted.json", "2fas-plain.2fas", "2fas-encrypted.2fas"] {
            let sample = try KDBXReadTests.fixture(name)
            var rng = SplitMix64(seed: KDBXMutationTests.seed(0x6175_7468) ^ UInt64(name.utf8.count))
            // Fewer for the encrypted ones: most mutations reach scrypt (32 MiB) or PBKDF2 before they fail.
            let count = name.contains("encrypted") ? Soak.count(100, soak: 300) : Soak.count(2_000, soak: 10_000)
            var handled = 0
            for _ in 0..<count {
                let mutated = KDBXMutationTests.mutate(sample, &rng)
                do {
                    _ = name.hasPrefix("aegis")
                        ? try AuthenticatorImport.planAegis(mutated, password: Self.secret(Self.password), groupsAsVaults: false)
                        : try AuthenticatorImport.planTwoFAS(mutated, password: Self.secret(Self.password), groupsAsVaults: false)
                } catch is InteropError {}
                handled += 1
            }
            #expect(handled == count)
        }
    }
}
