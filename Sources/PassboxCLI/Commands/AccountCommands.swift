import Foundation
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxKit
import PassboxProtocol
import PassboxService
import PassboxStore

/// `passbox signup`, `signin`, `account` and `signout`: an account on a `passbox server`. Secrets come from
/// the terminal, or from standard input one line each (the master password, twice at sign-up; at sign-in
/// the master password, then the Secret Key), never from the command line.
extension Commands {
    static let signupUsage = "passbox signup --server URL --email EMAIL [--invite] [--device-name NAME]"
    static let signinUsage = "passbox signin --server URL --email EMAIL [--device-name NAME] [--remember-device] [--accept-new-parameters]"

    static func signup(_ c: Context, _ a: Arguments) throws {
        let (client, email) = try accountTarget(c, a, usage: signupUsage)
        // The invitation is a credential: read like a secret (first), never from the command line.
        let invitation = a.flag("invite") ? try c.input.secret(prompt: c.tr("account.prompt.invitation")).trimmingCharacters(in: .whitespaces) : nil
        var password = try newMasterPassword(c, email: email)
        let device = newDevice(a)
        Console.err(c.tr("account.deriving"))
        let (secretKey, session) = try password.withUnsafeBytes {
            try client.signup(email: email, password: $0, deviceID: device.id, deviceName: device.name, invitation: invitation)
        }
        password = SecretText("")
        try saveRecord(c, client: client, session: session, secretKey: secretKey, device: device)
        // Shown once: the user writes it down (the Emergency Kit is not built yet).
        Console.out(c.tr("account.created", ["email": session.email, "server": client.origin]))
        Console.out("")
        Console.out("    " + secretKey.formatted())
        Console.out("")
        Console.out(c.tr("account.keepSecretKey"))
        Console.out(c.tr("kit.next"))
    }

    static func signin(_ c: Context, _ a: Arguments) throws {
        let (client, email) = try accountTarget(c, a, usage: signinUsage)
        let password = try c.input.secretText(prompt: c.tr("account.prompt.master"))
        let keyText = try c.input.secret(prompt: c.tr("account.prompt.secretKey"))
        // The Secret Key is checked here, before any network call, with what exactly is wrong.
        let secretKey: SecretKey
        do {
            secretKey = try SecretKey(parsing: keyText)
        } catch {
            throw CLIError(message: secretKeyProblem(error, c), hint: c.tr("account.secretKey.hint"), code: .usage)
        }
        // The parameters this device used last for the account: a server cannot change them silently (unless the
        // user says they changed them on another device).
        let lastUsed = a.flag("accept-new-parameters") ? nil : try KnownAccounts.load(c.dataDirectory).parameters(server: client.origin, email: email)
        // A device remembered for this account keeps its id and skips the second factor while its token lasts.
        let remembered = RememberedDevice.load(c.dataDirectory, server: client.origin, email: email)
        var device = newDevice(a)
        if let remembered { device.id = remembered.deviceID }
        Console.err(c.tr("account.deriving"))
        let session = try password.withUnsafeBytes {
            try client.signin(
                email: email, password: $0, secretKey: secretKey, deviceID: device.id, deviceName: device.name, lastUsed: lastUsed,
                rememberToken: remembered?.token, rememberDevice: a.flag("remember-device")
            ) {
                // From a script the code is the next line; none there means the account's second factor is missing.
                do {
                    return try c.input.secret(prompt: c.tr("twoFactor.prompt.code"))
                } catch let error as CLIError where error.code == .usage {
                    throw ProtocolError(.twoFactorRequired)
                }
            }
        }
        try saveRecord(c, client: client, session: session, secretKey: secretKey, device: device)
        if let token = session.rememberToken {
            try RememberedDevice(server: client.origin, email: session.email, deviceID: device.id, token: token).save(c.dataDirectory)
            Console.out(c.tr("twoFactor.remembered"))
        }
        Console.out(c.tr("account.signedIn", ["email": session.email, "server": client.origin]))
    }

    static func account(_ c: Context, _ a: Arguments) throws {
        try a.expectPositionals(0...0, usage: "passbox account [--json]")
        guard let record = try AccountRecord.load(c.dataDirectory) else { throw ProtocolError(.noAccount) }
        let client = try AccountClient(server: record.server)
        let reply = try client.account(token: record.token ?? "")
        if a.flag("json") {
            Console.out(String(decoding: try ProtocolCoding.encode(reply, pretty: true), as: UTF8.self))
            return
        }
        Console.out(c.tr("account.show.server", ["server": record.server]))
        Console.out(c.tr("account.show.email", ["email": Console.visibleLine(reply.email)]))
        Console.out(c.tr("account.show.id", ["id": Console.visibleLine(reply.accountID)]))
        Console.out(c.tr("account.show.algorithms", ["memory": String(reply.kdf.memoryKiB / 1024), "passes": String(reply.kdf.passes), "lanes": String(reply.kdf.lanes)]))
        Console.out(c.tr("account.show.secretKeyHere"))
        Console.out(c.tr("account.show.devices"))
        for device in reply.devices {
            let marker = device.isCurrent ? c.tr("account.show.thisDevice") : ""
            Console.out("  \(Console.visibleLine(device.name))  \(Console.visibleLine(device.address))  \(ISO8601DateFormatter().string(from: device.lastSeen))\(marker)")
        }
    }

