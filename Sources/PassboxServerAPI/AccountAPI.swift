import Foundation

// The account API of `passbox server` (docs/PROTOCOL.md, "Server API"): JSON bodies under /v1, dates as
// milliseconds, bytes as base64. The server stores and compares only what these carry: public keys,
// ciphertext, salts and parameters — never a password or anything a password guess can be tested against
// without the Secret Key.

/// Argon2id parameters as the wire carries them (the same fields as PassboxCrypto's `Argon2Parameters`).
public struct KDFParameters: Codable, Equatable, Hashable, Sendable {
    public var memoryKiB: UInt32
    public var passes: UInt32
    public var lanes: UInt8

    public init(memoryKiB: UInt32, passes: UInt32, lanes: UInt8) {
        self.memoryKiB = memoryKiB
        self.passes = passes
        self.lanes = lanes
    }
}

/// `POST /v1/signup`: a new account, made on the device.
public struct SignupRequest: Codable, Sendable {
    /// The six-character account id from the Secret Key.
    public var accountID: String
    public var email: String
    public var salt: Data
    public var kdf: KDFParameters
    /// The Ed25519 public key of the sign-in key (from the master password and Secret Key).
    public var signInPublicKey: Data
    /// The keyset: public keys in the clear, private halves sealed under the account unlock key (opaque here).
    public var keyset: Data
    /// The invitation token, on a server that signs up by invitation only.
    public var invitation: String?

    public init(accountID: String, email: String, salt: Data, kdf: KDFParameters, signInPublicKey: Data, keyset: Data, invitation: String? = nil) {
        self.invitation = invitation
        self.accountID = accountID
        self.email = email
        self.salt = salt
        self.kdf = kdf
        self.signInPublicKey = signInPublicKey
        self.keyset = keyset
    }
}

public struct SignupReply: Codable, Sendable {
    public var accountID: String
    public init(accountID: String) { self.accountID = accountID }
}

/// `POST /v1/prelogin`: the salt and parameters for an email. An unknown email gets parameters shaped
/// exactly like a real account's (derived from a server secret), so the answer does not tell whether the
/// account exists.
public struct PreloginRequest: Codable, Sendable {
    public var email: String
    public init(email: String) { self.email = email }
}

public struct PreloginReply: Codable, Equatable, Sendable {
    public var salt: Data
    public var kdf: KDFParameters
    public init(salt: Data, kdf: KDFParameters) {
        self.salt = salt
        self.kdf = kdf
    }
}

/// `POST /v1/signin/challenge`: a fresh random challenge for one email and device, good for one minute and
/// one use. Answered for unknown emails too (the sign-in then fails like a wrong password).
public struct ChallengeRequest: Codable, Sendable {
    public var email: String
    public var deviceID: String
    public init(email: String, deviceID: String) {
        self.email = email
        self.deviceID = deviceID
    }
}

public struct ChallengeReply: Codable, Sendable {
    public var challengeID: String
    public var challenge: Data
    public init(challengeID: String, challenge: Data) {
        self.challengeID = challengeID
        self.challenge = challenge
    }
}

/// `POST /v1/signin`: the signature of `SignInTranscript.bytes(origin:email:challenge:deviceID:)`.
public struct SigninRequest: Codable, Sendable {
    public var challengeID: String
    public var email: String
    public var deviceID: String
    public var deviceName: String
    public var signature: Data
    /// With two-factor sign-in on: the current code of the authenticator app, or one of the recovery codes.
    public var otp: String?
    public var recoveryCode: String?
    /// A token from an earlier sign-in of this device with `rememberDevice`: the second factor is skipped
    /// while it is valid (30 days).
    public var rememberToken: String?
    /// Asks for such a token when the second factor is given now.
    public var rememberDevice: Bool?

    public init(
        challengeID: String, email: String, deviceID: String, deviceName: String, signature: Data, otp: String? = nil, recoveryCode: String? = nil,
        rememberToken: String? = nil, rememberDevice: Bool? = nil
    ) {
        self.otp = otp
        self.recoveryCode = recoveryCode
        self.rememberToken = rememberToken
        self.rememberDevice = rememberDevice
        self.challengeID = challengeID
        self.email = email
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.signature = signature
    }
}

public struct SigninReply: Codable, Sendable {
    /// The session's bearer token (the server keeps only its SHA-256).
    public var token: String
    public var accountID: String
    public var keyset: Data
    /// With `rememberDevice` and a second factor given: the token that skips it on this device for 30 days.
    public var rememberToken: String?
    public init(token: String, accountID: String, keyset: Data, rememberToken: String? = nil) {
        self.token = token
        self.accountID = accountID
        self.keyset = keyset
        self.rememberToken = rememberToken
    }
}

