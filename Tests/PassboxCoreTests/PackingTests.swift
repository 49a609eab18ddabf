import Foundation
@testable import PassboxCore
import Testing

@Suite struct PackingTests {
    /// Dates at the edges of what a payload can hold pack again without trapping (found by fuzzing).
    @Test func extremeDatesPackAgain() throws {
        for ms in [Int64.max, Int64.min, 0, -1] {
            var item = Item(category: .login, title: "Edge")
            item.created = Date(timeIntervalSince1970: Double(ms) / 1000)
            let vault = Vault(items: [item], slotOrder: [0])
            let bytes = vault.packed()
            let back = try bytes.withUnsafeBytes { try Vault(unpacking: $0) }
            #expect(back.items.count == 1)
            _ = back.packed()
        }
    }

    func roundTrip(_ vault: Vault) throws -> Vault {
        try vault.packed().withUnsafeBytes { try Vault(unpacking: $0) }
    }

    @Test func everyFieldRoundTrips() throws {
        var vault = Vault(slotOrder: [3, 1, 2], created: Date(timeIntervalSince1970: 1_700_000_000.123))
        var item = Item(category: .login, title: "Mail ✉️", websites: ["https://mail.example"], notes: "multi\nline", tags: ["a", "b"], isFavorite: true)
        item.setValue("me", for: "username")
        item.setValue("pässwörd", for: "password")
        item.fields.append(Field(label: "PIN", kind: .hidden, value: "1234"))
        item.dismissals = ["weak"]
        item.passkeys = [
            Passkey(
                credentialID: [1, 2, 3, 4], relyingParty: "mail.example", userHandle: [9, 8], userName: "me", displayName: "Me", privateKey: [0x30, 1, 2],
                signCount: 7, created: Date(timeIntervalSince1970: 1_700_000_050), lastUsed: Date(timeIntervalSince1970: 1_700_000_060))
        ]
        var saved = try vault.add(item, now: Date(timeIntervalSince1970: 1_700_000_100))
        saved = try vault.update(id: saved.id, now: Date(timeIntervalSince1970: 1_700_000_200)) { $0.title = "Mail" }
        try vault.markUsed(id: saved.id, now: Date(timeIntervalSince1970: 1_700_000_300))
        try vault.add(Item(category: .secureNote, title: String(repeating: "long ", count: 20_000)), now: Date(timeIntervalSince1970: 1_700_000_400))
        #expect(try roundTrip(vault) == vault)
    }

    @Test func unknownDataIsKeptOnSave() throws {
        // A vault written by a "newer" Passbox: extra keys at every level and a field kind this version lacks.
        var w = MessagePackWriter()
        w.writeMapHeader(3)
        w.write("items")
        w.writeArrayHeader(1)
        w.writeMapHeader(5)
        w.write("id"); w.write("abc")
        w.write("category"); w.write("passkey")
        w.write("title"); w.write("Future")
        w.write("fields")
        w.writeArrayHeader(1)
        w.writeMapHeader(5)
        w.write("id"); w.write("f1")
        w.write("label"); w.write("Credential")
        w.write("kind"); w.write("webauthn")
        w.write("value"); w.write("opaque")
        w.write("rpId"); w.write("example.com")
        w.write("extraMap"); w.write(PackedValue.map(["counter": .int(7), "flags": .array([.bool(true), .null, .double(1.5)])]))
        w.write("slotOrder"); w.writeArrayHeader(0)
        w.write("duressSlots"); w.write(PackedValue.array([.int(4), .int(9)]))
        var vault = try w.bytes.withUnsafeBytes { try Vault(unpacking: $0) }
        #expect(vault.items[0].category.isKnown == false)
        #expect(vault.items[0].fields[0].kind.isConcealed)
        #expect(vault.unknown["duressSlots"] == .array([.int(4), .int(9)]))
        // Edit something this version understands, save, read back: the unknown data is unchanged.
        try vault.update(id: "abc", now: Date()) { $0.title = "Future, edited" }
        let again = try roundTrip(vault)
        #expect(again.items[0].unknown["extraMap"] == .map(["counter": .int(7), "flags": .array([.bool(true), .null, .double(1.5)])]))
        #expect(again.items[0].fields[0].unknown["rpId"] == .string("example.com"))
        #expect(again.items[0].category.rawValue == "passkey")
        var reader = again.packed()
        let text = String(decoding: reader, as: UTF8.self)
        #expect(text.contains("webauthn"))
        reader.removeAll()
    }

    @Test func malformedPayloadsAreRejected() throws {
        var vault = Vault()
        try vault.add(Item(category: .login, title: "x"), now: Date())
        let bytes = vault.packed()
        for cut in [1, bytes.count / 2, bytes.count - 1] {
            #expect(throws: MessagePackError.self) { try Array(bytes.prefix(cut)).withUnsafeBytes { try Vault(unpacking: $0) } }
        }
        #expect(throws: MessagePackError.self) { try (bytes + [0]).withUnsafeBytes { try Vault(unpacking: $0) } }
        // A huge declared array count with no data behind it fails fast instead of allocating.
        #expect(throws: MessagePackError.self) { try [0x81, 0xa5] .withUnsafeBytes { try Vault(unpacking: $0) } }
        let hostile: [UInt8] = [0x81, 0xa5] + Array("items".utf8) + [0xdd, 0xff, 0xff, 0xff, 0xff]
        #expect(throws: MessagePackError.self) { try hostile.withUnsafeBytes { try Vault(unpacking: $0) } }
    }

