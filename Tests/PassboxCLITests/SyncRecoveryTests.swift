import Foundation
import PassboxCore
import PassboxProtocol
import PassboxService
import PassboxTestKit
import PassboxTestSupport
import Testing

/// A server killed (SIGKILL) in the middle of a push: nothing is lost and nothing applied twice.
@Suite struct SyncRecoveryTests {
    @Test(arguments: Backend.cases) func aServerKilledMidPushLosesNothingAndAppliesNothingTwice(_ backend: Backend) throws {
        let dir = try TemporaryDirectory("passbox-sync-kill")
        let port = try PostgresCluster.freePort()
        let extra = try backend.serverArguments(directory: dir.path + "/server/server")
        var server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir, extra: extra, name: "first", port: port)
        let (a, key) = try SyncDevice.signUp("a", server: server.origin, email: "kill@example.org", in: dir)
        // Enough items for several pushes (each push carries at most 512 KiB of envelopes).
        let notes = String(repeating: "n", count: 1500)
        try a.session.update { vault in
            for i in 0..<1500 {
                var item = Item(category: .secureNote, title: "Note \(i)")
                item.notes = notes
                try vault.add(item, now: Date())
            }
        }
        // Killed while the pushes go (after the first, before the last: about 40 ms each here).
        let pid = server.process.processIdentifier
        let killer = Thread {
            Thread.sleep(forTimeInterval: 0.35)
            kill(pid, SIGKILL)
        }
        killer.start()
        do {
            try a.sync()
            print("the sync finished before the kill; the restart is checked all the same")
        } catch let error as ProtocolError {
            #expect(error.code == .serverUnreachable, "\(error)")
        }
        server.process.waitUntilExit()
        server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir, extra: extra, name: "second", port: port)
        for _ in 0..<3 where (a.service.syncStatus()?.queued ?? 0) > 0 || a.session.syncInFlight != nil { try a.sync() }
        #expect(a.service.syncStatus()?.queued == 0)
        #expect(a.session.syncInFlight == nil)
        let b = try SyncDevice.signIn("b", server: server.origin, email: "kill@example.org", secretKey: key, in: dir)
        try b.sync()
        #expect(b.vault.items.count == 1500, "every item once on the server: \(b.vault.items.count)")
        #expect(Set(b.vault.items.map(\.title)).count == 1500)
        #expect(b.vault.items.allSatisfy { $0.history.isEmpty }, "no item applied twice as an edit")
        #expect(b.state.mapValues(\.item) == a.state.mapValues(\.item))
        server.stop()
    }
}
