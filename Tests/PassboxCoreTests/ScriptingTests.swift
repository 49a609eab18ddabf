import PassboxCore
import Testing

@Suite struct OutputMaskerTests {
    static let m = "<concealed by passbox>"

    func masked(_ text: String, _ secrets: [String], chunks: [Int]? = nil) -> String {
        let bytes = Array(text.utf8)
        guard let chunks else { return String(decoding: OutputMasker.masked(bytes, secrets: secrets), as: UTF8.self) }
        var masker = OutputMasker(secrets: secrets)
        var out = [UInt8](), start = 0
        for size in chunks where start < bytes.count {
            let end = min(bytes.count, start + size)
            out += masker.process(bytes[start..<end])
            start = end
        }
        out += masker.process(bytes[start...]) + masker.finish()
        return String(decoding: out, as: UTF8.self)
    }

    @Test func replacesEverySecretOccurrence() {
        #expect(masked("token=hunter2 again hunter2", ["hunter2"]) == "token=\(Self.m) again \(Self.m)")
        #expect(masked("nothing here", ["hunter2"]) == "nothing here")
    }

    @Test func secretSplitAcrossChunksIsStillMasked() {
        let text = "before s3cr3t-value after"
        for split in 1..<text.utf8.count {
            #expect(masked(text, ["s3cr3t-value"], chunks: [split]) == "before \(Self.m) after", "split at \(split)")
        }
        #expect(masked(text, ["s3cr3t-value"], chunks: Array(repeating: 1, count: 30)) == "before \(Self.m) after")
    }

    @Test func overlappingAndAdjacentSecretsLeaveNoPieceShowing() {
        // "abcdef" holds both "abcd" and "cdef": every byte of either is hidden, as one mask.
        #expect(masked("xabcdefx", ["abcd", "cdef"]) == "x\(Self.m)x")
        #expect(masked("xabcdefx", ["cdef", "abcd"], chunks: [3]) == "x\(Self.m)x")
        // A secret inside a longer one, and two secrets back to back.
        #expect(masked("-password1-", ["password1", "word"]) == "-\(Self.m)-")
        #expect(masked("-aaabbb-", ["aaa", "bbb"]) == "-\(Self.m)-")
    }

    @Test func outputDoesNotDependOnChunking() {
        let text = String(repeating: "log line with tok3n and s3cr3t and tok3ns3cr3t\n", count: 20)
        let whole = masked(text, ["tok3n", "s3cr3t", "n s3"])
        for size in [1, 2, 3, 5, 7, 64] {
            #expect(masked(text, ["tok3n", "s3cr3t", "n s3"], chunks: Array(repeating: size, count: 2000)) == whole)
        }
        #expect(!whole.contains("tok3n") && !whole.contains("s3cr3t"))
    }

    @Test func shortAndEmptySecretsAreNotMasked() {
        #expect(masked("a ab abc", ["", "a", "ab"]) == "a ab abc")
        #expect(masked("a ab abc", ["abc"]) == "a ab \(Self.m)")
    }

    @Test func holdsBackNoMoreThanASecretCouldNeed() {
        var masker = OutputMasker(secrets: ["abcdef"])
        #expect(masker.process(Array("hello wor".utf8)) == Array("hell".utf8))
        #expect(masker.process(Array("ld".utf8)) == Array("o ".utf8))
        #expect(masker.finish() == Array("world".utf8))
        var none = OutputMasker(secrets: [])
        #expect(none.process(Array("as is".utf8)) == Array("as is".utf8))
        #expect(none.finish().isEmpty)
    }
}

@Suite struct DotEnvTests {
    func parse(_ text: String) throws -> [String] {
        try DotEnv.parse(text).map { "\($0.key)=\($0.value)" }
    }

    @Test func namesValuesCommentsAndExport() throws {
        let text = """
            # a comment
            A=1

              B = two words   # trailing comment
            export C=passbox://local/GitHub/password
            D=with#hash
            E=
            """
        #expect(try parse(text) == ["A=1", "B=two words", "C=passbox://local/GitHub/password", "D=with#hash", "E="])
    }

    @Test func quotesAndEscapes() throws {
        #expect(try parse(#"A="quoted # not a comment""#) == ["A=quoted # not a comment"])
        #expect(try parse(#"A="line\nnext\t\"q\" \\ \$HOME \x""#) == ["A=line\nnext\t\"q\" \\ $HOME \\x"])
        #expect(try parse(#"A='single \n $HOME'"#) == [#"A=single \n $HOME"#])
        #expect(try parse("A=\"two\nlines\"\nB=3") == ["A=two\nlines", "B=3"])
        #expect(try parse("A=\"x\" # fine\r\nB=y\r\n") == ["A=x", "B=y"])
        #expect(try parse("exported=1") == ["exported=1"])
    }

    @Test func malformedLinesSayWhereAndWhy() {
        #expect(throws: DotEnvError(line: 2, reason: .missingEquals)) { try DotEnv.parse("A=1\njust words\n") }
        #expect(throws: DotEnvError(line: 1, reason: .invalidName)) { try DotEnv.parse("=value") }
        #expect(throws: DotEnvError(line: 1, reason: .invalidName)) { try DotEnv.parse("1A=value") }
        #expect(throws: DotEnvError(line: 3, reason: .unterminatedQuote)) { try DotEnv.parse("A=1\n\nB=\"open\nstill open") }
        #expect(throws: DotEnvError(line: 1, reason: .textAfterClosingQuote)) { try DotEnv.parse("A=\"x\"y") }
        #expect(throws: DotEnvError(line: 1, reason: .missingEquals)) { try DotEnv.parse("A B=1") }
    }
}

@Suite struct SecretTemplateTests {
    @Test func splitsReferencesFromText() {
        let t = SecretTemplate(parsing: "user={{ passbox://local/GitHub/username }}\npass={{passbox://local/GitHub/password}}!")
        #expect(t.segments == [.text("user="), .reference("passbox://local/GitHub/username"), .text("\npass="), .reference("passbox://local/GitHub/password"), .text("!")])
        #expect(t.references.count == 2)
    }

    @Test func leavesLookalikesAsText() {
        for text in ["{{ passbox:// }}", "{{ http://x }}", "{ passbox://a }", "{{ passbox://a b }}", "{{ passbox://a }"] {
            #expect(SecretTemplate(parsing: text).segments == [.text(text)], "\(text)")
        }
        #expect(SecretTemplate(parsing: "{{{ passbox://a }}}").segments == [.text("{"), .reference("passbox://a"), .text("}")])
        #expect(SecretTemplate(parsing: "").segments.isEmpty)
    }

    @Test func rendersAndStopsAtTheFirstFailure() throws {
        struct Missing: Error {}
        let t = SecretTemplate(parsing: "a={{ passbox://x/1 }} b={{ passbox://x/2 }}")
        #expect(t.rendered { $0 == "passbox://x/1" ? "one" : "two" } == "a=one b=two")
        #expect(throws: Missing.self) { try t.rendered { (_: String) throws(Missing) -> String in throw Missing() } }
    }
}
