import Foundation
import PassboxCrypto
import PassboxStore
import PassboxTestKit
import Testing

@testable import PassboxInterop

/// Hostile input: 10,000 mutated KeePass files from real samples. Each either reads (a mutation that
/// changed nothing that matters) or fails with an `InteropError`; nothing crashes, hangs or allocates without
/// bound. Half mutate the file as it is (so the header, hashes and HMACs are what they meet); half mutate the
/// decrypted payload (inner header and XML) and seal it again with valid HMACs, so the parsers behind the
/// authentication meet the damage too. (Foundation's XMLParser, tried first, trapped on a mutated element name
/// that was not UTF-8: the reason the XML is read with libxml2's reader directly.)
@Suite struct KDBXMutationTests {
    static let password = KDBXReadTests.password

    /// One mutation: flip bytes, cut, insert, duplicate a run, or overwrite a run with a pattern.
    static func mutate(_ input: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var bytes = input
        guard !bytes.isEmpty else { return [UInt8(rng.next() & 0xff)] }
        switch rng.next() % 6 {
        case 0:
            for _ in 0..<(1 + Int(rng.next() % 4)) { bytes[Int(rng.next() % UInt64(bytes.count))] ^= UInt8(1 + rng.next() % 255) }
        case 1:
            bytes.removeSubrange(Int(rng.next() % UInt64(bytes.count))...)
        case 2:
            let at = Int(rng.next() % UInt64(bytes.count + 1))
            bytes.insert(contentsOf: (0..<(1 + Int(rng.next() % 16))).map { _ in UInt8(rng.next() & 0xff) }, at: at)
        case 3:
            let start = Int(rng.next() % UInt64(bytes.count))
            let end = min(bytes.count, start + 1 + Int(rng.next() % 64))
            bytes.insert(contentsOf: bytes[start..<end], at: end)
        case 4:
            let start = Int(rng.next() % UInt64(bytes.count))
            for i in start..<min(bytes.count, start + 1 + Int(rng.next() % 8)) { bytes[i] = [0x00, 0xff, 0x7f, 0x80][Int(rng.next() % 4)] }
        default:
            // A length-like field set huge: 4 bytes of 0xff.
            let start = Int(rng.next() % UInt64(bytes.count))
            for i in start..<min(bytes.count, start + 4) { bytes[i] = 0xff }
        }
        return bytes
    }

    static func credentials() -> KeePassCredentials { KDBXReadTests.credentials() }

    /// The seeds are fixed so a failure repeats; PASSBOX_MUTATION_SEED explores others.
    /// The seed of a mutation run: `fixed` in `make test`, changed by PASSBOX_MUTATION_SEED (to repeat a run)
    /// or a new random one in `make fuzz`; printed.
    static func seed(_ fixed: UInt64) -> UInt64 {
        Soak.seed("mutations", fixed: 0, variable: "PASSBOX_MUTATION_SEED") ^ fixed
    }

    @Test func mutatedFilesNeverCrash() throws {
        let sample = try KDBXReadTests.fixture("pykeepass-cheap.kdbx")
        var rng = SplitMix64(seed: Self.seed(0x6b64_6278))
        var outcomes: [String: Int] = [:]
        let count = Soak.count(1_000, soak: 5_000)
        for _ in 0..<count {
            let mutated = Self.mutate(sample, &rng)
            do {
                _ = try KDBXFile.read(mutated, credentials: Self.credentials())
                outcomes["read", default: 0] += 1
            } catch let e as InteropError {
                outcomes[String(describing: e).prefix(while: { $0 != "(" }).description, default: 0] += 1
            }
        }
        // The outer layers catch nearly everything: most mutations end at a hash, an HMAC or a truncation.
        #expect(outcomes.values.reduce(0, +) == count)
        #expect((outcomes["damaged"] ?? 0) + (outcomes["truncated"] ?? 0) + (outcomes["wrongPassword"] ?? 0) > count * 4 / 5, "\(outcomes)")
    }

    @Test func mutatedPayloadsSealedAgainNeverCrash() throws {
        // The decrypted payload of a real file: its inner header and XML.
        let sample = try KDBXReadTests.fixture("pykeepass-cheap.kdbx")
        let plaintext = try Self.payload(of: sample)
        var rng = SplitMix64(seed: Self.seed(0x786d_6c21))
        var read = 0, refused = 0
        let cheap = Argon2Parameters(memoryKiB: 8, passes: 1, lanes: 1)
        let count = Soak.count(1_000, soak: 5_000)
        for n in 0..<count {
            var mutated = plaintext
            // The XML text (after the inner header) takes most mutations; every tenth hits the inner header.
            let headerLength = plaintext.count - (try Self.xmlLength(plaintext))
            if n % 10 == 0 {
                mutated = Self.mutate(Array(plaintext.prefix(headerLength)), &rng) + plaintext[headerLength...]
            } else {
                mutated = Array(plaintext.prefix(headerLength)) + Self.mutate(Array(plaintext[headerLength...]), &rng)
            }
            let file = try KDBXFile.seal(mutated, credentials: Self.credentials(), parameters: cheap)
            do {
                _ = try KDBXFile.read(file, credentials: Self.credentials())
                read += 1
            } catch is InteropError {
                refused += 1
            }
        }
        #expect(read + refused == count)
        // Both happen: some damage is harmless text, most breaks the XML or the inner header.
        #expect(read > 0 && refused > count / 2, "read \(read), refused \(refused)")
    }

