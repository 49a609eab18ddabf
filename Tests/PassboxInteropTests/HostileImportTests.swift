import Foundation
import PassboxCrypto
import PassboxStore
import PassboxTestKit
import Testing

@testable import PassboxInterop

/// Import files made to exhaust memory (issue 28, part 2), each refused with its reason before it can: a
/// document type declaration (the entities it declares once expanded a 1 KB file to 2 GB inside attribute
/// values), compressed KDBX 3.1 attachments that add up past the one budget an import inflates to, and key
/// derivations past the bounds every importer shares. The files in Fixtures/hostile/ were made once by
/// `makeTheHostileFixtures` (PASSBOX_MAKE_HOSTILE_FIXTURES=1); the CLI test runs them through `passbox import`
/// and measures its peak memory.
@Suite struct HostileImportTests {
    static let password = KDBXReadTests.password
    static let doctype = InteropError.damaged(reason: "its XML has a document type declaration, which KeePass never writes")
    static let tooLarge = InteropError.tooLarge(limitMiB: KDBXFile.inflatedLimit >> 20)

    /// A KDBX 3.1 file around `xml` (AES-256, AES-KDF with `rounds`, the payload gzipped, Salsa20 inner stream),
    /// written the way KeePass 2.x wrote them: hashed blocks after the stream start bytes.
    static func kdbx3(_ xml: [UInt8], rounds: UInt64 = 1) throws -> [UInt8] {
        let masterSeed = SecureRandom.bytes(count: 32), transformSeed = SecureRandom.bytes(count: 32), iv = SecureRandom.bytes(count: 16)
        let streamKey = SecureRandom.bytes(count: 32), start = SecureRandom.bytes(count: 32)
        var out = LittleEndian.bytes(KDBXHeader.signature1) + LittleEndian.bytes(KDBXHeader.signature2) + LittleEndian.bytes(UInt16(1)) + LittleEndian.bytes(UInt16(3))
        func field(_ id: UInt8, _ data: [UInt8]) { out += [id] + LittleEndian.bytes(UInt16(data.count)) + data }
        field(2, KDBXHeader.OuterCipher.aesUUID)
        field(3, LittleEndian.bytes(UInt32(1)))
        field(4, masterSeed)
        field(5, transformSeed)
        field(6, LittleEndian.bytes(rounds))
        field(7, iv)
        field(8, streamKey)
        field(9, start)
        field(10, LittleEndian.bytes(UInt32(2)))
        field(0, [0x0D, 0x0A, 0x0D, 0x0A])
        let transformed = try KDBXReadTests.credentials().transformedKey(.aes(seed: transformSeed, rounds: rounds))
        let payload = try Gzip.compress(xml)
        let blocks = LittleEndian.bytes(UInt32(0)) + Hash.sha256(payload) + LittleEndian.bytes(UInt32(payload.count)) + payload
            + LittleEndian.bytes(UInt32(1)) + [UInt8](repeating: 0, count: 32) + LittleEndian.bytes(UInt32(0))
        return out + (try AES256CBC.encrypt(start + blocks, key: Hash.sha256(masterSeed + transformed), iv: iv))
    }

    /// A KDBX 4 file around `xml` (the inner header names ChaCha20 with a 4-byte key, no attachments).
    static func kdbx4(_ xml: [UInt8]) throws -> [UInt8] {
        let inner: [UInt8] = [1, 4, 0, 0, 0, 3, 0, 0, 0, 2, 4, 0, 0, 0, 1, 2, 3, 4, 0, 0, 0, 0, 0]
        return try KDBXFile.seal(inner + xml, credentials: KDBXReadTests.credentials(), parameters: Argon2Parameters(memoryKiB: 8, passes: 1, lanes: 1))
    }

    /// Entities that double ten times over: "&j;" is 2^10 × 64 bytes, and used many times in attributes.
    static let laughs: String = {
        var d = #"<!DOCTYPE KeePassFile [<!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">"#
        for (previous, name) in zip("abcdefghi", "bcdefghij") { d += "<!ENTITY \(name) \"&\(previous);&\(previous);\">" }
        return d + "]>"
    }()