/// One signed-in device of an account.
public struct DeviceSession: Codable, Equatable, Sendable {
    public var deviceID: String
    public var name: String
    public var signedIn: Date
    public var lastSeen: Date
    public var address: String
    /// Whether this is the session that asked.
    public var isCurrent: Bool

    /// The device's record signed with the account's key, as it uploaded it (`POST /v1/devices/attest`); the
    /// server only keeps it.
    public var attestation: Data?
    /// Filled in by the device that reads the list, never by the server: how the record says the device came
    /// in (signup, password, link) once it verified, and the device that let it in.
    public var signedVia: String?
    public var approvedBy: String?

    public init(deviceID: String, name: String, signedIn: Date, lastSeen: Date, address: String, isCurrent: Bool, attestation: Data? = nil) {
        self.attestation = attestation
        self.deviceID = deviceID
        self.name = name
        self.signedIn = signedIn
        self.lastSeen = lastSeen
        self.address = address
        self.isCurrent = isCurrent
    }
}

/// `GET /v1/account` (signed in).
public struct AccountReply: Codable, Sendable {
    public var accountID: String
    public var email: String
    public var created: Date
    public var kdf: KDFParameters
    public var devices: [DeviceSession]
    /// What the account keeps on the server against its quota (issue 28; nil from an older server).
    public var storage: StorageUse?

    public init(accountID: String, email: String, created: Date, kdf: KDFParameters, devices: [DeviceSession], storage: StorageUse? = nil) {
        self.accountID = accountID
        self.email = email
        self.created = created
        self.kdf = kdf
        self.devices = devices
        self.storage = storage
    }
}

/// An account's storage on its server: every item envelope, manifest (with its name envelope) and blob it
/// keeps, in bytes, and the quota they all count against (`passbox server --quota-mib`).
public struct StorageUse: Codable, Sendable, Equatable {
    public var usedBytes: Int64
    public var quotaBytes: Int64
    public init(usedBytes: Int64, quotaBytes: Int64) {
        self.usedBytes = usedBytes
        self.quotaBytes = quotaBytes
    }
}

/// `POST /v1/catalogue/breaches` (Bearer): the breach catalogue the server mirrors (SEC-15). `have`: the SHA-256
/// (hex) of the copy the device keeps; the same one is answered 204 without a body, another 200 with the
/// catalogue's JSON as it is.
public struct CatalogueRequest: Codable, Sendable {
    public var have: String?
    public init(have: String?) { self.have = have }
}

/// `GET /v1/health`.
public struct HealthReply: Codable, Sendable {
    public var status: String
    public var protocolVersion: Int
    public init(status: String, protocolVersion: Int) {
        self.status = status
        self.protocolVersion = protocolVersion
    }
}

/// One event of an account's activity (`GET /v1/activity`, the last 50, newest first). `kind` is one of
/// `signup`, `signin`, `signinFailed` (a sign-in attempt whose signature did not verify: a wrong master
/// password or Secret Key is caught on the device only when its keyset is cached), `signout`,
/// `deviceSignedOut`.
public struct ActivityEvent: Codable, Equatable, Sendable {
    public var kind: String
    public var at: Date
    public var address: String
    public var deviceName: String

    public init(kind: String, at: Date, address: String, deviceName: String) {
        self.kind = kind
        self.at = at
        self.address = address
        self.deviceName = deviceName
    }
}

public struct ActivityReply: Codable, Sendable, Equatable {
    public var events: [ActivityEvent]
    public init(events: [ActivityEvent]) { self.events = events }
}

/// `POST /v1/devices/signout-others`: how many other devices were signed out.
public struct SignedOutReply: Codable, Sendable {
    public var count: Int
    public init(count: Int) { self.count = count }
}

/// `POST /v1/account/password` (signed in): a new master password. The device proves it holds the current
/// sign-in key by signing `SignInTranscript.bytes(label: passwordChangeLabel, …)` over a fresh challenge, and
/// sends the new salt, parameters, sign-in public key and the keyset sealed under the new account unlock key.
/// The Secret Key stays; every other session of the account is signed out.
public struct PasswordChangeRequest: Codable, Sendable {
    public var challengeID: String
    public var signature: Data
    public var salt: Data
    public var kdf: KDFParameters
    public var signInPublicKey: Data
    public var keyset: Data

