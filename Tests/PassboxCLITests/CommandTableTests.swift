import Foundation
import PassboxProtocol
import PassboxTestKit
import Testing

@testable import PassboxCLI

/// The one command table: every command and subcommand answers `--help`, help lists the commands, the
/// completion scripts are valid for their shells, and names are unique.
@Suite struct CommandTableTests {
    func run(_ args: [String], _ stdin: [String] = [], env: [String: String] = [:]) throws -> Transcript.Result {
        let dir = try TemporaryDirectory("passbox-table")
        return try Transcript.execute(try Transcript.executablePath(), ["--data", dir.path + "/data"] + args, stdin: stdin, environment: env)
    }

    @Test func namesAndAliasesAreUnique() {
        var seen = Set<String>()
        for spec in CommandTable.commands {
            for name in [spec.name] + spec.aliases { #expect(seen.insert(name).inserted, "\(name) twice") }
            var sub = Set<String>()
            for s in spec.subcommands { #expect(sub.insert(s.name).inserted, "\(spec.name) \(s.name) twice") }
        }
    }

    @Test func everyCommandAndSubcommandAnswersHelp() throws {
        var paths = [[String]]()
        for spec in CommandTable.commands {
            paths.append([spec.name])
            for sub in spec.subcommands { paths.append([spec.name, sub.name]) }
        }
        for path in paths {
            for flag in ["--help", "-h"] {
                let r = try run(path + [flag])
                #expect(r.status == 0, "\(path) \(flag): \(r.stderr)")
                #expect(r.stdout.hasPrefix("usage: passbox"), "\(path) \(flag)")
            }
        }
        // The case the issue named: a benchmark's help, not "unknown option".
        #expect(try run(["bench", "agent", "--help"]).stdout.contains("usage: passbox bench"))
    }

    /// `bench save` builds both files and prints a row for each: the account's one-slot file is the smaller and
    /// a save writes it whole, the local file is sixteen 1 MiB slots and a save writes its slot twice.
    @Test func benchSaveComparesTheSixteenSlotAndTheOneSlotFile() throws {
        let r = try run(["bench", "save", "--items", "200", "--runs", "3"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = r.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(rows.contains { $0.hasPrefix("200 local, 16 slots") && $0.contains("16.0 MiB 2.0 MiB") }, "\(r.stdout)")
        #expect(rows.contains { $0.hasPrefix("200 account, 1 slot") && $0.contains("0.0 MiB 0.0 MiB") }, "\(r.stdout)")
    }

    /// `passbox list` prints each page as it comes, padded to the widths of the whole listing (the agent's):
    /// the pages so printed make the same table as one padding pass over every row. Widths another process
    /// sent are taken only when they are three, each 0 … 120; cells wider than a column still get two spaces.
    @Test func pagesPaddedToTheListingsWidthsMakeTheWholeTable() throws {
        let rows = [
            ItemRow(id: "01hq3k5v7x9z1b3d5f7h9k1m3n", favorite: true, title: "Short", categoryName: "Login", summary: "octocat"),
            ItemRow(id: "01hq3k5v7x9z1b3d5f7h9k1m3p", favorite: false, title: "Ünïcödé 🔑 \u{202E}override\tand a tab", categoryName: "Kreditkarte", summary: ""),
            ItemRow(id: "x", favorite: false, title: String(repeating: "long ", count: 40), categoryName: "Note", summary: "last\ncolumn"),
            ItemRow(id: "01hq3k5v7x9z1b3d5f7h9k1m3q", favorite: true, title: "", categoryName: "Identität", summary: "a"),
        ]
        var widths = ItemTableWidths()
        for row in rows { widths.include(row) }
        #expect(widths.columns == [8, 120, 11])
        let paged = Output.itemTable(Array(rows[0..<1]), widths: widths, header: true) + Output.itemTable(Array(rows[1..<3]), widths: widths, header: false)
            + Output.itemTable(Array(rows[3...]), widths: widths, header: false)
        #expect(paged == Output.itemTable(rows))
        #expect(paged.split(separator: "\n").count == rows.count + 1)

        #expect(ItemTableWidths(sent: [8, 20, 11])?.columns == [8, 20, 11])
        for bad: [Int]? in [nil, [], [8, 20], [8, 20, 11, 4], [8, 121, 11], [-1, 20, 11]] { #expect(ItemTableWidths(sent: bad) == nil, "\(String(describing: bad))") }
        let narrow = try #require(ItemTableWidths(sent: [0, 0, 0]))
        let squeezed = Output.itemTable(rows, widths: narrow, header: false)
        #expect(squeezed.split(separator: "\n").first == "01hq3k5v  ★ Short  Login  octocat")
    }

    @Test func helpListsEveryListedCommand() throws {
        let help = try run(["help"]).stdout
        for spec in CommandTable.commands where spec.isListed { #expect(help.contains("  " + spec.name), "\(spec.name)") }
        #expect(!help.contains("clipboard-serve"))
    }

    @Test(arguments: ["bash", "zsh"])
    func completionScriptsParse(_ shell: String) throws {
        let script = try run(["completion", shell])
        #expect(script.status == 0)
        for spec in CommandTable.commands where spec.isListed { #expect(script.stdout.contains(spec.name)) }
        let dir = try TemporaryDirectory("passbox-completion")
        let file = dir.file("passbox.\(shell)")
        try script.stdout.write(to: file, atomically: true, encoding: .utf8)
        // bash -n checks the syntax; then the function must complete "passbox tot" to totp.
        let check = try Transcript.execute(
            "/bin/bash", ["-c", "source '\(file.path)'; COMP_WORDS=(passbox tot); COMP_CWORD=1; _passbox; echo \"${COMPREPLY[*]}\""], stdin: [], environment: [:])
        if shell == "bash" {
            #expect(check.status == 0, "\(check.stderr)")
            #expect(check.stdout == "totp\n")
            let sub = try Transcript.execute(
                "/bin/bash", ["-c", "source '\(file.path)'; COMP_WORDS=(passbox totp im); COMP_CWORD=2; _passbox; echo \"${COMPREPLY[*]}\""], stdin: [], environment: [:])
            #expect(sub.stdout == "import\n")
        }
    }

    @Test func fishCompletionNamesEveryCommand() throws {
        let script = try run(["completion", "fish"]).stdout
        for spec in CommandTable.commands where spec.isListed { #expect(script.contains("-a \(spec.name) ")) }
    }

    @Test func unknownShellIsAUsageError() throws {
        #expect(try run(["completion", "tcsh"]).status == 2)
    }

    @Test func errorsAreWordedInGermanWithSie() throws {
        let r = try run(["list"], env: ["PASSBOX_LANG": "de"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("passbox: error: unter "))
        #expect(r.stderr.contains("legen Sie mit \"passbox init\" einen an"))
    }
}

/// Control characters from items are shown, not sent to the terminal.
@Suite struct VisibleTextTests {
    @Test func controlsAndBidiOverridesAreMadeVisible() {
        #expect(Console.visible("plain\ttext\nline") == "plain\ttext\nline")
        #expect(Console.visible("a\u{1B}]52;c;ZXZpbA==\u{07}b") == "a\\u{1B}]52;c;ZXZpbA==\\u{7}b")
        #expect(Console.visible("x\u{1B}[2Jy\r") == "x\\u{1B}[2Jy\\u{D}")
        #expect(Console.visible("evil\u{202E}gpj.exe") == "evil\\u{202E}gpj.exe")
        #expect(Console.visible("c1\u{9B}31m") == "c1\\u{9B}31m")
        #expect(Console.visible("Grüße 🙂") == "Grüße 🙂")
    }

    /// A line feed or tab in a title or username cannot forge a row of `list` or `search` (found by a
    /// new-user trial): they print as \u{A} and \u{9}, in messages too.
    @Test func aTitleCannotForgeARow() throws {
        #expect(Console.visibleLine("a\nb\tc\u{1B}") == "a\\u{A}b\\u{9}c\\u{1B}")
        let dir = try TemporaryDirectory("passbox-rows")
        let bin = try Transcript.executablePath()
        func run(_ args: [String], _ stdin: [String] = []) throws -> Transcript.Result {
            try Transcript.execute(bin, ["--data", dir.path + "/data"] + args, stdin: stdin, environment: ["XDG_RUNTIME_DIR": ""])
        }
        let password = "correct horse battery"
        #expect(try run(["init", "--insecure-test-kdf"], [password]).status == 0)
        let added = try run(["add", "login", "--title", "aaa\nrrhwb404  PayPal   Login        alice", "--username", "z\tq"], [password])
        #expect(added.stdout.split(separator: "\n").count == 1, "\(added.stdout)")
        for args in [["list"], ["search", "aaa"]] {
            let r = try run(args, [password])
            #expect(r.stdout.split(separator: "\n").count == 2, "\(args): \(r.stdout)")
            #expect(r.stdout.contains("aaa\\u{A}rrhwb404"))
            #expect(!r.stdout.contains("\t"))
        }
        // --clear-after outside 1 to 3,600 seconds is a usage error, before anything else.
        for value in ["0", "-3", "5000", "abc"] {
            let r = try run(["copy", "aaa", "--clear-after", value], [password])
            #expect(r.status == 2, "\(value): \(r.stderr)")
        }
    }

    @Test func aTitleWithEscapesPrintsVisiblyInListShowAndErrors() throws {
        let dir = try TemporaryDirectory("passbox-visible")
        let bin = try Transcript.executablePath()
        func run(_ args: [String], _ stdin: [String] = []) throws -> Transcript.Result {
            try Transcript.execute(bin, ["--data", dir.path + "/data"] + args, stdin: stdin, environment: ["XDG_RUNTIME_DIR": ""])
        }
        let password = "correct horse battery"
        #expect(try run(["init", "--insecure-test-kdf"], [password]).status == 0)
        let title = "Bank\u{1B}]52;c;aGk=\u{07}\u{202E}"
        #expect(try run(["add", "login", "--title", title, "--username", "u\u{1B}[31m"], [password]).status == 0)
        for args in [["list"], ["show", "Bank"], ["search", "bank"], ["history", "Bank"]] {
            let r = try run(args, [password])
            #expect(!r.stdout.contains("\u{1B}") && !r.stdout.contains("\u{202E}") && !r.stdout.contains("\u{07}"), "\(args)")
            #expect(!r.stderr.contains("\u{1B}"), "\(args)")
        }
        let missing = try run(["show", "no\u{1B}[2Jpe"], [password])
        #expect(missing.stderr.contains("no\\u{1B}[2Jpe") && !missing.stderr.contains("\u{1B}"))
    }
}