    /// The pieces an incremental save packs separately join into exactly the whole payload, whatever the
    /// item count (the array header's width changes at 16 and 65,536) and the optional vault keys.
    @Test(arguments: [0, 1, 15, 16, 17, 300]) func piecesJoinIntoThePayload(count: Int) throws {
        var vault = Vault(slotOrder: [2, 0, 1], created: count % 2 == 0 ? Date(timeIntervalSince1970: 1_700_000_000) : nil)
        for i in 0..<count {
            var item = Item(category: i % 3 == 0 ? .secureNote : .login, title: "Item \(i)", notes: i % 2 == 0 ? "note \(i)" : "")
            item.setValue("user\(i)", for: "username")
            try vault.add(item, now: Date(timeIntervalSince1970: 1_700_000_000 + Double(i)))
        }
        if count > 1 { vault.lastBreachCheck = Date(timeIntervalSince1970: 1_700_000_500) }
        if count > 15 { vault.unknown["future"] = .array([.int(1), .string("x")]) }
        let whole = vault.packed()
        var joined = vault.packedPrelude()
        for start in stride(from: 0, to: count, by: 7) { joined += vault.packedItems(in: start..<min(start + 7, count)) }
        joined += vault.packedTrailer()
        #expect(joined == whole)
        #expect(vault.packedPrelude() + vault.items.flatMap { $0.packed() } + vault.packedTrailer() == whole)
        // The reported item ends are where each item's bytes stop.
        var ends = [Int]()
        let back = try whole.withUnsafeBytes { try Vault(unpacking: $0, itemEnds: &ends) }
        #expect(back == vault)
        var offset = vault.packedPrelude().count
        var expected = [Int]()
        for item in vault.items {
            offset += item.packed().count
            expected.append(offset)
        }
        #expect(ends == expected)
    }

    @Test func deepNestingIsRefused() {
        var bytes: [UInt8] = [0x81, 0xa1, 0x78]
        bytes += [UInt8](repeating: 0x91, count: 10_000) + [0xc0]
        #expect(throws: MessagePackError.self) { try bytes.withUnsafeBytes { try Vault(unpacking: $0) } }
    }
}

@Suite struct PasswordRuleTests {
    @Test func localVaultPasswordRule() throws {
        #expect(throws: ValidationError.self) { try PasswordRules.checkLocalVaultPassword("short") }
        #expect(throws: ValidationError.self) { try PasswordRules.checkLocalVaultPassword("1234567890") }
        try PasswordRules.checkLocalVaultPassword("eight ch")
        // Counted as characters after NFC: "é" typed decomposed is one character.
        let decomposed = "caf\u{65}\u{301}caf\u{65}\u{301}"
        #expect(decomposed.count == 8)
        try PasswordRules.checkLocalVaultPassword(decomposed)
        #expect(throws: ValidationError.self) { try PasswordRules.checkLocalVaultPassword("ééééééé") }
    }

    /// The agent checks a new password from its bytes (it never becomes a String there): the count of
    /// characters agrees with Swift's grapheme count at the 8-character boundary on marks, joined emoji,
    /// flags and variation selectors, and digits of other scripts are digits too.
    @Test func ruleOverBytesCountsCharactersAsStringsDo() {
        let samples = [
            "eight ch", "seven c", "a\u{301}b\u{301}c\u{301}d\u{301}e\u{301}f\u{301}g\u{301}", "a\u{301}b\u{301}c\u{301}d\u{301}e\u{301}f\u{301}g\u{301}h",
            "👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧", "👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧x", "🇩🇪🇩🇪🇩🇪🇩🇪🇩🇪🇩🇪🇩🇪", "🇩🇪🇩🇪🇩🇪🇩🇪🇩🇪🇩🇪🇩🇪🇫🇷",
            "❤️❤️❤️❤️❤️❤️❤️", "❤️❤️❤️❤️❤️❤️❤️❤️", "한국어비밀번호입", "पासवर्डपासवर्ड",
        ]
        for text in samples {
            let normalized = text.precomposedStringWithCanonicalMapping
            let acceptedByBytes = (try? Array(normalized.utf8).withUnsafeBytes { try PasswordRules.checkLocalVaultPassword(utf8: $0) }) != nil
            #expect(acceptedByBytes == (normalized.count >= 8), "\(text): \(normalized.count) characters")
        }
        #expect(throws: ValidationError.self) { try Array("١٢٣٤٥٦٧٨٩".utf8).withUnsafeBytes { try PasswordRules.checkLocalVaultPassword(utf8: $0) } }
    }

