import Foundation

// The account's operations as the agent answers them (the web UI's account pages and its onboarding). The
// command line talks to the server itself; both go through PassboxService's AccountOperations.

/// Makes an account on `server` as this device (`passbox signup`). The master password must be rated 3/4 or
/// more; the Secret Key made on this device comes back once, in `SignedUpReply`.
public struct AccountSignUpRequest: Codable, Sendable {
    public var server: String
    public var email: String
    public var password: SecretText
    /// The server's invitation, when it takes new accounts by invitation only.
    public var invitation: SecretText?
    public var deviceName: String?

    public init(server: String, email: String, password: SecretText, invitation: SecretText? = nil, deviceName: String? = nil) {
        self.server = server
        self.email = email
        self.password = password
        self.invitation = invitation
        self.deviceName = deviceName
    }
}

/// Signs this device in to an account (`passbox signin`). Without `code`, an account with two-factor
/// sign-in answers `twoFactorRequired`; the request is then sent again with the code (or a recovery code).
public struct AccountSignInRequest: Codable, Sendable {
    public var server: String
    public var email: String
    public var password: SecretText
    public var secretKey: SecretText
    public var code: SecretText?
    public var rememberDevice: Bool
    /// The user changed the account's key-derivation parameters on another device (`--accept-new-parameters`).
    public var acceptNewParameters: Bool
    public var deviceName: String?

    public init(
        server: String, email: String, password: SecretText, secretKey: SecretText, code: SecretText? = nil, rememberDevice: Bool = false,
        acceptNewParameters: Bool = false, deviceName: String? = nil
    ) {
        self.server = server
        self.email = email
        self.password = password
        self.secretKey = secretKey
        self.code = code
        self.rememberDevice = rememberDevice
        self.acceptNewParameters = acceptNewParameters
        self.deviceName = deviceName
    }
}

/// A new account: the Secret Key, shown to the user once (the vault is then open).
public struct SignedUpReply: Codable, Sendable, Equatable {
    public var email: String
    public var server: String
    public var secretKey: String
    public init(email: String, server: String, secretKey: String) {
        self.email = email
        self.server = server
        self.secretKey = secretKey
    }
}

/// The account page: what the server says of the account, its devices and second factor, and whether the
/// Emergency Kit was confirmed on this device.
public struct AccountView: Codable, Sendable, Equatable {
    public var server: String
    public var email: String
    public var accountID: String
    public var created: Date
    public var kdf: KDFParameters
    public var devices: [DeviceSession]
    public var twoFactor: TwoFactorStatus
    public var kitConfirmed: Bool
    /// The account's storage on the server and its quota (nil from a server before issue 28).
    public var storage: StorageUse?
    /// Whether a recovery code is set up and since when, and the families (by name) whose owners may help
    /// the account back in (ACC-11; protocol 17).
    public var recovery: RecoveryStatus?

    public init(
        server: String, email: String, accountID: String, created: Date, kdf: KDFParameters, devices: [DeviceSession], twoFactor: TwoFactorStatus, kitConfirmed: Bool,
        storage: StorageUse? = nil, recovery: RecoveryStatus? = nil
    ) {
        self.storage = storage
        self.recovery = recovery
        self.server = server
        self.email = email
        self.accountID = accountID
        self.created = created
        self.kdf = kdf
        self.devices = devices
        self.twoFactor = twoFactor
        self.kitConfirmed = kitConfirmed
    }
}

/// Signs out one other device (`device`), or every other device (`others`).
public struct DeviceSignOutRequest: Codable, Sendable {
    public var device: String?
    public var others: Bool
    /// The master password: signing other devices out needs a fresh proof of the sign-in key (protocol 12).
    public var password: SecretText?
    public init(device: String? = nil, others: Bool = false, password: SecretText? = nil) {
        self.device = device
        self.others = others
        self.password = password
    }
}

/// A pending second factor: the authenticator app's setup key, its otpauth address and the QR code of it as
/// modules (`size` rows of `size` characters, "1" dark), which the page draws itself.
public struct TwoFactorSetupReply: Codable, Sendable, Equatable {
    public var setupKey: String
    public var uri: String
    public var size: Int
    public var modules: [String]
    public init(setupKey: String, uri: String, size: Int, modules: [String]) {
        self.setupKey = setupKey
        self.uri = uri
        self.size = size
        self.modules = modules
    }
}

/// A code of the authenticator app (turning two-factor sign-in on), or the master password (off).
public struct TwoFactorRequest: Codable, Sendable {
    public var code: SecretText?
    public var password: SecretText?
    public init(code: SecretText? = nil, password: SecretText? = nil) {
        self.code = code
        self.password = password
    }
}

/// The Emergency Kit as a PDF (after the master password), worded in `language` ("en" or "de"); or, with
/// `lastFour`, the kit confirmed by the Secret Key's last four characters.
public struct KitRequest: Codable, Sendable {
    public var password: SecretText?
    public var lastFour: SecretText?
    public var language: String?
    public init(password: SecretText? = nil, lastFour: SecretText? = nil, language: String? = nil) {
        self.password = password
        self.lastFour = lastFour
        self.language = language
    }
}

/// A file the page offers as a download (the Emergency Kit): its name, media type and bytes (base64).
public struct FileReply: Codable, Sendable, Equatable {
    public var name: String
    public var mediaType: String
    public var base64: String
    public init(name: String, mediaType: String, base64: String) {
        self.name = name
        self.mediaType = mediaType
        self.base64 = base64
    }
}

/// Signs this device out (`passbox signout --forget-secret-key`): the session ends at the server where it still
/// can, and the account record with the Secret Key leaves this device; the account's vault stays here,
/// encrypted, and opens again after the next sign-in. `forgetSecretKey` must be true.
public struct AccountSignOutRequest: Codable, Sendable {
    public var forgetSecretKey: Bool
    /// On the lock page ("Use a different account…", ACC-9): the Secret Key's last four characters stand in for
    /// the open vault (protocol 17).
    public var lastFour: SecretText?
    public init(forgetSecretKey: Bool, lastFour: SecretText? = nil) {
        self.forgetSecretKey = forgetSecretKey
        self.lastFour = lastFour
    }
}

/// What `status` says of the account this data directory is signed in to.
public struct AccountBrief: Codable, Sendable, Equatable {
    public var email: String
    public var server: String
    /// The Emergency Kit was not confirmed on this device yet: surfaces remind of it.
    public var kitReminder: Bool
    /// How many sharing warnings this device keeps for the account (nil: none): surfaces show a banner.
    public var sharingWarnings: Int?
    public init(email: String, server: String, kitReminder: Bool, sharingWarnings: Int? = nil) {
        self.email = email
        self.server = server
        self.kitReminder = kitReminder
        self.sharingWarnings = sharingWarnings
    }
}
