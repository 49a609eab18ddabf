import Foundation
import PassboxCore
import Testing

@Suite struct SecurityFixTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func fixHTTPSSwitchesOnlyPlainAddressesAndKeepsHistory() throws {
        var vault = Vault()
        let plain = try vault.add(Item(category: .login, title: "Plain", websites: ["HTTP://plain.example/login?x=1", "https://ok.example"]), now: now).id
        let secure = try vault.add(Item(category: .login, title: "Secure", websites: ["https://secure.example"]), now: now).id
        let other = try vault.add(Item(category: .login, title: "Other", websites: ["http://other.example"]), now: now).id
        #expect(try SecurityCheck.fixHTTPS(itemIDs: [plain, secure], in: &vault, now: now + 1) == [plain])
        let fixed = try vault.item(id: plain)
        #expect(fixed.websites == ["https://plain.example/login?x=1", "https://ok.example"])
        #expect(fixed.history.count == 1)
        #expect(try vault.item(id: secure).history.isEmpty)
        #expect(try vault.item(id: other).websites == ["http://other.example"])
        #expect(try SecurityCheck.fixHTTPS(in: &vault, now: now + 2) == [other])
        #expect(try SecurityCheck.fixHTTPS(in: &vault, now: now + 3).isEmpty)
        #expect(throws: VaultError.itemNotFound("missing")) { try SecurityCheck.fixHTTPS(itemIDs: ["missing"], in: &vault, now: now) }
    }

    @Test func breachMarksRecordCountsAndFingerprints() throws {
        var vault = Vault()
        func login(_ title: String, _ password: String?) throws -> String {
            var item = Item(category: .login, title: title)
            if let password { item.setValue(password, for: "password") }
            return try vault.add(item, now: now).id
        }
        let a = try login("A", "password1"), b = try login("B", "password1"), c = try login("C", "Unique-Str0ng!"), d = try login("D", nil)
        let trashed = try login("T", "password1")
        try vault.trash(id: trashed, now: now)
        #expect(Set(SecurityCheck.passwordsToCheck(in: vault)) == ["password1", "Unique-Str0ng!"])
        let summary = SecurityCheck.applyBreachMarks(["password1": 42], to: &vault, now: now)
        #expect(summary == BreachMarkSummary(checkedLogins: 3, breachedLogins: 2, breachedPasswords: 1))
        #expect(try vault.item(id: a).passwordBreach == PasswordBreachMark(checkedAt: now, occurrences: 42, fingerprint: SecurityCheck.fingerprint("password1")))
        #expect(try vault.item(id: b).passwordBreach?.occurrences == 42)
        #expect(try vault.item(id: c).passwordBreach?.occurrences == 0)
        #expect(try vault.item(id: d).passwordBreach == nil)
        #expect(try vault.item(id: trashed).passwordBreach == nil)
        #expect(vault.lastBreachCheck == now)
        #expect(try vault.item(id: a).history.isEmpty)
    }
}
