import Foundation
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxKit
import PassboxProtocol
import PassboxService
import PassboxStore
import PassboxWording

/// `passbox 2fa`: two-factor sign-in with an authenticator app.
extension Commands {
    static func twoFactorStatus(_ c: Context, _ a: Arguments) throws {
        try a.expectPositionals(0...0, usage: "passbox 2fa [enable | disable]")
        let (record, client) = try signedInRecord(c)
        let status = try client.twoFactorStatus(token: record.token ?? "")
        if a.flag("json") {
            try Output.json(status)
            return
        }
        Console.out(status.enabled ? c.tr("twoFactor.on", ["count": String(status.recoveryCodesLeft)]) : c.tr("twoFactor.off"))
    }

    static func twoFactorEnable(_ c: Context, _ a: Arguments) throws {
        try a.expectPositionals(0...0, usage: "passbox 2fa enable")
        let (record, client) = try signedInRecord(c)
        // The master password first: turning two-factor sign-in on needs a fresh proof of the sign-in key.
        let password = try c.input.secretText(prompt: c.tr("account.prompt.master"))
        let setup = try AccountOperations.enrolTwoFactor(TwoFactorRequest(password: password), dataDirectory: c.dataDirectory)
        // Showing the setup key and its QR code is the point of enrolling.
        if let qr = TerminalQR.render(setup.uri) { Console.out(qr) }
        Console.out(c.tr("twoFactor.setupKey", ["key": setup.setupKey]))
        let code = try c.input.secret(prompt: c.tr("twoFactor.prompt.confirm"))
        let codes = try client.confirmTwoFactor(token: record.token ?? "", code: code.trimmingCharacters(in: .whitespaces))
        Console.out(c.tr("twoFactor.enabled"))
        for recovery in codes { Console.out("    " + recovery) }
        Console.out(c.tr("twoFactor.keepCodes"))
    }

    static func twoFactorDisable(_ c: Context, _ a: Arguments) throws {
        try a.expectPositionals(0...0, usage: "passbox 2fa disable")
        _ = try signedInRecord(c)
        let password = try c.input.secretText(prompt: c.tr("account.prompt.master"))
        try AccountOperations.disableTwoFactor(TwoFactorRequest(password: password), dataDirectory: c.dataDirectory)
        Console.out(c.tr("twoFactor.disabled"))
    }
}

/// `passbox recovery` and `passbox recover`: account recovery codes.
extension Commands {
    static let recoverUsage = "passbox recover --server URL --email EMAIL [--device-name NAME] [--family]"

    static func recoveryStatus(_ c: Context, _ a: Arguments) throws {
        try a.expectPositionals(0...0, usage: "passbox recovery [setup]")
        let (record, client) = try signedInRecord(c)
        let status = try client.recoveryStatus(token: record.token ?? "")
        if a.flag("json") {
            try Output.json(status)
            return
        }
        Console.out(status.configured ? c.tr("recovery.on", ["date": Output.date(status.created)]) : c.tr("recovery.off"))
        // Organisation recovery (ACC-11): whose owners may help this account back in.
        if let families = status.organisations, !families.isEmpty {
            Console.out(c.tr("recovery.family.on", ["list": SharingOperations.recoveryFamilies(families, dataDirectory: c.dataDirectory).joined(separator: ", ")]))
        }
        Console.out(c.tr("recovery.forgot"))
    }

    static func recoverySetup(_ c: Context, _ a: Arguments) throws {
        try a.expectPositionals(0...0, usage: "passbox recovery setup")
        let (record, client) = try signedInRecord(c)
        let password = try c.input.secretText(prompt: c.tr("account.prompt.master"))
        let secretKey = try SecretKey(parsing: record.secretKey)
        let code = try password.withUnsafeBytes {
            try client.setUpRecovery(
                email: record.email, password: $0, secretKey: secretKey, salt: Array(record.salt),
                parameters: record.parameters, keyset: Array(record.keyset),
                deviceID: record.deviceID, token: record.token ?? "")
        }
        // Shown once: the user writes it down (it replaces any earlier code).
        Console.out(c.tr("recovery.created"))
        Console.out("")
        Console.out("    " + code.formatted())
        Console.out("")
        Console.out(c.tr("recovery.keep"))
    }

