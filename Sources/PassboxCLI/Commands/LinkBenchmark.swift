import Foundation
import PassboxProtocol
import PassboxServer
import PassboxService

/// `passbox bench link` (issue 33): a `passbox server` in this process (SQLite, loopback), one account signed
/// up with the server's own key-derivation settings, and `--runs` links to new devices, each from the code
/// entered on the new device to that device signed in: the exchange through the relay (hello, answer, the
/// code confirmed at once as a user would, the sealed credentials) and then the sign-in with the master
/// password (its key derivation included). Target: under 5 seconds.
enum LinkBenchmark {
    static let password = "bench tulip ocean marble violin"

    static func run(_ args: Arguments) throws {
        let runs = max(1, Int(args.value("runs") ?? "3") ?? 3)
        let dir = NSTemporaryDirectory() + "passbox-bench-link-" + String(getpid())
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var configuration = PassboxServer.Configuration(dataDirectory: dir + "/server")
        configuration.port = 0
        let server = try PassboxServer(configuration) { _ in }
        defer { server.stop() }
        let old = dir + "/old"
        try FileManager.default.createDirectory(atPath: old, withIntermediateDirectories: true)
        _ = try AccountOperations.signUp(AccountSignUpRequest(server: server.origin, email: "bench-\(getpid())@example.org", password: SecretText(password)), dataDirectory: old)
        // The old device's signing key, opened once with the master password (as `passbox link show` does).
        let key = try LinkOperations.signingKey(password: SecretText(password), dataDirectory: old)
        var exchanges: [Double] = [], totals: [Double] = []
        for run in 0..<runs {
            let offer = try LinkOperations.open(dataDirectory: old)
            let new = dir + "/new-\(run)"
            try FileManager.default.createDirectory(atPath: new, withIntermediateDirectories: true)
            let start = DispatchTime.now()
            // The old device answers and confirms on a thread of its own, as it would on its own machine.
            let confirming = Thread {
                if let asking = try? LinkOperations.awaitDevice(offer) { try? LinkOperations.confirm(offer, asking, signingKey: key, dataDirectory: old) }
            }
            let joining = try LinkOperations.Joining(server: offer.server, secret: try LinkSecret(code: offer.code), name: "Bench \(run)")
            confirming.start()
            _ = try joining.awaitAnswer(until: Date().addingTimeInterval(60))
            let credentials = try joining.awaitCredentials(until: Date().addingTimeInterval(60))
            exchanges.append(SyncBenchmark.milliseconds(start))
            _ = try AccountOperations.signIn(
                AccountSignInRequest(server: credentials.server, email: credentials.email, password: SecretText(password), secretKey: SecretText(credentials.secretKey)),
                dataDirectory: new, deviceID: joining.deviceID, attestation: credentials.attestation)
            totals.append(SyncBenchmark.milliseconds(start))
        }
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        Console.out("Device linking (one server process, SQLite, loopback; \(runs) links, median):")
        Console.out(String(format: "  the exchange (code entered → credentials opened on the new device): %.0f ms", median(exchanges)))
        Console.out(String(format: "  the new device signed in (with the master password's key derivation): %.0f ms   target: under 5,000 ms", median(totals)))
        Console.out("    anchor: 1Password's \"Sign in with a QR code\" and Signal's device linking take a few seconds, mostly the user's")
    }
}
