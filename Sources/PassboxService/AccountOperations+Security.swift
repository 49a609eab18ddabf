import Foundation
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxKit
import PassboxManifest
import PassboxProtocol
import PassboxStore
import PassboxWording

/// The account's secrets and proofs (split from AccountOperations.swift): the master password changed, a recovery
/// code made, two-factor sign-in, the counted checks of the master password, and the Emergency Kit with its
/// last-four confirmation (also what signs a locked device out).
extension AccountOperations {
    /// Changes the account's master password (DEV-3): the strength gate first, then the current password opens
    /// the kept keyset (a counted attempt), the server takes the new keys and signs every other device out; the
    /// record here follows. The Secret Key stays the same.
    public static func changeMasterPassword(_ r: ChangePasswordRequest, dataDirectory: String) throws {
        var (record, client) = try signedIn(dataDirectory)
        try checkNewMaster(r.new, email: record.email)
        let secretKey = try SecretKey(parsing: record.secretKey)
        let changed = try countingAttempts(dataDirectory, password: r.current) {
            try r.current.withUnsafeBytes { old in
                try r.new.withUnsafeBytes { fresh in
                    try client.changePassword(
                        email: record.email, current: old, new: fresh, secretKey: secretKey, salt: Array(record.salt), lastUsed: record.parameters,
                        keyset: Array(record.keyset), deviceID: record.deviceID, token: record.token ?? "")
                }
            }
        }
        record.salt = Data(changed.salt)
        record.memoryKiB = changed.kdf.memoryKiB
        record.passes = changed.kdf.passes
        record.lanes = changed.kdf.lanes
        record.keyset = Data(changed.keyset)
        try record.save(dataDirectory)
        try KnownAccounts.remember(record.parameters, salt: changed.salt, server: record.server, email: record.email, in: dataDirectory)
    }

    /// Makes a new recovery code (replacing an earlier one) after the master password, a counted attempt as
    /// at `two-factor-disable`: the code, formatted, shown once (ACC-11).
    public static func setUpRecovery(_ r: TwoFactorRequest, dataDirectory: String) throws -> String {
        let (record, client) = try signedIn(dataDirectory)
        guard let password = r.password else { throw ProtocolError(.wrongPassword) }
        let secretKey = try SecretKey(parsing: record.secretKey)
        let code = try countingAttempts(dataDirectory, password: password) {
            try password.withUnsafeBytes {
                try client.setUpRecovery(
                    email: record.email, password: $0, secretKey: secretKey, salt: Array(record.salt), parameters: record.parameters,
                    keyset: Array(record.keyset), deviceID: record.deviceID, token: record.token ?? "")
            }
        }
        return code.formatted()
    }

    // MARK: Two-factor sign-in

    /// A pending second factor: its setup key, otpauth address and QR code (no modules without libqrencode:
    /// the setup key alone then, as the command line does).
    public static func enrolTwoFactor(_ r: TwoFactorRequest, dataDirectory: String) throws -> TwoFactorSetupReply {
        let (record, client) = try signedIn(dataDirectory)
        let proof = try freshProof(SignInTranscript.twoFactorOnLabel, password: r.password, record: record, client: client, dataDirectory: dataDirectory)
        let parameters = try client.enrolTwoFactor(token: record.token ?? "", email: record.email, proof: proof)
        let qr = QRModules.encode(parameters.uri) ?? (0, [])
        return TwoFactorSetupReply(setupKey: Base32.encode(parameters.secret), uri: parameters.uri, size: qr.size, modules: qr.rows)
    }

    /// Turns two-factor sign-in on with a code of the app; the ten recovery codes, shown once.
    public static func confirmTwoFactor(_ r: TwoFactorRequest, dataDirectory: String) throws -> RecoveryCodesReply {
        let (record, client) = try signedIn(dataDirectory)
        // Apps show a code as "123 456": the spaces are dropped.
        guard let code = r.code?.withUnsafeBytes({ String(decoding: $0, as: UTF8.self) }).filter({ !$0.isWhitespace }), !code.isEmpty else {
            throw ProtocolError(.twoFactorCodeWrong)
        }
        return RecoveryCodesReply(codes: try client.confirmTwoFactor(token: record.token ?? "", code: code))
    }

    /// Turns two-factor sign-in off: the master password first (a counted attempt, as at unlock).
    public static func disableTwoFactor(_ r: TwoFactorRequest, dataDirectory: String) throws {
        let (record, client) = try signedIn(dataDirectory)
        let proof = try freshProof(SignInTranscript.twoFactorOffLabel, password: r.password, record: record, client: client, dataDirectory: dataDirectory)
        try client.disableTwoFactor(token: record.token ?? "", proof: proof)
    }

