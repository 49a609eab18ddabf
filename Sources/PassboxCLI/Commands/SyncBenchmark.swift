import Foundation
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxProtocol
import PassboxServer
import PassboxService

/// `passbox bench sync [--items N] [--database postgresql://…]`: a `passbox server` in this process (SQLite,
/// and with `--database` that PostgreSQL database; `make bench` starts a throwaway cluster) and two devices of
/// one account, each a `VaultService` with its own data directory as the CLI and agent hold it. Measures the
/// first sync of N items (the first device's push, the second's pull: time and bytes), a delta sync of one
/// changed item (target: under 50 ms and 4 KiB at 10,000 items, where Bitwarden's sync downloads the whole
/// vault each time), a push of one edit, and the time from one device's save to the change being on the other
/// (its long poll wakes it).
enum SyncBenchmark {
    static func run(_ args: Arguments, _ context: Context) throws {
        let items = max(1, Int(args.value("items") ?? "10000") ?? 10_000)
        let dir = NSTemporaryDirectory() + "passbox-bench-sync-" + String(getpid())
        defer { try? FileManager.default.removeItem(atPath: dir) }
        Console.out("Sync of \(items) items between two devices of one account (loopback, one server process):")
        try measure(items: items, dir: dir + "/sqlite", postgres: nil)
        if let uri = try Commands.postgresURI(args, context) {
            try measure(items: items, dir: dir + "/postgres", postgres: uri)
        } else {
            Console.out("PostgreSQL: give --database postgresql://USER@HOST/DB (make bench starts a throwaway cluster) for its rows.")
        }
    }

