import Foundation
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxProtocol
import PassboxService
import PassboxStore
import PassboxTestKit

/// A device of an account in this process: its own data directory, signed in to a real `passbox server`,
/// with its `VaultService` unlocked, as the CLI or the agent would hold it.
final class SyncDevice {
    let name: String
    let directory: String
    let service: VaultService
    var client: SyncClient
    var online = true

    /// `now` is the device's clock (a later one purges the trash at unlock).
    init(name: String, directory: String, server: String, now: @escaping () -> Date = Date.init) throws {
        self.name = name
        self.directory = directory
        service = VaultService(dataDirectory: directory, now: now)
        let record = try AccountRecord.load(directory)!
        client = try SyncClient(server: server, token: record.token!)
    }

    var session: VaultSession { service.session! }
    var vault: Vault { service.session!.vault }

    static let password = "tulip ocean marble violin anchor"

    static func password(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        try Array(password.utf8).withUnsafeBytes(body)
    }

    /// Signs up on `server` as the first device; returns the device and the Secret Key.
    static func signUp(_ name: String, server: String, email: String, in dir: TemporaryDirectory) throws -> (SyncDevice, SecretKey) {
        let client = try AccountClient(server: server)
        var made: (SecretKey, AccountClient.SignedIn)?
        try password { made = try client.signup(email: email, password: $0, deviceID: name + "-id", deviceName: name) }
        let (key, session) = made!
        let directory = dir.path + "/" + name
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try AccountDevice.keep(session, secretKey: key, server: client.origin, deviceID: name + "-id", deviceName: name, in: directory)
        let device = try SyncDevice(name: name, directory: directory, server: client.origin)
        try device.service.unlock(password: SecretText(password))
        return (device, key)
    }

    /// Signs in on `server` as another device of the account.
    static func signIn(_ name: String, server: String, email: String, secretKey: SecretKey, in dir: TemporaryDirectory) throws -> SyncDevice {
        let client = try AccountClient(server: server)
        var signed: AccountClient.SignedIn?
        try password { signed = try client.signin(email: email, password: $0, secretKey: secretKey, deviceID: name + "-id", deviceName: name, lastUsed: nil) }
        let directory = dir.path + "/" + name
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try AccountDevice.keep(signed!, secretKey: secretKey, server: client.origin, deviceID: name + "-id", deviceName: name, in: directory)
        let device = try SyncDevice(name: name, directory: directory, server: client.origin)
        try device.service.unlock(password: SecretText(password))
        return device
    }

    @discardableResult
    func sync() throws -> SyncReply { try service.sync(takeNotices: true, client: client) }

    /// Each item as the server would hold it (no device-local parts), by id, with its vault.
    var state: [String: (vault: String?, item: Item)] {
        Dictionary(vault.items.map { ($0.id, ($0.vaultID, $0.synced)) }, uniquingKeysWith: { a, _ in a })
    }
}

/// The result of work done on another thread, handed back after it signalled.
final class ThreadResult<T>: @unchecked Sendable {
    // @unchecked: written by the thread before `done` is signalled, read after.
    var result: Result<T, Error>?
    var work: (() throws -> T)?
    init() {}
}

/// Runs `body` on a thread with an 8 MiB stack, as a command's main thread has (Swift Testing's threads have
/// less), and hands back its result.
func onLargeStack<T>(_ body: () throws -> T) throws -> T {
    try withoutActuallyEscaping(body) { body in
        let box = ThreadResult<T>()
        box.work = body
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            box.result = Result { try box.work!() }
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
        done.wait()
        box.work = nil
        return try box.result!.get()
    }
}
