import Foundation
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxProtocol
import PassboxServer
import PassboxService

/// The part of `passbox bench sharing` that moves items (issue 32): a `passbox server` in this process
/// (SQLite), three accounts each with its own data directory and `VaultService`, a family made, joined and
/// confirmed as the CLI does it. Measures a member's first read of a shared vault of `--items` items (their
/// first sync: the list verified, the grant opened, every item pulled and opened), the bytes of a member's
/// sync when one shared item changed (target under 4 KiB), and a removal from a vault of `--rotate-items`
/// items: the removal itself (after it, new writes use the new key) and the manager's next sync, which seals
/// every item again under the new key (items per second).
enum SharingItemsBenchmark {
    static let password = "bench tulip ocean marble violin"

    static func run(_ args: Arguments) throws {
        let items = max(1, Int(args.value("items") ?? "1000") ?? 1000)
        let rotateItems = max(items, Int(args.value("rotate-items") ?? "10000") ?? 10000)
        let dir = NSTemporaryDirectory() + "passbox-bench-sharing-" + String(getpid())
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var configuration = PassboxServer.Configuration(dataDirectory: dir + "/server")
        configuration.port = 0
        let server = try PassboxServer(configuration) { _ in }
        defer { server.stop() }
        let stamp = "\(getpid())-\(Int(Date().timeIntervalSince1970))"
        let account = try AccountClient(server: server.origin)
        let bytes = Array(password.utf8)
        func person(_ name: String) throws -> (device: SyncBenchmark.Device, data: String, email: String) {
            let email = "\(name)-\(stamp)@example.org"
            let (key, session) = try bytes.withUnsafeBytes { try account.signup(email: email, password: $0, deviceID: name + "-bench", deviceName: name) }
            let device = try SyncBenchmark.device(session, key: key, origin: server.origin, name: name, dir: dir, password: bytes)
            return (device, dir + "/" + name, email)
        }
        let ann = try person("ann"), bob = try person("bob"), cat = try person("cat")
        let org = "Bench family"
        _ = try SharingOperations.create(kind: .family, name: org, password: SecretText(password), dataDirectory: ann.data)
        for member in [bob, cat] {
            let link = try SharingOperations.invite(org, email: member.email, role: .member, dataDirectory: ann.data).link
            _ = try SharingOperations.accept(link, dataDirectory: member.data)
            _ = try SharingOperations.confirm(org, email: member.email, compared: false, password: SecretText(password), dataDirectory: ann.data)
        }
        Console.out("Items of a shared vault (a family of three on one server process, SQLite, loopback):")

        // Ann's first sync brings the family vault; she fills it and pushes.
        _ = try ann.device.sync()
        let session = ann.device.service.session!
        guard let family = session.vault.vaults.first(where: { $0.name == org })?.id else { throw CLIError.failure("the family vault did not arrive", hint: "") }
        try add(items, to: family, in: session)
        var start = DispatchTime.now()
        _ = try ann.device.sync()
        let push = SyncBenchmark.milliseconds(start)
        start = DispatchTime.now()
        let first = try bob.device.sync()
        let read = SyncBenchmark.milliseconds(start)
        guard first.pulled >= items else { throw CLIError.failure("the member pulled \(first.pulled) of \(items) items", hint: "") }
        Console.out(String(format: "  share a %d-item vault: the manager's push %.0f ms; the member's first read (list verified, grant opened, items pulled and opened) %.0f ms", items, push, read))
        Console.out("    anchor: 1Password and Bitwarden show a shared vault's items after a full download of it as well; no member list is verified there")

        // One changed item: what the member's sync moves (its own vaults and the family's).
        _ = try cat.device.sync()
        let changed = session.vault.items.first { $0.vaultID == family }!.id
        try session.update(reindexing: { _ in [changed] }) { vault in try vault.update(id: changed, now: Date()) { $0.notes = "changed once" } }
        _ = try ann.device.sync()
        bob.device.client.traffic.reset()
        let delta = try bob.device.sync()
        let deltaBytes = bob.device.client.traffic.sent + bob.device.client.traffic.received
        guard delta.pulled == 1 else { throw CLIError.failure("a delta sync pulled \(delta.pulled) items, not 1", hint: "") }
        Console.out("  one shared item changed: the member's whole sync moves \(SyncBenchmark.size(deltaBytes)) (its own vaults and the family's; target under 4 KiB)")

        // Removal from a vault of `rotateItems` items.
        if rotateItems > items {
            try add(rotateItems - items, to: family, in: session)
            _ = try ann.device.sync()
        }
        start = DispatchTime.now()
        _ = try SharingOperations.remove(org, email: cat.email, password: SecretText(password), dataDirectory: ann.data)
        let removal = SyncBenchmark.milliseconds(start)
        start = DispatchTime.now()
        let rekeyed = try ann.device.sync()
        let rekey = SyncBenchmark.milliseconds(start)
        Console.out(
            String(
                format: "  remove a member from a %d-item vault: %.0f ms (the new key epoch signed, the keys renewed: new writes use them from then on); background re-encryption at the manager's next sync: %d items in %.0f ms, %.0f items/s",
                rotateItems, removal, rekeyed.pushed, rekey, Double(rekeyed.pushed) / max(rekey / 1000, 0.001)))
        Console.out("    anchor: Bitwarden and 1Password do not rotate a shared vault's key when someone leaves")
    }

    static func add(_ count: Int, to vaultID: String, in session: VaultSession) throws {
        try session.update { vault in
            for i in 0..<count {
                var item = Item(category: .login, title: "Shared \(i)", websites: ["https://shared\(i).example.org"])
                item.setValue("family\(i)@example.org", for: "username")
                item.setValue(SecureRandom.password(), for: "password")
                item.vaultID = vaultID
                try vault.add(item, now: Date())
            }
        }
    }
}