    static func recover(_ c: Context, _ a: Arguments) throws {
        let (server, email) = try accountTarget(c, a, usage: recoverUsage)
        if a.flag("family") { return try recoverThroughFamily(c, server: server, email: email) }
        let client = try AccountClient(server: server)
        let codeText = try c.input.secret(prompt: c.tr("recovery.prompt.code"))
        let code: RecoveryCode
        do {
            code = try RecoveryCode(parsing: codeText)
        } catch {
            throw CLIError(message: recoveryCodeProblem(error, c), hint: c.tr("recovery.code.hint"), code: .usage)
        }
        let password = try newMasterPassword(c, email: email)
        let device = AccountOperations.newDevice(name: a.value("device-name"))
        Console.err(c.tr("account.deriving"))
        let (secretKey, session) = try password.withUnsafeBytes {
            try client.recover(email: email, code: code, newPassword: $0, deviceID: device.id, deviceName: device.name)
        }
        try AccountOperations.keep(session, secretKey: secretKey, client: client, device: device, in: c.dataDirectory)
        Console.out(c.tr("recovery.done", ["email": session.email]))
        Console.out("")
        Console.out("    " + secretKey.formatted())
        Console.out("")
        Console.out(c.tr("account.keepSecretKey"))
        Console.out(c.tr("recovery.next"))
    }

    /// `passbox recover --family`: new credentials made here, asked of the family's owners (ACC-10); they take
    /// effect once an owner compared the new code and approved, then `passbox signin` with them.
    static func recoverThroughFamily(_ c: Context, server: String, email: String) throws {
        let password = try newMasterPassword(c, email: email)
        Console.err(c.tr("account.deriving"))
        let (secretKey, code) = try SharingOperations.askForRecovery(server: server, email: email, newPassword: password)
        Console.out(c.tr("recovery.family.asked", ["email": email]))
        printCode(code)
        Console.out(c.tr("recovery.family.secretKey"))
        Console.out("")
        Console.out("    " + secretKey.formatted())
        Console.out("")
        Console.out(c.tr("account.keepSecretKey"))
        Console.out(c.tr("recovery.family.next", ["server": server, "email": email]))
    }

    static func recoveryCodeProblem(_ error: TypedCodeError, _ c: Context) -> String {
        secretKeyProblem(error, c).replacingOccurrences(of: "Secret Key", with: c.tr("recovery.codeName"))
    }
}

/// `passbox passwd --account`.
extension Commands {
    static func changeAccountPassword(_ c: Context, _ a: Arguments) throws {
        try a.expectPositionals(0...0, usage: "passbox passwd --account")
        var (record, client) = try signedInRecord(c)
        let current = try c.input.secretText(prompt: c.tr("account.prompt.currentMaster"))
        let new = try newMasterPassword(c, email: record.email)
        let secretKey = try SecretKey(parsing: record.secretKey)
        Console.err(c.tr("account.deriving"))
        let changed = try current.withUnsafeBytes { old in
            try new.withUnsafeBytes { fresh in
                try client.changePassword(
                    email: record.email, current: old, new: fresh, secretKey: secretKey, salt: Array(record.salt),
                    lastUsed: record.parameters, keyset: Array(record.keyset),
                    deviceID: record.deviceID, token: record.token ?? "")
            }
        }
        record.salt = Data(changed.salt)
        record.memoryKiB = changed.kdf.memoryKiB
        record.passes = changed.kdf.passes
        record.lanes = changed.kdf.lanes
        record.keyset = Data(changed.keyset)
        try record.save(c.dataDirectory)
        try KnownAccounts.remember(record.parameters, salt: changed.salt, server: record.server, email: record.email, in: c.dataDirectory)
        Console.out(c.tr("account.passwordChanged", ["email": record.email]))
    }
}
