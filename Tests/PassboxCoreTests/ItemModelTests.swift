import Foundation
import PassboxCore
import Testing

@Suite struct ItemModelTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: Category.all) func everyCategoryCanBeCreated(_ category: Category) throws {
        var vault = Vault()
        var item = Item(category: category, title: "An item")
        #expect(item.fields.map(\.key) == category.fieldTemplates.map(\.key))
        if let first = category.fieldTemplates.first(where: { $0.kind == .text }) { item.setValue("value", for: first.key) }
        let saved = try vault.add(item, now: now)
        #expect(saved.created == now)
        #expect(saved.lastChanged == now)
        #expect(saved.lastUsed == nil && saved.lastFilled == nil)
        #expect(category.isKnown)
        #expect(Category.named(category.displayName) == category)
    }

    @Test func categoryNamesAreForgiving() {
        #expect(Category.named("credit card") == .creditCard)
        #expect(Category.named("CARD") == .creditCard)
        #expect(Category.named("ssh") == .sshKey)
        #expect(Category.named("Wi-Fi") == .wifi)
        #expect(Category.named("nonsense") == nil)
    }

    @Test func loginHasUsernamePasswordAndCode() {
        let item = Item(category: .login)
        #expect(item.field(named: "username")?.kind == .text)
        #expect(item.field(named: "password")?.kind == .hidden)
        #expect(item.field(named: "otp")?.kind == .otp)
    }

    @Test func customFieldsKeepLabelsAndOrder() throws {
        var item = Item(category: .login, title: "Bank")
        item.fields.append(Field(label: "Security question", kind: .text, value: "Pet?"))
        item.fields.append(Field(label: "Answer", kind: .hidden, value: "Rex"))
        item.fields.swapAt(item.fields.count - 1, item.fields.count - 2)
        item.fields[item.fields.count - 1].label = "Question"
        var vault = Vault()
        let saved = try vault.add(item, now: now)
        #expect(saved.fields.suffix(2).map(\.label) == ["Answer", "Question"])
        #expect(saved.fields.suffix(2).allSatisfy { $0.isCustom })
    }

    @Test func listSummaryNeverShowsSecrets() {
        var card = Item(category: .creditCard, title: "Visa")
        card.setValue("4111111111111111", for: "number")
        card.setValue("123", for: "cvc")
        #expect(card.summary == "•••• 1111")
        var note = Item(category: .secureNote, title: "Note")
        note.notes = "line one\nline two\nline three"
        #expect(note.summary == "Secure note · 3 lines")
        var login = Item(category: .login, title: "x")
        login.setValue("hunter2", for: "password")
        #expect(!login.summary.contains("hunter2"))
    }
}

@Suite struct ValidationTests {
    @Test(arguments: ["4111 1111 1111 1111", "4111-1111-1111-1111", "5500005555555559", "378282246310005"])
    func validCardNumbersPass(_ number: String) throws {
        #expect(try Validation.normalizedCardNumber(number).allSatisfy(\.isNumber))
    }

    @Test func luhnFailureSaysWhatToDo() {
        #expect(throws: ValidationError("card.checkDigit")) {
            try Validation.normalizedCardNumber("4111 1111 1111 1112")
        }
        #expect(throws: ValidationError.self) { try Validation.normalizedCardNumber("4111") }
        #expect(throws: ValidationError.self) { try Validation.normalizedCardNumber("4111a11111111111") }
    }

    @Test func cardIsValidatedOnSave() {
        var card = Item(category: .creditCard, title: "Visa")
        card.setValue("4111 1111 1111 1112", for: "number")
        var vault = Vault()
        #expect(throws: ValidationError.self) { try vault.add(card, now: Date()) }
        #expect(vault.items.isEmpty)
    }

    @Test func expiryIsNormalised() throws {
        #expect(try Validation.normalizedMonthYear("04/29") == "2029-04")
        #expect(try Validation.normalizedMonthYear("4/2031") == "2031-04")
        #expect(try Validation.normalizedMonthYear("2030-12") == "2030-12")
        #expect(try Validation.normalizedMonthYear("1229") == "2029-12")
        #expect(throws: ValidationError.self) { try Validation.normalizedMonthYear("13/29") }
        #expect(throws: ValidationError.self) { try Validation.normalizedMonthYear("soon") }
    }

    @Test func datesAreChecked() throws {
        #expect(try Validation.normalizedDate("2031-04-30") == "2031-04-30")
        #expect(try Validation.normalizedDate("30.04.2031") == "2031-04-30")
        #expect(throws: ValidationError.self) { try Validation.normalizedDate("2031-02-30") }
    }

    @Test func addressWithoutSchemeGetsHTTPS() throws {
        #expect(try Validation.normalizedURL("github.com") == "https://github.com")
        #expect(try Validation.normalizedURL("http://intranet.example/login") == "http://intranet.example/login")
        #expect(throws: ValidationError.self) { try Validation.normalizedURL("not an address") }
        #expect(throws: ValidationError.self) { try Validation.normalizedURL("nodot") }
    }

    @Test func emptyTitleIsDerived() throws {
        var vault = Vault()
        let fromSite = try vault.add(Item(category: .login, websites: ["www.example.org/login"]), now: Date())
        #expect(fromSite.title == "example.org")
        #expect(fromSite.websites == ["https://www.example.org/login"])
        var wifi = Item(category: .wifi)
        wifi.setValue("HomeNet", for: "ssid")
        #expect(try vault.add(wifi, now: Date()).title == "HomeNet")
        #expect(try vault.add(Item(category: .document), now: Date()).title == "Untitled Document")
    }

    @Test func emailIsChecked() {
        #expect(throws: ValidationError.self) { try Validation.normalizedEmail("me@") }
        #expect((try? Validation.normalizedEmail("me@example.com")) == "me@example.com")
    }
}
