import Foundation
import PassboxClient
import PassboxCore
import PassboxProtocol
import PassboxSQLite
import PassboxService
import PassboxStore
import PassboxTestKit
import PassboxTestSupport
import Testing

/// The server drops manifest history no device needs (issue 28): every version after the oldest place a device
/// last started a pull from stays, below it only each vault's newest. Every device goes on checking the chain
/// from what it holds, a new device starts from the oldest version kept, and what was dropped no longer counts
/// against the account's quota.
@Suite struct ManifestCompactionTests {
    static func used(_ d: SyncDevice) throws -> Int64 {
        let record = try #require(try AccountRecord.load(d.directory))
        return try #require(try AccountClient(server: record.server).account(token: record.token ?? "").storage).usedBytes
    }

    static func add(_ d: SyncDevice, _ title: String) throws {
        _ = try d.service.perform(.add(AddRequest(category: "login", changes: ItemChanges(title: title, username: "user-" + title)))).saved()
        try d.sync()
    }

    @Test(arguments: Backend.cases) func historyNoDeviceNeedsIsDroppedAndEveryDeviceStillChecksTheChain(_ backend: Backend) throws {
        let dir = try TemporaryDirectory("passbox-compaction")
        let extra = try backend.serverArguments(directory: dir.path + "/server/server")
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir, extra: extra, port: try PostgresCluster.freePort())
        defer { server.stop() }
        let (a, key) = try SyncDevice.signUp("a", server: server.origin, email: "chain@example.org", in: dir)
        let b = try SyncDevice.signIn("b", server: server.origin, email: "chain@example.org", secretKey: key, in: dir)
        try a.sync()
        try b.sync()
        // b stays where it is while a writes twenty versions: all of them are kept for b.
        for n in 0...20 { try Self.add(a, "Site \(n)") }
        // b catches up (its next pull starts from the newest): a's next push drops what nobody needs.
        try b.sync()
        try b.sync()
        #expect(b.state.count == a.state.count && a.state.count >= 21)
        let before = try Self.used(a)
        try Self.add(a, "Site 21")
        let after = try Self.used(a)
        #expect(after < before, "21 versions of a manifest went: \(before) → \(after) bytes")
        // b checks the chain on from the version it holds; a new device starts from the oldest version kept.
        try b.sync()
        #expect(b.state.mapValues(\.item) == a.state.mapValues(\.item))
        let c = try SyncDevice.signIn("c", server: server.origin, email: "chain@example.org", secretKey: key, in: dir)
        try c.sync()
        #expect(c.state.mapValues(\.item) == a.state.mapValues(\.item))
        // And all three go on syncing each other's writes.
        try Self.add(c, "From c")
        try a.sync()
        try b.sync()
        #expect(a.state.mapValues(\.item) == c.state.mapValues(\.item) && b.state.mapValues(\.item) == c.state.mapValues(\.item))
    }

    /// A device away longer than servers keep history (its session ended, its place no longer counted) signs
    /// in again and finds a gap: while its own last sync is recent it refuses it, as a hostile gap; once its
    /// last sync is older than the retention it starts the vault's chain again and converges.
    @Test func aDeviceAwayLongerThanTheRetentionStartsTheChainAgain() throws {
        let dir = try TemporaryDirectory("passbox-compaction-away")
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir, extra: try Backend.sqlite.serverArguments(directory: dir.path + "/server/server"), port: try PostgresCluster.freePort())
        defer { server.stop() }
        let (a, key) = try SyncDevice.signUp("a", server: server.origin, email: "away@example.org", in: dir)
        let b = try SyncDevice.signIn("b", server: server.origin, email: "away@example.org", secretKey: key, in: dir)
        try a.sync()
        try b.sync()
        try b.sync()
        // b is away: its session and its place are past their time (made so in the server's database).
        let database = try #require(try FileManager.default.subpathsOfDirectory(atPath: dir.path + "/server").first { $0.hasSuffix(".sqlite") })
        let db = try Database(path: dir.path + "/server/" + database)
        _ = try db.run("UPDATE sessions SET last_seen = 0 WHERE device_id = 'b-id'")
        _ = try db.run("UPDATE sync_devices SET seen = 0 WHERE device_id = 'b-id'")
        for n in 0..<6 { try Self.add(a, "While away \(n)") }
        // b comes back: a new session for the same device and vault.
        let back = try SyncDevice.signIn("b", server: server.origin, email: "away@example.org", secretKey: key, in: dir)
        var refused: ProtocolError?
        do { try back.sync() } catch { refused = ProtocolError.from(error) }
        #expect(refused?.code == .syncRefused && refused?.facts["reason"] == "gap", "a recent device refuses a gap: \(String(describing: refused))")
        // Its last sync older than the retention: it starts the chain again and holds what a holds.
        try back.session.update { vault in vault.sync!.lastSync = Date().addingTimeInterval(-ManifestHistory.retention - 86_400) }
        try back.sync()
        #expect(back.state.mapValues(\.item) == a.state.mapValues(\.item))
        try Self.add(back, "Back again")
        try a.sync()
        #expect(a.state.mapValues(\.item) == back.state.mapValues(\.item))
    }
}