    public init(challengeID: String, signature: Data, salt: Data, kdf: KDFParameters, signInPublicKey: Data, keyset: Data) {
        self.challengeID = challengeID
        self.signature = signature
        self.salt = salt
        self.kdf = kdf
        self.signInPublicKey = signInPublicKey
        self.keyset = keyset
    }
}

/// A fresh proof of the current sign-in key (a signature over a new challenge of this device, with the
/// operation's own label): what turning two-factor sign-in off needs.
public struct FreshProof: Codable, Sendable {
    public var challengeID: String
    public var signature: Data
    public init(challengeID: String, signature: Data) {
        self.challengeID = challengeID
        self.signature = signature
    }
}

/// `POST /v1/2fa/enrol`: the new TOTP secret (SHA-1, 6 digits, 30 s), pending until confirmed with a code.
public struct TwoFactorEnrolReply: Codable, Sendable {
    public var secret: Data
    public init(secret: Data) { self.secret = secret }
}

/// `POST /v1/2fa/confirm`: a code from the app for the pending secret.
public struct TwoFactorCodeRequest: Codable, Sendable {
    public var code: String
    public init(code: String) { self.code = code }
}

/// The ten recovery codes, shown once (the server keeps their SHA-256).
public struct RecoveryCodesReply: Codable, Sendable, Equatable {
    public var codes: [String]
    public init(codes: [String]) { self.codes = codes }
}

/// `GET /v1/2fa`.
public struct TwoFactorStatus: Codable, Sendable, Equatable {
    public var enabled: Bool
    public var recoveryCodesLeft: Int
    public init(enabled: Bool, recoveryCodesLeft: Int) {
        self.enabled = enabled
        self.recoveryCodesLeft = recoveryCodesLeft
    }
}

/// `POST /v1/recovery` (signed in, with a fresh proof labelled `passbox/v1/recovery-setup`): the recovery
/// code's sign-in public key and the recovery blob (the keyset sealed under the recovery key). Replaces an
/// earlier code.
public struct RecoverySetupRequest: Codable, Sendable {
    public var proof: FreshProof
    public var publicKey: Data
    public var blob: Data
    public init(proof: FreshProof, publicKey: Data, blob: Data) {
        self.proof = proof
        self.publicKey = publicKey
        self.blob = blob
    }
}

/// `GET /v1/recovery`.
public struct RecoveryStatus: Codable, Sendable, Equatable {
    public var configured: Bool
    public var created: Date?
    /// The families whose owners this account lets help it back in (ACC-11).
    public var organisations: [String]?
    public init(configured: Bool, created: Date?) {
        self.configured = configured
        self.created = created
    }
}

/// `POST /v1/recovery/blob`: a challenge (from `/v1/signin/challenge`) signed by the recovery code's key over
/// the transcript labelled `passbox/v1/recovery-auth`. Answers the recovery blob and the account id.
public struct RecoveryProof: Codable, Sendable {
    public var challengeID: String
    public var email: String
    public var deviceID: String
    public var signature: Data
    public init(challengeID: String, email: String, deviceID: String, signature: Data) {
        self.challengeID = challengeID
        self.email = email
        self.deviceID = deviceID
        self.signature = signature
    }
}

public struct RecoveryBlobReply: Codable, Sendable {
    public var accountID: String
    public var blob: Data
    public init(accountID: String, blob: Data) {
        self.accountID = accountID
        self.blob = blob
    }
}

/// `POST /v1/recovery/complete`: a second recovery proof over a new challenge, and the new credentials. Every
/// session ends, the used recovery code is revoked, and this device is signed in (`SigninReply`).
public struct RecoveryCompleteRequest: Codable, Sendable {
    public var proof: RecoveryProof
    public var deviceName: String
    public var salt: Data
    public var kdf: KDFParameters
    public var signInPublicKey: Data
    public var keyset: Data
    public init(proof: RecoveryProof, deviceName: String, salt: Data, kdf: KDFParameters, signInPublicKey: Data, keyset: Data) {
        self.proof = proof
        self.deviceName = deviceName
        self.salt = salt
        self.kdf = kdf
        self.signInPublicKey = signInPublicKey
        self.keyset = keyset
    }
}

/// `POST /v1/devices/attest` (signed in): this session's device record, signed with the account's key
/// (`DeviceAttestation`, at most 2 KiB); the server keeps it for the session's own device id.
public struct DeviceAttestRequest: Codable, Sendable {
    public var attestation: Data
    public init(attestation: Data) { self.attestation = attestation }
}