    /// A check of the master password counted as the vault's unlock attempts are (security.md §7): a wait after
    /// failures in a row, the count reset when it was right. A failure after the check (the network) stays counted.
    static func countingAttempts<T>(_ dataDirectory: String, password: SecretText, _ body: () throws -> T) throws -> T {
        // Nothing typed is not a guess: it is answered without counting.
        guard !password.isEmpty else { throw ProtocolError(.wrongPassword) }
        let attempts = VaultStore.serving(dataDirectory).attempts
        try attempts.beginAttempt(now: Date())
        let value = try body()
        try attempts.succeeded()
        return value
    }

    // MARK: The Emergency Kit

    /// The kit's page, worded in `language`: for the person who knows the master password (a wrong one is
    /// `wrongPassword`, checked against the keyset this device keeps and counted as unlock attempts are;
    /// nothing goes to the server).
    public static func kitPage(password: SecretText, language: Language, dataDirectory: String) throws -> EmergencyKitPage {
        let (record, _) = try signedIn(dataDirectory)
        let secretKey = try SecretKey(parsing: record.secretKey)
        try countingAttempts(dataDirectory, password: password) {
            let keys = try password.withUnsafeBytes {
                try AccountKeys.derive(password: $0, salt: Array(record.salt), parameters: record.parameters, secretKey: secretKey)
            }
            guard (try? AccountKeyset(opening: Array(record.keyset), accountID: record.accountID, unlockKey: keys.accountUnlockKey)) != nil else {
                throw ProtocolError(.wrongPassword)
            }
        }
        let tr = { (key: String, facts: [String: String]) in Localization.tr(key, language, facts) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: language == .german ? "de_DE" : "en_GB")
        formatter.dateStyle = .long
        return EmergencyKitPage(
            title: tr("kit.title", [:]), introduction: tr("kit.introduction", [:]),
            fields: [
                (tr("kit.server", [:]), record.server, false), (tr("kit.email", [:]), record.email, false), (tr("kit.accountID", [:]), record.accountID, false),
                (tr("kit.secretKey", [:]), secretKey.formatted(), true),
            ],
            passwordLabel: tr("kit.masterPassword", [:]), created: tr("kit.created", ["date": formatter.string(from: Date())]),
            stepsTitle: tr("kit.stepsTitle", [:]), steps: [tr("kit.step1", [:]), tr("kit.step2", ["server": record.server]), tr("kit.step3", [:])],
            footer: tr("kit.footer", [:]))
    }

    /// The kit as PDF bytes (for a download): written to a 0600 file in `directory`, read back and removed.
    public static func kitPDF(_ r: KitRequest, directory: String, dataDirectory: String) throws -> FileReply {
        let language: Language = r.language == "de" ? .german : .english
        let page = try kitPage(password: r.password ?? SecretText(""), language: language, dataDirectory: dataDirectory)
        let path = directory + "/kit-\(SecureRandom.bytes(count: 8).map { String(format: "%02x", $0) }.joined()).pdf"
        let previous = umask(0o077)
        defer {
            umask(previous)
            unlink(path)
        }
        do {
            try EmergencyKit.write(page, to: path)
        } catch {
            throw ProtocolError(.io, ["operation": "write", "path": path, "reason": String(describing: error)])
        }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        return FileReply(name: Localization.tr("kit.fileName", language, [:]), mediaType: "application/pdf", base64: bytes.base64EncodedString())
    }

    /// A sign-out from the lock page (ACC-9): the Secret Key's last four characters, as on the printed kit, stand
    /// in for the open vault, so that nobody passing a locked screen removes the Secret Key of someone who may not
    /// have it elsewhere. Compared in constant time and counted as unlock attempts are (waits after failures).
    public static func checkLastFour(_ lastFour: SecretText, dataDirectory: String) throws {
        let (record, _) = try signedIn(dataDirectory)
        try countingAttempts(dataDirectory, password: lastFour) { try requireLastFour(lastFour, of: record) }
    }

    /// The Secret Key's last four characters as typed (blanks around them and case aside), compared in constant
    /// time; else `kitMismatch`.
    static func requireLastFour(_ typed: SecretText?, of record: AccountRecord) throws {
        let wanted = Array(try SecretKey(parsing: record.secretKey).lastFour().utf8)
        let given = Array((typed?.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } ?? "").trimmingCharacters(in: .whitespaces).uppercased().utf8)
        guard ConstantTime.equal(given, wanted) else { throw ProtocolError(.kitMismatch) }
    }

    /// Confirms the kit is kept by the Secret Key's last four characters (compared in constant time); the
    /// reminder then stops on this device.
    public static func confirmKit(_ r: KitRequest, dataDirectory: String) throws {
        var (record, _) = try signedIn(dataDirectory)
        try requireLastFour(r.lastFour, of: record)
        record.kitConfirmed = true
        try record.save(dataDirectory)
    }
}
