import Foundation
import PassboxClient
import PassboxCore
import PassboxProtocol
import PassboxService
import PassboxTestKit
import PassboxTestSupport
import Testing

/// Three devices of one account edit, move, trash, delete and sync at random against a real server (SQLite;
/// PostgreSQL with two server processes on one database), with offline periods and pushes whose answers are
/// lost. At the end every device holds the same items, and every value ever written is current or in its
/// item's history. `make test` runs 400 operations from a fixed seed, `make soak` 2,000 from a new one; the
/// seed is printed first (`PASSBOX_SYNC_SEED` repeats a run).
@Suite(.serialized) struct SyncSimulationTests {
    static let operations = Soak.count(400, soak: 2_000)

    @Test(arguments: Backend.cases) func threeDevicesConvergeAndLoseNothing(_ backend: Backend) throws {
        // Printed first, so a run that throws part way still names its seed.
        let seed = Soak.seed("sync simulation on \(backend)", fixed: 0x5EED_2026_1203, variable: "PASSBOX_SYNC_SEED")
        var random = SplitMix64(seed: seed)
        let dir = try TemporaryDirectory("passbox-sync-sim")
        let extra = try backend.serverArguments(directory: dir.path + "/server/server")
        let first = try ServerProcess(dataDirectory: dir.path + "/server", in: dir, extra: extra, name: "first")
        // On PostgreSQL a second server process on the same database serves the third device.
        let second = backend == .postgres ? try ServerProcess(dataDirectory: dir.path + "/server2", in: dir, extra: extra, name: "second") : first
        let (a, key) = try SyncDevice.signUp("a", server: first.origin, email: "sim@example.org", in: dir)
        let b = try SyncDevice.signIn("b", server: first.origin, email: "sim@example.org", secretKey: key, in: dir)
        let c = try SyncDevice.signIn("c", server: second.origin, email: "sim@example.org", secretKey: key, in: dir)
        let devices = [a, b, c]
        let context = "seed \(seed) on \(backend)"
        defer { if !first.log.isEmpty, first.log.contains("internal error") { print("server log:\n\(first.log.suffix(3000))\n\(second.log.suffix(2000))") } }

        _ = try a.service.perform(.vaultCreate(VaultCreateRequest(name: "Work")))
        try a.sync()
        for d in [b, c] { try d.sync() }
        var written: [(item: String, value: String)] = []
        // Values a device wrote that it has not yet pushed, by device and item: a device that deletes an item
        // for good before pushing its edits deletes those values with it (that is not a loss).
        var unpushed: [String: [String: Set<String>]] = [:]
        var deletedForGood = Set<String>()
        // When each item was deleted for good (the first time), by step: a value written before that may be gone
        // on purpose, when another device's concurrent edit brings the item back as that device had it.
        var deletedAt: [String: Int] = [:]
        var lostAnswers = 0, refused: [String] = []
        for step in 0..<Self.operations {
            let d = devices[Int.random(in: 0..<3, using: &random)]
            let roll = Int.random(in: 0..<100, using: &random)
            let live = d.vault.items.filter { !$0.isTrashed }
            let pick = live.isEmpty ? nil : live[Int.random(in: 0..<live.count, using: &random)]
            let value = "v\(step)\(d.name)"
            switch roll {
            case 0..<12 where live.count < 150 || pick == nil:
                var item = Item(category: .login, title: value)
                item.setValue("user-" + value, for: "username")
                item.vaultID = d.vault.vaults.first?.id
                try d.session.update(reindexing: { [$0.id] }) { try $0.add(item, now: Date()) }
                written.append((item.id, value))
                unpushed[d.name, default: [:]][item.id, default: []].insert(value)
            case 0..<55:
                guard let pick else { continue }
                let field = ["title", "username", "password", "notes", "PIN"][Int.random(in: 0..<5, using: &random)]
                try d.session.update(reindexing: { _ in [pick.id] }) { vault in
                    try vault.update(id: pick.id, now: Date()) { item in
                        switch field {
                        case "title": item.title = value
                        case "notes": item.notes = value
                        default: item.setValue(value, for: field)
                        }
                    }
                }
                written.append((pick.id, value))
                unpushed[d.name, default: [:]][pick.id, default: []].insert(value)
            case 55..<59:
                guard let pick else { continue }
                try d.session.update(reindexing: { _ in [pick.id] }) { try $0.trash(id: pick.id, now: Date()) }
            case 59..<62:
                guard let trashed = d.vault.items.first(where: \.isTrashed) else { continue }
                if Bool.random(using: &random) {
                    try d.session.update(reindexing: { _ in [trashed.id] }) { try $0.restoreFromTrash(id: trashed.id) }
                } else {
                    try d.session.update { try $0.deleteForever(id: trashed.id) }
                    deletedForGood.insert(trashed.id)
                    deletedAt[trashed.id] = deletedAt[trashed.id] ?? step
                    let gone = unpushed[d.name]?[trashed.id] ?? []
                    written.removeAll { $0.item == trashed.id && gone.contains($0.value) }
                }
            case 62..<67:
                guard let pick else { continue }
                let target = d.vault.vaults[Int.random(in: 0..<d.vault.vaults.count, using: &random)]
                _ = try d.service.perform(.move(MoveRequest(items: [pick.id], vault: target.id, copy: roll == 66)))
            case 67..<72:
                d.online.toggle()
            default:
                guard d.online else { continue }
                // One push in ten loses its answer on the way back (the server did apply it).
                let loses = Int.random(in: 0..<10, using: &random) == 0
                let once = Once()
                if loses { d.client.losesAnswer = { @Sendable in once.first() } }
                do {
                    try d.sync()
                    if d.service.syncStatus()?.queued == 0 { unpushed[d.name] = [:] }
                } catch let error as ProtocolError where error.code == .serverUnreachable {
                    lostAnswers += 1
                } catch let error as ProtocolError where error.code == .syncRefused {
                    refused.append("\(d.name) step \(step): \(error.facts)")
                }
                d.client.losesAnswer = nil
            }
        }
        #expect(refused.isEmpty, "an honest server was refused (\(context)): \(refused.prefix(3))")
        // Everyone online; sync until nothing waits.
        for d in devices { d.online = true }
        for _ in 0..<4 { for d in devices { try d.sync() } }
        for d in devices {
            #expect(d.service.syncStatus()?.queued == 0, "\(d.name) still has changes queued (\(context))")
        }
        let reference = a.state
        for d in [b, c] {
            let other = d.state
            #expect(Set(other.keys) == Set(reference.keys), "\(d.name) holds other items than a (\(context))")
            for (id, entry) in reference {
                guard let mine = other[id] else { continue }
                #expect(mine.vault == entry.vault, "item \(id) is in another vault on \(d.name) (\(context))")
                #expect(mine.item == entry.item, "item \(id) differs on \(d.name) (\(context))")
            }
        }
        // Nothing written is lost: every value is current or in its item's history, unless the item was
        // deleted for good on purpose.
        var lost: [String] = []
        for (itemID, value) in written {
            guard let entry = reference[itemID] else {
                if !deletedForGood.contains(itemID) { lost.append("item \(itemID) vanished") }
                continue
            }
            if let deleted = deletedAt[itemID], let written = Int(value.dropFirst().dropLast()), written < deleted { continue }
            let versions = [entry.item] + entry.item.history.map(\.item)
            let found = versions.contains { v in v.title == value || v.notes == value || v.fields.contains { $0.value == value || $0.value == "user-" + value } }
            if !found {
                lost.append("\(value) of \(itemID)")
                print("lost \(value) of \(itemID): current \(entry.item.title)/\(entry.item.username ?? "")/\(entry.item.password ?? "")/\(entry.item.notes), history \(entry.item.history.map { "\($0.item.title)/\($0.item.username ?? "")/\($0.item.password ?? "")/\($0.item.notes)" })")
            }
        }
        #expect(lost.isEmpty, "lost \(lost.count) values (\(context)): \(lost.prefix(5))")
        #expect(reference.count > 20, "the run made items (\(context))")
        print("sync simulation on \(backend): seed \(seed), \(Self.operations) operations, \(reference.count) items at the end, \(lostAnswers) lost answers")
    }
}

/// True the first time it is asked, false after.
final class Once: @unchecked Sendable {
    // @unchecked: touched only under `lock`.
    private let lock = NSLock()
    private var asked = false
    func first() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if asked { return false }
        asked = true
        return true
    }
}