    /// Documents with a document type declaration, each in another place or form; all are refused alike.
    static let doctypeVariants: [(String, String)] = [
        ("entities in attribute values", #"<?xml version="1.0"?>"# + laughs + "<KeePassFile><Meta><Binaries>" + String(repeating: #"<Binary ID="0" Compressed="&j;&j;&j;&j;"/>"#, count: 40) + "</Binaries></Meta><Root><Group><Name>g</Name></Group></Root></KeePassFile>"),
        ("entities in a protected value's attribute", laughs + #"<KeePassFile><Root><Group><Name>g</Name><Entry><String><Key>Password</Key><Value Protected="&j;">AAAA</Value></String></Entry></Group></Root></KeePassFile>"#),
        ("entities in text", laughs + "<KeePassFile><Root><Group><Name>&j;&j;</Name></Group></Root></KeePassFile>"),
        ("an external entity", #"<!DOCTYPE k [<!ENTITY x SYSTEM "file:///etc/passwd">]><KeePassFile><Root><Group><Name>&x;</Name></Group></Root></KeePassFile>"#),
        ("an external DTD", #"<!DOCTYPE KeePassFile SYSTEM "http://127.0.0.1:9/keepass.dtd"><KeePassFile><Root><Group><Name>g</Name></Group></Root></KeePassFile>"#),
        ("a public DTD", #"<!DOCTYPE KeePassFile PUBLIC "-//K//DTD K//EN" "k.dtd"><KeePassFile><Root><Group><Name>g</Name></Group></Root></KeePassFile>"#),
        ("a bare declaration", "<!DOCTYPE KeePassFile><KeePassFile><Root><Group><Name>g</Name></Group></Root></KeePassFile>"),
        ("parameter entities", #"<!DOCTYPE k [<!ENTITY % p "<!ENTITY q 'qqqq'>"> %p;]><KeePassFile><Root><Group><Name>&q;</Name></Group></Root></KeePassFile>"#),
        ("after a comment and whitespace", "\n<!-- made by hand -->\n  " + laughs + "<KeePassFile><Root><Group><Name>&j;</Name></Group></Root></KeePassFile>"),
        ("with a byte-order mark", "\u{FEFF}" + laughs + "<KeePassFile><Root><Group><Name>&j;</Name></Group></Root></KeePassFile>"),
    ]

    @Test func everyDocumentTypeDeclarationIsRefusedBeforeParsing() throws {
        for (name, xml) in Self.doctypeVariants {
            #expect(throws: Self.doctype, "\(name)") { _ = try XMLTree.parse(Array(xml.utf8)) }
            #expect(throws: Self.doctype, "\(name), KDBX 4") { _ = try KDBXFile.read(try Self.kdbx4(Array(xml.utf8)), credentials: KDBXReadTests.credentials()) }
            #expect(throws: Self.doctype, "\(name), KDBX 3.1") { _ = try KDBXFile.read(try Self.kdbx3(Array(xml.utf8)), credentials: KDBXReadTests.credentials()) }
        }
        // What KeePass writes still reads: an XML declaration, comments, predefined entities.
        let plain = #"<?xml version="1.0" encoding="utf-8" standalone="yes"?><!-- ok --><KeePassFile><Root><Group><Name>a &amp; b</Name></Group></Root></KeePassFile>"#
        #expect(try KDBXFile.read(try Self.kdbx3(Array(plain.utf8)), credentials: KDBXReadTests.credentials()).database.root.name == "a & b")
    }

    /// KDBX 3.1's compressed `<Binary>` elements draw on one budget with the payload: many small bombs that
    /// each stay under any per-attachment limit are refused once their sum passes it.
    @Test func compressedAttachmentsShareOneBudget() throws {
        let eightMiB = try Gzip.compress([UInt8](repeating: 0, count: 8 << 20), level: 9)
        let binary = #"<Binary ID="0" Compressed="True">\#(Data(eightMiB).base64EncodedString())</Binary>"#
        func file(binaries: Int) -> [UInt8] {
            Array(("<KeePassFile><Meta><Binaries>" + String(repeating: binary, count: binaries) + "</Binaries></Meta><Root><Group><Name>g</Name></Group></Root></KeePassFile>").utf8)
        }
        let many = try Self.kdbx3(file(binaries: 17))  // 136 MiB in all
        #expect(many.count < 64 << 10, "\(many.count) bytes")
        #expect(throws: Self.tooLarge) { _ = try KDBXFile.read(many, credentials: KDBXReadTests.credentials()) }
        #expect(try KDBXFile.read(try Self.kdbx3(file(binaries: 2)), credentials: KDBXReadTests.credentials()).database.binaries.first?.count == 8 << 20)
        // The payload's own inflation counts: a KDBX 4 payload past the budget is refused the same way.
        let zeros = [UInt8](repeating: 0x20, count: KDBXFile.inflatedLimit + 1)
        #expect(throws: Self.tooLarge) { _ = try KDBXFile.read(try Self.kdbx4(zeros), credentials: KDBXReadTests.credentials()) }
    }

    /// Every importer's key derivation meets the same bounds before it starts.
    @Test func keyDerivationsPastTheSharedBoundsAreRefusedBeforeDeriving() throws {
        #expect(throws: InteropError.self) { try ImportKDFLimits.checkArgon2(memoryKiB: 2 << 20, passes: 100) }  // Bitwarden allowed this
        #expect(throws: InteropError.self) { try ImportKDFLimits.checkArgon2(memoryKiB: 4 << 20, passes: 1) }
        #expect(throws: InteropError.self) { try ImportKDFLimits.checkArgon2(memoryKiB: 64 << 10, passes: 1_025) }
        #expect(throws: Never.self) { try ImportKDFLimits.checkArgon2(memoryKiB: 64 << 10, passes: 10) }
        #expect(throws: InteropError.self) { try ImportKDFLimits.checkPBKDF2(rounds: 10_000_001) }
        #expect(throws: InteropError.self) { try ImportKDFLimits.checkPBKDF2(rounds: 0) }
        #expect(throws: InteropError.self) { try ImportKDFLimits.checkScrypt(n: 1 << 20, r: 16, p: 1) }  // 2 GiB
        #expect(throws: InteropError.self) { try ImportKDFLimits.checkScrypt(n: UInt64.max / 2, r: 32, p: 1) }
        #expect(throws: Never.self) { try ImportKDFLimits.checkScrypt(n: 1 << 15, r: 8, p: 1) }
        // A Bitwarden export asking for 2 GiB × 100 passes is refused before deriving (it once ran).
        let bitwarden = #"{"encrypted":true,"passwordProtected":true,"salt":"c2FsdA==","kdfType":1,"kdfIterations":100,"kdfMemory":2048,"kdfParallelism":4,"encKeyValidation_DO_NOT_EDIT":"2.AAAA|AAAA|AAAA","data":"2.AAAA|AAAA|AAAA"}"#
        do {
            _ = try BitwardenProtected.open(Array(bitwarden.utf8), password: SecretBytes(copying: Array("x".utf8)))
            Issue.record("a 2 GiB × 100 passes export was derived")
        } catch let InteropError.unsupported(what) {
            #expect(what.contains("2048 MiB × 100 passes"), "\(what)")
        }
    }

    /// The committed hostile files are refused with their reasons.
    @Test(arguments: ["doctype-attribute-entities.kdbx", "doctype-kdbx4.kdbx", "binaries-past-budget.kdbx"])
    func theCommittedHostileFilesAreRefused(_ name: String) throws {
        let file = try KDBXReadTests.fixture("hostile/\(name)")
        #expect(file.count < 16 << 10, "\(name): \(file.count) bytes")
        let expected = name.hasPrefix("doctype") ? Self.doctype : Self.tooLarge
        #expect(throws: expected) { _ = try KDBXFile.read(file, credentials: KDBXReadTests.credentials()) }
    }

    /// Writes Fixtures/hostile/ (run once; the files are committed).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["PASSBOX_MAKE_HOSTILE_FIXTURES"] != nil))
    func makeTheHostileFixtures() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/hostile")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let attribute = Array(Self.doctypeVariants[0].1.utf8)
        try Data(try Self.kdbx3(attribute)).write(to: folder.appendingPathComponent("doctype-attribute-entities.kdbx"))
        try Data(try Self.kdbx4(Array(Self.doctypeVariants[2].1.utf8))).write(to: folder.appendingPathComponent("doctype-kdbx4.kdbx"))
        let twoMiB = try Gzip.compress([UInt8](repeating: 0, count: 2 << 20), level: 9)
        let binary = #"<Binary ID="0" Compressed="True">\#(Data(twoMiB).base64EncodedString())</Binary>"#
        let many = "<KeePassFile><Meta><Binaries>" + String(repeating: binary, count: 100) + "</Binaries></Meta><Root><Group><Name>g</Name></Group></Root></KeePassFile>"
        try Data(try Self.kdbx3(Array(many.utf8))).write(to: folder.appendingPathComponent("binaries-past-budget.kdbx"))
    }
}
