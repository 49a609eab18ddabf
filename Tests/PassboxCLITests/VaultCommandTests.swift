import Foundation
import PassboxTestKit
import Testing

/// `passbox vault delete` as a person uses it (LB-2): it asks first, saying how many items go to the trash and
/// where; any answer but yes changes nothing; the only vault left is refused; English and German.
@Suite struct VaultCommandTests {
    let password = "correct horse battery"

    @Test func deletingAVaultAsksFirstAndTrashesItsItems() throws {
        let s = try AgentEndToEndTests.Session()
        #expect(try s.run(["init", "--insecure-test-kdf"], [password]).status == 0)
        #expect(try s.run(["vault", "create", "Trips"], [password]).status == 0)
        #expect(try s.run(["add", "login", "--title", "Airline", "--vault", "Trips"], [password]).status == 0)
        #expect(try s.run(["add", "login", "--title", "Mail"], [password]).status == 0)

        let declined = try s.run(["vault", "delete", "Trips"], [password, "no"])
        #expect(declined.status == 1 && declined.stderr.contains("Delete the vault \"Trips\"? Its 1 items (and 0 already in its trash) go to the trash of \"Personal\""), "\(declined.stderr)")
        #expect(declined.stderr.contains("nothing was changed"))
        #expect(try s.run(["vault", "list"], [password]).stdout.contains("Trips"), "a no changes nothing")

        let german = try s.run(["vault", "delete", "Trips"], [password, "nein"], env: ["PASSBOX_LANG": "de"])
        #expect(german.status == 1 && german.stderr.contains("Den Tresor „Trips“ löschen?") && german.stderr.contains("nichts wurde geändert"), "\(german.stderr)")

        let done = try s.run(["vault", "delete", "Trips"], [password, "yes"])
        #expect(done.status == 0, "\(done.stderr)")
        #expect(done.stdout == "Deleted the vault \"Trips\": 1 items went to the trash of \"Personal\" (passbox trash list; restorable for 30 days).\n")
        let vaults = try s.run(["vault", "list"], [password]).stdout
        #expect(!vaults.contains("Trips") && vaults.contains("Personal"))
        #expect(try s.run(["trash", "list"], [password]).stdout.contains("Airline"))
        #expect(try s.run(["list"], [password]).stdout.contains("Mail"))

        let last = try s.run(["vault", "delete", "Personal", "--yes"], [password])
        #expect(last.status == 1 && last.stderr.contains("\"Personal\" is the only vault: it cannot be deleted"), "\(last.stderr)")
        let letzter = try s.run(["vault", "delete", "Personal", "--yes"], [password], env: ["PASSBOX_LANG": "de"])
        #expect(letzter.stderr.contains("„Personal“ ist der einzige Tresor"), "\(letzter.stderr)")
    }
}