    static func milliseconds(_ start: DispatchTime) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6 }

    static func size(_ bytes: Int) -> String {
        bytes >= 1 << 20 ? String(format: "%.1f MiB", Double(bytes) / Double(1 << 20)) : bytes >= 1024 ? String(format: "%.1f KiB", Double(bytes) / 1024) : "\(bytes) B"
    }

    /// A device: its data directory, its service (unlocked), and a client that counts bytes.
    struct Device {
        let service: VaultService
        let client: SyncClient
        func sync() throws -> SyncReply { try service.sync(takeNotices: true, client: client) }
    }

    static func device(_ session: AccountClient.SignedIn, key: SecretKey, origin: String, name: String, dir: String, password: [UInt8]) throws -> Device {
        let data = dir + "/" + name
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try AccountDevice.keep(session, secretKey: key, server: origin, deviceID: name + "-bench", deviceName: name, in: data)
        let service = VaultService(dataDirectory: data)
        _ = try password.withUnsafeBytes { try service.unlock(password: SecretText(bytes: $0)) }
        return Device(service: service, client: try SyncClient(server: origin, token: session.token))
    }

    static func measure(items: Int, dir: String, postgres: String?) throws {
        var configuration = PassboxServer.Configuration(dataDirectory: dir + "/server")
        configuration.postgres = postgres
        configuration.port = 0
        let server = try PassboxServer(configuration) { _ in }
        defer { server.stop() }
        let password = Array("bench tulip ocean marble violin".utf8)
        let email = "sync-\(getpid())-\(Int(Date().timeIntervalSince1970))@example.org"
        let account = try AccountClient(server: server.origin)
        let (key, first) = try password.withUnsafeBytes { try account.signup(email: email, password: $0, deviceID: "a-bench", deviceName: "a") }
        let second = try password.withUnsafeBytes {
            try account.signin(email: email, password: $0, secretKey: key, deviceID: "b-bench", deviceName: "b", lastUsed: nil)
        }
        let a = try device(first, key: key, origin: server.origin, name: "a", dir: dir, password: password)
        let b = try device(second, key: key, origin: server.origin, name: "b", dir: dir, password: password)
        let session = a.service.session!
        try session.update { vault in
            for i in 0..<items {
                var item = Item(category: .login, title: "Site \(i)", websites: ["https://site\(i).example.org"])
                item.setValue("user\(i)@example.org", for: "username")
                item.setValue(SecureRandom.password(), for: "password")
                item.notes = i % 10 == 0 ? "Recovery codes and a note about this account, \(i)." : ""
                try vault.add(item, now: Date())
            }
        }
        let engine = postgres == nil ? "SQLite" : "PostgreSQL"

        var start = DispatchTime.now()
        _ = try a.sync()
        let pushAll = milliseconds(start)
        let pushBytes = a.client.traffic.sent
        a.client.traffic.reset()
        start = DispatchTime.now()
        let pulled = try b.sync()
        let pullAll = milliseconds(start)
        let pullBytes = b.client.traffic.received + b.client.traffic.sent
        b.client.traffic.reset()
        guard pulled.pulled >= items else { throw CLIError.failure("the second device pulled \(pulled.pulled) of \(items) items", hint: "") }
        Console.out("  \(engine): first sync: push \(String(format: "%.0f", pushAll)) ms (\(size(pushBytes)) sent), pull \(String(format: "%.0f", pullAll)) ms (\(size(pullBytes)))")

        // One edit: its push, then the delta pull on the other device (median of 20).
        var pushes: [Double] = [], pulls: [Double] = [], pushSizes: [Int] = [], pullSizes: [Int] = []
        let ids = session.vault.items.prefix(20).map(\.id)
        for (n, id) in ids.enumerated() {
            try session.update(reindexing: { _ in [id] }) { vault in try vault.update(id: id, now: Date()) { $0.notes = "edited \(n)" } }
            start = DispatchTime.now()
            _ = try a.sync()
            pushes.append(milliseconds(start))
            pushSizes.append(a.client.traffic.sent + a.client.traffic.received)
            a.client.traffic.reset()
            start = DispatchTime.now()
            let delta = try b.sync()
            pulls.append(milliseconds(start))
            pullSizes.append(b.client.traffic.received + b.client.traffic.sent)
            b.client.traffic.reset()
            guard delta.pulled == 1 else { throw CLIError.failure("a delta sync pulled \(delta.pulled) items, not 1", hint: "") }
        }
        // The delta pull's request alone (the server's share), from the revision before the last change.
        var requests: [Double] = []
        let before = b.service.session!.vault.sync!.revision - 1
        for _ in 0..<20 {
            start = DispatchTime.now()
            _ = try b.client.pull(since: before)
            requests.append(milliseconds(start))
        }
        func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
        func medianInt(_ v: [Int]) -> Int { v.sorted()[v.count / 2] }
        let deltaMs = median(pulls), deltaBytes = medianInt(pullSizes)
        Console.out(
            "  \(engine): delta sync of 1 changed item at \(items): \(String(format: "%.1f", deltaMs)) ms, \(size(deltaBytes)) (target under 50 ms and 4 KiB: \(deltaMs < 50 && deltaBytes < 4096 ? "met" : "missed"); Bitwarden downloads the whole vault each sync, about \(size(pullBytes)) here)")
        Console.out("  \(engine):   of which the pull request to the server: \(String(format: "%.1f", median(requests))) ms; the rest is verifying, merging and the one save of the vault file (fsync)")
        Console.out("  \(engine): push of one edit: \(String(format: "%.1f", median(pushes))) ms, \(size(medianInt(pushSizes)))")

        // From a save on one device to the change on the other: b's long poll wakes, b pulls.
        var latencies: [Double] = []
        for n in 0..<10 {
            let since = b.service.session!.vault.sync!.revision
            let woke = DispatchSemaphore(value: 0)
            let waiter = Thread {
                _ = try? b.client.wait(since: since)
                woke.signal()
            }
            waiter.start()
            Thread.sleep(forTimeInterval: 0.05)
            let id = ids[n]
            start = DispatchTime.now()
            try session.update(reindexing: { _ in [id] }) { vault in try vault.update(id: id, now: Date()) { $0.title = "Seen \(n)" } }
            _ = try a.sync()
            woke.wait()
            _ = try b.sync()
            latencies.append(milliseconds(start))
            guard b.service.session!.vault.items.contains(where: { $0.id == id && $0.title == "Seen \(n)" }) else {
                throw CLIError.failure("the change did not reach the other device", hint: "")
            }
        }
        Console.out("  \(engine): a change on one device is on the other after \(String(format: "%.1f", median(latencies))) ms (median of 10: save, push, the other's long poll wakes, its pull; target within a second)")
    }
}

extension SecureRandom {
    /// A random 20-character password for benchmark items.
    static func password() -> String {
        let alphabet = Array("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        return String(bytes(count: 20).map { alphabet[Int($0) % alphabet.count] })
    }
}
