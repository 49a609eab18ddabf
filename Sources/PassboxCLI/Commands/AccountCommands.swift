import Foundation
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxKit
import PassboxProtocol
import PassboxService
import PassboxStore
import PassboxWording

/// `passbox signup`, `signin`, `account` and `signout`: an account on a `passbox server`. Secrets come from
/// the terminal, or from standard input one line each (the master password, twice at sign-up; at sign-in
/// the master password, then the Secret Key), never from the command line.
extension Commands {
    static let signupUsage = "passbox signup --server URL --email EMAIL [--invite] [--device-name NAME]"
    static let signinUsage = "passbox signin --server URL --email EMAIL [--device-name NAME] [--remember-device] [--accept-new-parameters]"

    static func signup(_ c: Context, _ a: Arguments) throws {
        let (server, email) = try accountTarget(c, a, usage: signupUsage)
        // The invitation is a credential: read like a secret (first), never from the command line.
        let invitation = a.flag("invite") ? try c.input.secretText(prompt: c.tr("account.prompt.invitation")) : nil
        let password = try newMasterPassword(c, email: email)
        Console.err(c.tr("account.deriving"))
        let (secretKey, session, client) = try AccountOperations.signUp(
            AccountSignUpRequest(server: server, email: email, password: password, invitation: invitation, deviceName: a.value("device-name")), dataDirectory: c.dataDirectory)
        // Shown once: the user writes it down, and makes the Emergency Kit next.
        Console.out(c.tr("account.created", ["email": session.email, "server": client.origin]))
        Console.out("")
        Console.out("    " + secretKey.formatted())
        Console.out("")
        Console.out(c.tr("account.keepSecretKey"))
        Console.out(c.tr("kit.next"))
    }

    static func signin(_ c: Context, _ a: Arguments) throws {
        let (server, email) = try accountTarget(c, a, usage: signinUsage)
        let password = try c.input.secretText(prompt: c.tr("account.prompt.master"))
        let keyText = try c.input.secret(prompt: c.tr("account.prompt.secretKey"))
        // The Secret Key is checked here, before any network call, with what exactly is wrong.
        do {
            _ = try SecretKey(parsing: keyText)
        } catch {
            throw CLIError(message: secretKeyProblem(error, c), hint: c.tr("account.secretKey.hint"), code: .usage)
        }
        Console.err(c.tr("account.deriving"))
        // The parameters this device used last for the account bind the server (unless the user says they
        // changed them on another device); a remembered device skips the second factor while its token lasts.
        let request = AccountSignInRequest(
            server: server, email: email, password: password, secretKey: SecretText(keyText), rememberDevice: a.flag("remember-device"),
            acceptNewParameters: a.flag("accept-new-parameters"), deviceName: a.value("device-name"))
        let session = try AccountOperations.signIn(request, dataDirectory: c.dataDirectory) {
            // From a script the code is the next line; none there means the account's second factor is missing.
            do {
                return try c.input.secret(prompt: c.tr("twoFactor.prompt.code"))
            } catch let error as CLIError where error.code == .usage {
                throw ProtocolError(.twoFactorRequired)
            }
        }
        if session.rememberToken != nil { Console.out(c.tr("twoFactor.remembered")) }
        Console.out(c.tr("account.signedIn", ["email": session.email, "server": server]))
    }

    static func account(_ c: Context, _ a: Arguments) throws {
        try a.expectPositionals(0...0, usage: "passbox account [--json]")
        guard let record = try AccountRecord.load(c.dataDirectory) else { throw ProtocolError(.noAccount) }
        let client = try AccountClient(server: record.server)
        var reply = try client.account(token: record.token ?? "")
        reply.devices = AccountOperations.checkedDevices(reply.devices, record: record)
        if a.flag("json") {
            Console.out(String(decoding: try ProtocolCoding.encode(reply, pretty: true), as: UTF8.self))
            return
        }
        Console.out(c.tr("account.show.server", ["server": record.server]))
        Console.out(c.tr("account.show.email", ["email": Console.visibleLine(reply.email)]))
        Console.out(c.tr("account.show.id", ["id": Console.visibleLine(reply.accountID)]))
        Console.out(c.tr("account.show.algorithms", ["memory": String(reply.kdf.memoryKiB / 1024), "passes": String(reply.kdf.passes), "lanes": String(reply.kdf.lanes)]))
        Console.out(c.tr("account.show.secretKeyHere"))
        if let storage = reply.storage {
            Console.out(c.tr("account.show.storage", ["used": String(format: "%.1f", Double(storage.usedBytes) / 1_048_576), "quota": String(storage.quotaBytes >> 20)]))
        }
        Console.out(c.tr("account.show.devices"))
        for device in reply.devices {
            let marker = device.isCurrent ? c.tr("account.show.thisDevice") : ""
            Console.out("  \(Console.visibleLine(device.name))  \(Console.visibleLine(device.address))  \(ISO8601DateFormatter().string(from: device.lastSeen))\(marker)")
            let via = device.signedVia.map { c.tr("device.via.\($0)", ["name": Console.visibleLine(device.approvedBy ?? "?")]) } ?? c.tr("device.via.none")
            Console.out("    " + via)
        }
    }

    static func signout(_ c: Context, _ a: Arguments) throws {
        try a.expectPositionals(0...0, usage: "passbox signout --forget-secret-key")
        guard let record = try AccountRecord.load(c.dataDirectory) else { throw ProtocolError(.noAccount) }
        // Signing out removes the Secret Key from this device: without it written down, the account is lost.
        guard a.flag("forget-secret-key") else {
            throw CLIError(message: c.tr("account.signoutConfirm"), hint: c.tr("account.signoutConfirm.hint"), code: .usage)
        }
        // A running agent locks first and forgets its quick-unlock key: the account's vault it holds open
        // must not outlive the sign-out.
        if c.endpoint.agentIsRunning { _ = try? c.endpoint.send(.lock(LockRequest(forget: true))) }
        let ended = try AccountOperations.signOut(c.dataDirectory)
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

    /// The server and email of a sign-up, sign-in or recovery, checked before any secret is asked for.
    static func accountTarget(_ c: Context, _ a: Arguments, usage: String) throws -> (String, String) {
        try a.expectPositionals(0...0, usage: usage)
        guard let server = a.value("server"), let email = a.value("email") else { throw CLIError.usage("usage: \(usage)") }
        let (client, normalized) = try AccountOperations.target(server: server, email: email, dataDirectory: c.dataDirectory)
        return (client.origin, normalized)
    }

    /// What is wrong with a typed Secret Key, worded from the facts `AccountOperations` gives every surface.
    static func secretKeyProblem(_ error: TypedCodeError, _ c: Context) -> String {
        var facts = AccountOperations.secretKeyFacts(error)
        if let character = facts["character"] { facts["character"] = Console.visible(character) }
        return c.tr("secretKey.\(facts["problem"] ?? "mistyped")", facts)
    }
}