    static func signout(_ c: Context, _ a: Arguments) throws {
        try a.expectPositionals(0...0, usage: "passbox signout --forget-secret-key")
        guard let record = try AccountRecord.load(c.dataDirectory) else { throw ProtocolError(.noAccount) }
        // Signing out removes the Secret Key from this device: without it written down, the account is lost.
        guard a.flag("forget-secret-key") else {
            throw CLIError(message: c.tr("account.signoutConfirm"), hint: c.tr("account.signoutConfirm.hint"), code: .usage)
        }
        let client = try AccountClient(server: record.server)
        var ended = true
        do { try client.signout(token: record.token ?? "") } catch let error as ProtocolError where error.code == .notSignedIn || error.code == .serverUnreachable {
            ended = error.code == .notSignedIn
        }
        try AccountRecord.remove(c.dataDirectory)
        Console.out(c.tr(ended ? "account.signedOut" : "account.signedOutOffline", ["email": record.email, "server": record.server]))
    }

    // MARK: Helpers

    /// A new master password, asked twice and strength-gated: it guards everything on the server together
    /// with the Secret Key, so it must be rated 3/4 or more.
    static func newMasterPassword(_ c: Context, email: String) throws -> SecretText {
        let password = try c.input.secretText(prompt: c.tr("account.prompt.newMaster"))
        let again = try c.input.secretText(prompt: c.tr("account.prompt.repeat"))
        guard password == again else { throw CLIError.failure(c.tr("account.passwordsDiffer"), hint: c.tr("account.passwordsDiffer.hint")) }
        let text = password.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        if let strength = try? Tools.strength(text, userInputs: [email]), strength.score < 3 {
            throw CLIError.failure(
                c.tr("account.weakMaster", ["label": c.tr("strength.label.\(strength.score)"), "score": String(strength.score)]),
                hint: c.tr("account.weakMaster.hint"))
        }
        return password
    }

    static func accountTarget(_ c: Context, _ a: Arguments, usage: String) throws -> (AccountClient, String) {
        try a.expectPositionals(0...0, usage: usage)
        guard let server = a.value("server"), let email = a.value("email") else { throw CLIError.usage("usage: \(usage)") }
        let normalized = SignInTranscript.normalizedEmail(email)
        let bytes = Array(normalized.utf8)
        guard let at = bytes.firstIndex(of: UInt8(ascii: "@")), at > 0, at < bytes.count - 1, bytes.count <= 254, !bytes.contains(where: { $0 < 0x21 || $0 == 0x7F }) else {
            throw CLIError(message: c.tr("account.notAnEmail", ["email": Console.visible(email)]), hint: nil, code: .usage)
        }
        if let existing = try AccountRecord.load(c.dataDirectory) {
            throw ProtocolError(.alreadySignedIn, ["email": existing.email, "server": existing.server])
        }
        return (try AccountClient(server: server), normalized)
    }

    static func newDevice(_ a: Arguments) -> (id: String, name: String) {
        let id = SecureRandom.bytes(count: 12).map { String(format: "%02x", $0) }.joined()
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, host.count)
        let hostname = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (id, a.value("device-name") ?? "passbox CLI on \(hostname.isEmpty ? "Linux" : hostname)")
    }

    static func saveRecord(_ c: Context, client: AccountClient, session: AccountClient.SignedIn, secretKey: SecretKey, device: (id: String, name: String)) throws {
        try AccountDevice.keep(session, secretKey: secretKey, server: client.origin, deviceID: device.id, deviceName: device.name, in: c.dataDirectory)
        try KnownAccounts.remember(session.kdf, server: client.origin, email: session.email, in: c.dataDirectory)
    }

    static func secretKeyProblem(_ error: TypedCodeError, _ c: Context) -> String {
        switch error {
        case .empty: c.tr("secretKey.empty")
        case .missingVersion(let expected): c.tr("secretKey.missingVersion", ["version": expected])
        case .unknownVersion(let found): c.tr("secretKey.unknownVersion", ["version": found])
        case .invalidCharacter(let character, let position): c.tr("secretKey.invalidCharacter", ["character": Console.visible(character), "position": String(position)])
        case .charactersMissing(let count, let after): c.tr("secretKey.missing", ["count": String(count), "version": after])
        case .charactersExtra(let count): c.tr("secretKey.extra", ["count": String(count)])
        case .mistyped: c.tr("secretKey.mistyped")
        }
    }
}