    @Test func strengthRanksCommonAndRandomPasswords() {
        #expect(PasswordStrength.estimate("password").score == 0)
        #expect(PasswordStrength.estimate("password").warningKey != nil)
        #expect(PasswordStrength.estimate("qwertyuiop").score <= 1)
        #expect(PasswordStrength.estimate("Tn7yaCi$cUGKwbk9(4WK").score == 4)
        #expect(PasswordStrength.estimate("correct horse battery staple pebble").score >= 3)
        #expect(PasswordStrength.estimate("").score == 0)
    }

    @Test func generatorHonoursClassesAndSimilarCharacters() throws {
        for _ in 0..<200 {
            let p = try PasswordGenerator().generate()
            #expect(p.count == 20)
            #expect(p.contains(where: \.isUppercase) && p.contains(where: \.isLowercase) && p.contains(where: \.isNumber))
            #expect(!p.contains(where: { "0O1lI|`'\"".contains($0) }))
        }
        let digitsOnly = PasswordGenerator(length: 8, uppercase: false, lowercase: false, digits: true, symbols: false, avoidSimilar: false)
        #expect(try digitsOnly.generate().allSatisfy(\.isNumber))
        #expect(throws: ValidationError.self) { try PasswordGenerator(length: 7).generate() }
        #expect(throws: ValidationError.self) { try PasswordGenerator(uppercase: false, lowercase: false, digits: false, symbols: false).generate() }
        #expect(PasswordGenerator().entropyBits > 100)
    }
}

@Suite struct GeneratorDistributionTests {
    /// χ² of observed counts against a uniform expectation.
    func chiSquare(_ counts: [Int]) -> Double {
        let expected = Double(counts.reduce(0, +)) / Double(counts.count)
        return counts.reduce(0.0) { $0 + pow(Double($1) - expected, 2) / expected }
    }

    @Test func charactersAreUniform() throws {
        // One class (no rejection for missing classes): 24 letters (l and o left out as similar).
        let generator = PasswordGenerator(length: 128, uppercase: false, lowercase: true, digits: false, symbols: false, avoidSimilar: true)
        let alphabet = generator.classes[0]
        #expect(alphabet.count == 24)
        var counts = [Character: Int]()
        for _ in 0..<1000 { for c in try generator.generate() { counts[c, default: 0] += 1 } }
        #expect(Set(counts.keys) == Set(alphabet))
        // 23 degrees of freedom; 68 is the p = 10⁻⁶ critical value, so this fails by chance once in a million runs.
        #expect(chiSquare(alphabet.map { counts[$0] ?? 0 }) < 68)
    }

    @Test func wordsAreUniform() throws {
        let generator = PassphraseGenerator(wordCount: 10, separator: " ")
        let position = Dictionary(uniqueKeysWithValues: WordList.english.words.enumerated().map { ($1, $0) })
        var buckets = [Int](repeating: 0, count: 36)
        for _ in 0..<5000 { for w in try generator.generate().split(separator: " ") { buckets[position[String(w)]! / 216] += 1 } }
        // 35 degrees of freedom; 87 is the p = 10⁻⁶ critical value.
        #expect(chiSquare(buckets) < 87)
    }

    @Test func passphraseOptions() throws {
        #expect(WordList.english.words.count == 7776 && WordList.german.words.count == 7776)
        #expect(WordList.english.words.first == "abacus" && WordList.german.words.first == "aalen")
        let p = try PassphraseGenerator(wordCount: 4, separator: "_", capitalize: true, includeDigit: true, list: .german).generate()
        let words = p.split(separator: "_")
        #expect(words.count == 4)
        #expect(words.allSatisfy { $0.first!.isUppercase })
        #expect(p.filter(\.isNumber).count == 1)
        #expect(abs(PassphraseGenerator(wordCount: 5).entropyBits - 64.6) < 0.1)
        #expect(throws: ValidationError.self) { try PassphraseGenerator(wordCount: 11).generate() }
    }

    /// The English list holds "drop-down", "felt-tip", "t-shirt" and "yo-yo": under "-" they are left out, so
    /// that every phrase splits back into its words (20,000 words drawn would hit one about ten times).
    @Test func aPhraseSplitsBackIntoItsWords() throws {
        let generator = PassphraseGenerator(wordCount: 10, separator: "-")
        #expect(generator.candidates.count == 7772 && !generator.candidates.contains("t-shirt"))
        #expect(PassphraseGenerator(separator: " ").candidates.count == 7776)
        #expect(abs(generator.entropyBits - 10 * log2(7772.0)) < 0.0001)
        // The draw steps over the left-out words instead of filtering the list for every phrase: candidate n is
        // the same word either way, for a separator of punctuation and for one of letters ("q" leaves out the words with a q).
        for separator in ["-", "q", " "] {
            let g = PassphraseGenerator(wordCount: 3, separator: separator)
            let pool = g.candidates, excluded = g.excluded
            #expect(pool.indices.allSatisfy { PassphraseGenerator.word($0, in: .english, skipping: excluded) == pool[$0] }, "\(separator)")
            #expect(pool.allSatisfy { !$0.contains(separator) } && pool.count == WordList.english.words.filter { !$0.contains(separator) }.count)
        }
        for _ in 0..<2000 { #expect(try generator.generate().split(separator: "-").count == 10) }
    }
}