    @Test func hostileStructuresAreRefusedClearly() throws {
        let cheap = Argon2Parameters(memoryKiB: 8, passes: 1, lanes: 1)
        let inner: [UInt8] = [1, 4, 0, 0, 0, 3, 0, 0, 0, 2, 4, 0, 0, 0, 1, 2, 3, 4, 0, 0, 0, 0, 0]
        func sealed(_ xml: String) throws -> [UInt8] { try KDBXFile.seal(inner + Array(xml.utf8), credentials: Self.credentials(), parameters: cheap) }
        // Entities that expand without bound (libxml2 refuses them), and an external entity (never fetched).
        let laughs = """
            <?xml version="1.0"?><!DOCTYPE k [<!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">\
            <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">\
            <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;"><!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">\
            <!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;"><!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;">]>\
            <KeePassFile><Root><Group><Name>&g;</Name></Group></Root></KeePassFile>
            """
        // Any document type declaration is refused before libxml2 reads the document (HostileImportTests has more).
        let doctype = InteropError.damaged(reason: "its XML has a document type declaration, which KeePass never writes")
        #expect(throws: doctype) { try KDBXFile.read(try sealed(laughs), credentials: Self.credentials()) }
        let external = #"<?xml version="1.0"?><!DOCTYPE k [<!ENTITY x SYSTEM "file:///etc/passwd">]><KeePassFile><Root><Group><Name>&x;</Name></Group></Root></KeePassFile>"#
        #expect(throws: doctype) { try KDBXFile.read(try sealed(external), credentials: Self.credentials()) }
        // An entity reference with no declaration is still refused by the reader.
        #expect(throws: InteropError.self) { _ = try XMLTree.parse(Array("<KeePassFile><Root><Group><Name>&x;</Name></Group></Root></KeePassFile>".utf8)) }
        // The predefined entities and character references are read as text.
        let plain = "<KeePassFile><Root><Group><Name>a &amp; b &#x263A; &lt;c&gt;</Name></Group></Root></KeePassFile>"
        #expect(try KDBXFile.read(try sealed(plain), credentials: Self.credentials()).database.root.name == "a & b ☺ <c>")
        #expect(throws: InteropError.damaged(reason: "its XML is not UTF-8 text")) {
            try KDBXFile.read(try KDBXFile.seal(inner + Array("<KeePassFile><Root><Group><Name>".utf8) + [0xC3, 0x28] + Array("</Name></Group></Root></KeePassFile>".utf8), credentials: Self.credentials(), parameters: cheap), credentials: Self.credentials())
        }
        // Groups nested past the depth limit.
        let deep = "<KeePassFile><Root>" + String(repeating: "<Group><Name>g</Name>", count: 5_000) + String(repeating: "</Group>", count: 5_000) + "</Root></KeePassFile>"
        let refused = (try? KDBXFile.read(try sealed(deep), credentials: Self.credentials())) == nil
        #expect(refused)
        #expect(throws: InteropError.damaged(reason: "its XML is nested deeper than 200 levels")) { _ = try XMLTree.parse(Array(deep.utf8)) }
        // A gzip bomb: 300 MiB of zeros, over the 128 MiB an import inflates to.
        let zeros = [UInt8](repeating: 0, count: 300 << 20)
        let bomb = try KDBXFile.seal(zeros, credentials: Self.credentials(), parameters: cheap)
        #expect(bomb.count < 1 << 20)
        #expect(throws: InteropError.tooLarge(limitMiB: 128)) { try KDBXFile.read(bomb, credentials: Self.credentials()) }
    }

    /// The gunzipped payload of a file (test helper: the reader's steps up to the inner header).
    static func payload(of file: [UInt8]) throws -> [UInt8] {
        let (header, length) = try KDBXHeader.read(file)
        let keys = KDBXKeys(masterSeed: header.masterSeed, transformed: try credentials().transformedKey(header.kdf))
        var r = ByteReader(file, offset: length + 64)
        let encrypted = try KDBXFile.readHMACBlocks(&r, keys: keys)
        return try KDBXFile.inflate(try KDBXFile.decrypt(encrypted, header: header, key: keys.cipherKey, wrongKeyIsDamage: true), budget: KDBXFile.inflatedLimit)
    }

    /// How many bytes of the payload are XML (from the first "<").
    static func xmlLength(_ payload: [UInt8]) throws -> Int {
        var r = ByteReader(payload)
        while try r.uint8() != 0 { _ = try r.take(Int(try r.uint32())) }
        _ = try r.take(Int(try r.uint32()))
        return r.remaining
    }
}
