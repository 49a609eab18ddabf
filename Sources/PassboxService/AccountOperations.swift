import Foundation
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxKit
import PassboxManifest
import PassboxProtocol
import PassboxStore
import PassboxWording

/// The account's operations for one data directory, shared by the command line (which words them) and the
/// agent (which answers them for the web UI): sign-up and sign-in as this device, the account page, devices,
/// activity (two-factor sign-in, recovery and the Emergency Kit in AccountOperations+Security.swift). Failures are `ProtocolError`s with their facts.
public enum AccountOperations {
    /// A new device's id (12 random bytes, hex) and name (the given one, else "SURFACE on HOST").
    public static func newDevice(name: String?, surface: String = "passbox CLI") -> (id: String, name: String) {
        let id = SecureRandom.bytes(count: 12).map { String(format: "%02x", $0) }.joined()
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, host.count)
        let hostname = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let given = name?.trimmingCharacters(in: .whitespacesAndNewlines)
        return (id, given.flatMap { $0.isEmpty ? nil : String($0.prefix(100)) } ?? "\(surface) on \(hostname.isEmpty ? "Linux" : hostname)")
    }

    /// The address and email of a sign-up or sign-in: the server checked (https, or http to this machine),
    /// the email normalised and shaped like one, and this data directory not signed in yet.
    public static func target(server: String, email: String, dataDirectory: String) throws -> (AccountClient, String) {
        let normalized = SignInTranscript.normalizedEmail(email)
        let bytes = Array(normalized.utf8)
        guard let at = bytes.firstIndex(of: UInt8(ascii: "@")), at > 0, at < bytes.count - 1, bytes.count <= 254, !bytes.contains(where: { $0 < 0x21 || $0 == 0x7F }) else {
            throw ProtocolError(.notAnEmail, ["email": email])
        }
        if let existing = try AccountRecord.load(dataDirectory) {
            throw ProtocolError(.alreadySignedIn, ["email": existing.email, "server": existing.server])
        }
        return (try AccountClient(server: server), normalized)
    }

    /// A new master password must be rated 3/4 or more: with the Secret Key it guards everything on the server.
    public static func checkNewMaster(_ password: SecretText, email: String) throws {
        let text = password.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        if let strength = try? Tools.strength(text, userInputs: [email]), strength.score < 3 {
            throw ProtocolError(.masterTooWeak, ["score": String(strength.score)])
        }
    }

    /// Keeps what a sign-up or sign-in leaves on this device: the account record, the account's vault with
    /// its sync keys, and the parameters used (a server cannot lower them later).
    public static func keep(_ session: AccountClient.SignedIn, secretKey: SecretKey, client: AccountClient, device: (id: String, name: String), in dataDirectory: String) throws {
        try AccountDevice.keep(session, secretKey: secretKey, server: client.origin, deviceID: device.id, deviceName: device.name, in: dataDirectory)
        try KnownAccounts.remember(session.kdf, salt: session.salt, server: client.origin, email: session.email, in: dataDirectory)
    }

    /// Makes the account and signs in as this device. The master password is checked for strength first.
    public static func signUp(_ r: AccountSignUpRequest, dataDirectory: String, surface: String = "passbox CLI") throws -> (SecretKey, AccountClient.SignedIn, AccountClient) {
        let (client, email) = try target(server: r.server, email: r.email, dataDirectory: dataDirectory)
        try checkNewMaster(r.password, email: email)
        let invitation = r.invitation.map { $0.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }.trimmingCharacters(in: .whitespaces) }
        let device = newDevice(name: r.deviceName, surface: surface)
        let (secretKey, session) = try r.password.withUnsafeBytes {
            try client.signup(email: email, password: $0, deviceID: device.id, deviceName: device.name, invitation: invitation?.isEmpty == false ? invitation : nil)
        }
        try keep(session, secretKey: secretKey, client: client, device: device, in: dataDirectory)
        attest(session, client: client, deviceID: device.id, name: device.name, via: "signup")
        return (secretKey, session, client)
    }

    /// Signs in as this device: the Secret Key is checked here before any network call (`secretKeyInvalid`
    /// names what is wrong); a device remembered for the account keeps its id and skips the second factor.
    /// The second factor is `r.code`, or what `secondFactor` answers when the server asks for one (a terminal).
    public static func signIn(
        _ r: AccountSignInRequest, dataDirectory: String, surface: String = "passbox CLI", deviceID: String? = nil, attestation: Data? = nil,
        secondFactor: (() throws -> String)? = nil
    ) throws -> AccountClient.SignedIn {
        let (client, email) = try target(server: r.server, email: r.email, dataDirectory: dataDirectory)
        let secretKey = try parseSecretKey(r.secretKey)
        let known = r.acceptNewParameters ? nil : try KnownAccounts.load(dataDirectory)
        let lastUsed = known?.parameters(server: client.origin, email: email), lastSalt = known?.salt(server: client.origin, email: email)
        let remembered = RememberedDevice.load(dataDirectory, server: client.origin, email: email)
        var device = newDevice(name: r.deviceName, surface: surface)
        if let deviceID { device.id = deviceID } else if let remembered { device.id = remembered.deviceID }
        let code = r.code.map { $0.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
        let session = try r.password.withUnsafeBytes {
            try client.signin(
                email: email, password: $0, secretKey: secretKey, deviceID: device.id, deviceName: device.name, lastUsed: lastUsed, lastSalt: lastSalt,
                rememberToken: remembered?.token, rememberDevice: r.rememberDevice
            ) {
                if let secondFactor { return try secondFactor() }
                guard let code, !code.trimmingCharacters(in: .whitespaces).isEmpty else { throw ProtocolError(.twoFactorRequired) }
                return code
            }
        }
        do {
            try keep(session, secretKey: secretKey, client: client, device: device, in: dataDirectory)
        } catch {
            // Nothing of the session could be kept here: it is ended at the server too (best effort).
            try? AccountRecord.remove(dataDirectory)
            try? client.signout(token: session.token)
            throw error
        }
        if let token = session.rememberToken {
            // Without it the next sign-in asks for the second factor again: nothing is lost.
            try? RememberedDevice(server: client.origin, email: session.email, deviceID: device.id, token: token).save(dataDirectory)
        }
        // The device's signed record: the one the linking device signed when it is good, else its own.
        let signPublicKey = session.syncState.map { Array($0.signPublicKey) } ?? []
        if let attestation, let record = try? DeviceAttestation(decoding: attestation),
            record.isValid(accountID: session.accountID, deviceID: device.id, signPublicKey: signPublicKey)
        {
            try? client.attest(attestation, token: session.token)
        } else {
            attest(session, client: client, deviceID: device.id, name: device.name, via: "password")
        }
        return session
    }

    /// A device signed in before device records existed (issue 33) has none: it signs its own (as signed in with
    /// the master password, which is how it came in), once it finds the server lists none that verifies for it.
    /// Best effort, as every record upload.
    public static func attestIfMissing(record: AccountRecord, syncState: SyncState) {
        guard let client = try? AccountClient(server: record.server), let token = record.token,
            let listed = try? client.account(token: token).devices,
            let own = checkedDevices(listed, record: record).first(where: { $0.deviceID == record.deviceID }), own.signedVia == nil,
            let key = try? SigningKey(seed: SecretBytes(copying: syncState.signSeed))
        else { return }
        let made = DeviceAttestation.make(accountID: record.accountID, deviceID: record.deviceID, name: record.deviceName, via: "password", key: key)
        if let bytes = try? made.encoded() { try? client.attest(bytes, token: token) }
    }

    /// Uploads this device's record, signed by itself with the account's key (best effort: a device without one
    /// is shown as unconfirmed, nothing more).
    static func attest(_ session: AccountClient.SignedIn, client: AccountClient, deviceID: String, name: String, via: String) {
        guard let seed = session.syncState?.signSeed, let key = try? SigningKey(seed: SecretBytes(copying: seed)) else { return }
        let record = DeviceAttestation.make(accountID: session.accountID, deviceID: deviceID, name: name, via: via, key: key)
        if let bytes = try? record.encoded() { try? client.attest(bytes, token: session.token) }
    }

    /// The Secret Key as typed (any case, spaces or dashes, O for 0…), or `secretKeyInvalid` with what is wrong.
    static func parseSecretKey(_ typed: SecretText) throws -> SecretKey {
        do {
            return try typed.withUnsafeBytes { try SecretKey(parsing: String(decoding: $0, as: UTF8.self)) }
        } catch let error as TypedCodeError {
            throw ProtocolError(.secretKeyInvalid, secretKeyFacts(error))
        }
    }

    /// What is wrong with a typed code (Secret Key or recovery code), as facts a surface words.
    public static func secretKeyFacts(_ error: TypedCodeError) -> [String: String] {
        switch error {
        case .empty: ["problem": "empty"]
        case .missingVersion(let expected): ["problem": "missingVersion", "version": expected]
        case .unknownVersion(let found): ["problem": "unknownVersion", "version": found]
        case .invalidCharacter(let character, let position): ["problem": "invalidCharacter", "character": character, "position": String(position)]
        case .charactersMissing(let count, let after): ["problem": "missing", "count": String(count), "version": after]
        case .charactersExtra(let count): ["problem": "extra", "count": String(count)]
        case .mistyped: ["problem": "mistyped"]
        }
    }

    /// The signed-in account of this data directory and a client for its server.
    public static func signedIn(_ dataDirectory: String) throws -> (AccountRecord, AccountClient) {
        guard let record = try AccountRecord.load(dataDirectory) else { throw ProtocolError(.noAccount) }
        return (record, try AccountClient(server: record.server))
    }

    /// What `status` says of the account (nil without one); cheap: one access(2) call without a record.
    public static func brief(_ dataDirectory: String) -> AccountBrief? {
        guard access(AccountRecord.path(dataDirectory), F_OK) == 0, let record = try? AccountRecord.load(dataDirectory) else { return nil }
        var brief = AccountBrief(email: record.email, server: record.server, kitReminder: record.kitConfirmed != true)
        // The sharing warnings this device keeps for the account's server (the page's banner, SHR-17).
        let warnings = (try? SharingFile.load(dataDirectory))?.warnings.filter { $0.server == record.server }.count ?? 0
        brief.sharingWarnings = warnings > 0 ? warnings : nil
        return brief
    }

    /// The account page: the server's facts, devices and second factor, and whether the kit was confirmed here.
    public static func view(_ dataDirectory: String) throws -> AccountView {
        let (record, client) = try signedIn(dataDirectory)
        let token = record.token ?? ""
        let account = try client.account(token: token)
        let twoFactor = try client.twoFactorStatus(token: token)
        let devices = checkedDevices(account.devices, record: record)
        // The families by name, as the page shows them (ACC-11).
        var recovery = try client.recoveryStatus(token: token)
        recovery.organisations = recovery.organisations.map { SharingOperations.recoveryFamilies($0, dataDirectory: dataDirectory) }
        return AccountView(
            server: record.server, email: account.email, accountID: account.accountID, created: account.created, kdf: account.kdf, devices: devices,
            twoFactor: twoFactor, kitConfirmed: record.kitConfirmed == true, storage: account.storage, recovery: recovery)
    }

    /// Each device's record checked here against the account's own signing key (the keyset's public part):
    /// one the server lists without a valid record is one no device of the account signed for. The raw
    /// records are dropped; `signedVia` and `approvedBy` say what verified.
    public static func checkedDevices(_ listed: [DeviceSession], record: AccountRecord) -> [DeviceSession] {
        let signPublicKey = record.keyset.count >= 65 ? Array(record.keyset[33..<65]) : []
        // A record binds a device id and a name, not a session: a server that lists a session of its own under a
        // real device's id (so twice) or under another name gets no verified record for it.
        var seen: [String: Int] = [:]
        for device in listed { seen[device.deviceID, default: 0] += 1 }
        return listed.map { device -> DeviceSession in
            var checked = device
            checked.attestation = nil
            if seen[device.deviceID] == 1, let bytes = device.attestation, let signed = try? DeviceAttestation(decoding: bytes),
                signed.name == device.name, signed.isValid(accountID: record.accountID, deviceID: device.deviceID, signPublicKey: signPublicKey)
            {
                checked.signedVia = signed.via
                checked.approvedBy = signed.approverName
            }
            return checked
        }
    }

    /// The account's last 50 events, as the server keeps them.
    public static func activity(_ dataDirectory: String) throws -> ActivityReply {
        let (record, client) = try signedIn(dataDirectory)
        return try client.activity(token: record.token ?? "")
    }

    /// Signs out another device, or all others (how many), after the master password (a fresh proof of the
    /// sign-in key, counted as unlock attempts are); this device signs out with `passbox signout`.
    public static func signOutDevice(_ r: DeviceSignOutRequest, dataDirectory: String) throws -> Int {
        let (record, client) = try signedIn(dataDirectory)
        if !r.others {
            guard let device = r.device, !device.isEmpty else { throw ProtocolError(.badRequest, ["reason": "no device named"]) }
            guard device != record.deviceID else { throw ProtocolError(.badRequest, ["reason": "this device signs out with passbox signout"]) }
        }
        let proof = try freshProof(SignInTranscript.deviceSignOutLabel, password: r.password, record: record, client: client, dataDirectory: dataDirectory)
        if r.others { return try client.signoutOthers(token: record.token ?? "", proof: proof) }
        try client.signout(device: r.device ?? "", token: record.token ?? "", proof: proof)
        return 1
    }

    /// A fresh proof of this device's sign-in key for `label`, from the master password (a counted attempt).
    static func freshProof(_ label: String, password: SecretText?, record: AccountRecord, client: AccountClient, dataDirectory: String) throws -> FreshProof {
        guard let password else { throw ProtocolError(.wrongPassword) }
        let secretKey = try SecretKey(parsing: record.secretKey)
        return try countingAttempts(dataDirectory, password: password) {
            try password.withUnsafeBytes {
                try client.freshProof(
                    label: label, email: record.email, password: $0, secretKey: secretKey, salt: Array(record.salt), parameters: record.parameters,
                    keyset: Array(record.keyset), deviceID: record.deviceID)
            }
        }
    }

    /// Signs this device out: the session ends at the server (a session already ended there, or a server out
    /// of reach, does not stop it), and the account record with the Secret Key is removed. Whether the server
    /// ended it.
    public static func signOut(_ dataDirectory: String) throws -> Bool {
        let (record, client) = try signedIn(dataDirectory)
        var ended = true
        do {
            try client.signout(token: record.token ?? "")
        } catch let error as ProtocolError where error.code == .notSignedIn || error.code == .serverUnreachable {
            ended = error.code == .notSignedIn
        }
        try AccountRecord.remove(dataDirectory)
        return ended
    }
}
