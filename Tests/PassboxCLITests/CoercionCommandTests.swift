import Foundation
import PassboxTestKit
import Testing

/// The command line's coercion features as a person or a script uses them, without an agent: what each
/// prints, and that it prints nothing that tells a killphrase, a hidden item or a duress vault apart.
@Suite struct CoercionCommandTests {
    let password = "correct horse battery"

    func session() throws -> AgentEndToEndTests.Session {
        let s = try AgentEndToEndTests.Session()
        #expect(try s.run(["init", "--insecure-test-kdf"], [password]).status == 0)
        return s
    }

    @Test func aKillphraseSearchPrintsWhatNoMatchPrintsAndHiddenItemsStayOutOfEveryListing() throws {
        let s = try session()
        #expect(try s.run(["add", "login", "--title", "Doomed", "--username", "d", "--killphrase-stdin"], [password, "burn it"]).status == 0)
        #expect(try s.run(["add", "login", "--title", "Hidden bank", "--username", "quiet", "--search-passphrase-stdin"], [password, "Under the Bridge"]).status == 0)
        #expect(try s.run(["add", "login", "--title", "Plain bank", "--username", "p"], [password]).status == 0)
        for args in [["list"], ["list", "--json"], ["search", "bank"], ["search", "bank", "--json"], ["check"], ["check", "--json"], ["vault", "list", "--json"]] {
            let out = try s.run(args, [password])
            #expect(!out.stdout.contains("Hidden bank") && !out.stdout.contains("quiet"), "\(args): \(out.stdout)")
        }
        let found = try s.run(["search", "under the bridge"], [password])
        #expect(found.stdout.contains("Hidden bank"))
        let none = try s.run(["search", "burn iT"], [password])
        let noMatch = try s.run(["search", "burn iX"], [password])
        #expect(none.status == noMatch.status && none.stderr == noMatch.stderr)
        #expect(none.stdout == noMatch.stdout.replacingOccurrences(of: "burn iX", with: "burn iT"))
        #expect(!(try s.run(["list"], [password])).stdout.contains("Doomed"), "the killphrase deleted it")
    }

    @Test func duressAndEraseCommandsSayTheSameFromAnyVault() throws {
        let s = try session()
        let set = try s.run(["duress", "set"], [password, "duress password one"])
        #expect(set.status == 0 && set.stdout == "Set the duress password.\n")
        let fromDuress = try s.run(["duress", "set"], ["duress password one", "duress password two"])
        #expect(fromDuress.stdout == set.stdout && fromDuress.stderr == set.stderr, "the same words from a duress vault")
        #expect(try s.run(["list"], ["duress password two"]).stdout.contains("The vault is empty"))
        let same = try s.run(["duress", "set"], [password, password])
        #expect(same.status == 1 && same.stderr.contains("a duress password must differ from this vault's password"))
        let change = try s.run(["duress", "change"], [password, "duress password one", "duress password one b"])
        #expect(change.status == 0 && change.stdout == "Changed the duress password.\n")
        #expect(try s.run(["list"], ["duress password one b"]).status == 0)

        #expect(try s.run(["settings"], [password]).stdout.contains("erase after 10 wrong passwords in a row: off"))
        #expect(try s.run(["settings", "erase-after-failures", "on"], [password, password]).stdout.contains("now erase every vault"))
        #expect(try s.run(["settings"], [password]).stdout.contains("erase after 10 wrong passwords in a row: on"))
        #expect(try s.run(["settings", "erase-after-failures", "maybe"], [password]).status == 2)

        let refused = try s.run(["delete-all-data"], [password, "delete"])
        #expect(refused.status == 1 && refused.stderr.contains("nothing was deleted"))
        #expect(FileManager.default.fileExists(atPath: s.data + "/vault.pbx"))
        let wiped = try s.run(["delete-all-data"], ["duress password two", "DELETE"])
        #expect(wiped.status == 0 && wiped.stdout.contains("Deleted all data."))
        #expect(!FileManager.default.fileExists(atPath: s.data + "/vault.pbx"))
        #expect(try s.run(["list"], [password]).stderr.contains("there is no vault"))
    }

    @Test func itemsWithTheirOwnPasswordOnTheCommandLine() throws {
        let s = try session()
        let words = "legal winner thank year wave sausage worth useful legal winner thank yellow"
        let added = try s.run(["add", "recovery-phrase", "--title", "Cold wallet", "--secret-field", "phrase"], [password, words, "wallet password"])
        #expect(added.status == 0 && !added.stderr.contains("warning"))
        let bad = try s.run(["add", "recovery-phrase", "--title", "Typo wallet", "--secret-field", "phrase"], [password, words.replacingOccurrences(of: "yellow", with: "year"), "wallet password"])
        #expect(bad.status == 0 && bad.stderr.contains("checksum does not match"))
        let shown = try s.run(["show", "Cold wallet"], [password])
        #expect(shown.stdout.contains("Cold wallet") && !shown.stdout.contains("legal") && shown.stderr.contains("locked with its own password"))
        let piped = try s.run(["show", "Cold wallet", "--reveal"], [password, "wallet password"])
        #expect(piped.status == 1 && piped.stderr.contains("never copied or printed") && !piped.stdout.contains("legal"))
        let read = try s.run(["read", "passbox://local/Cold wallet/phrase"], [password])
        #expect(read.status == 1 && read.stdout.isEmpty && read.stderr.contains("never copied or printed"))
        #expect(try s.run(["item", "unprotect", "Cold wallet"], [password, "wallet password"]).stderr.contains("always keeps a password of its own"))

        #expect(try s.run(["add", "note", "--title", "Plans", "--notes-stdin"], [password, "meet at the old mill"]).status == 0)
        let protect = try s.run(["item", "protect", "Plans"], [password, "note password"])
        #expect(protect.status == 0 && protect.stdout.contains("Locked \"Plans\""))
        #expect(!(try s.run(["show", "Plans"], [password])).stdout.contains("old mill"))
        let opened = try s.run(["show", "Plans", "--reveal"], [password, "note password"])
        #expect(opened.status == 0 && opened.stdout.contains("meet at the old mill"))
        let wrong = try s.run(["show", "Plans", "--reveal"], [password, "not the one"])
        #expect(wrong.status == 3 && wrong.stderr.contains("not this item's password"))
        #expect(try s.run(["item", "protect", "Plans"], [password, "short"]).stderr.contains("at least 8 characters"))
        #expect(try s.run(["item", "unprotect", "Plans"], [password, "note password"]).status == 0)
        #expect(try s.run(["show", "Plans"], [password]).stdout.contains("old mill"))
        #expect(try s.run(["edit", "Plans", "--item-password-stdin"], [password]).status == 2)
    }
}
