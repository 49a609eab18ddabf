/// What went wrong, as a code and facts: never a sentence. Each surface words it (en, de) from its tables,
/// keyed `error.<code>` and `error.<code>.hint`, with the facts as placeholders.
public struct ProtocolError: Error, Codable, Sendable, Equatable {
    public var code: ErrorCode
    public var facts: [String: String]

    public init(_ code: ErrorCode, _ facts: [String: String] = [:]) {
        self.code = code
        self.facts = facts
    }

    /// The same error with more facts (a surface adds what it knows, such as the reference it resolved).
    public func adding(_ more: [String: String]) -> ProtocolError {
        ProtocolError(code, facts.merging(more) { old, _ in old })
    }

    /// The exit code a command line uses for this error: 2 usage, 3 locked or authentication, else 1.
    public var exitCode: Int32 { code.exitCode }
}

/// Every error an operation can answer. The raw values are stable: they are the wire format and the keys of
/// the wording tables.
public enum ErrorCode: String, Codable, Sendable, CaseIterable {
    // Protocol and requests
    case versionMismatch  // facts: client, agent
    /// The agent does not have the operation (an older agent, or one built without it).
    case unsupported  // facts: operation, agent (its generation), since (the generation that has it, when the client knows)
    case badRequest  // facts: reason
    case replyTooLarge  // facts: bytes
    case unknownCategory  // facts: name
    case unknownSort  // facts: name
    case unknownScope  // facts: name
    case unknownFindingKind  // facts: name
    case unknownSetting  // facts: name
    case invalidSetting  // facts: name, value
    case concealedOnCommandLine  // facts: label
    case conflictingOptions  // facts: first, second
    case duplicateField  // facts: label
    case tooManyFields  // facts: count, limit
    case valueTooLong  // facts: label, length, limit
    // Locking and unlocking
    case locked
    case wrongPassword
    case mustWait  // facts: minutes
    case attemptCounterDamaged  // facts: path, minutes
    case passwordUnchanged
    /// The next wrong password would be the tenth in a row: only the unlock prompt tries it (G20).
    case unlockPromptOnly
    case duressSameAsOwn
    case wrongDuressPassword
    /// Duress passwords, phrases, erasing and Delete All Data are for the local vault.
    case localVaultOnly
    case invalidPhrase  // facts: limit
    // Items with their own password
    case cannotProtect  // facts: category
    case alreadyProtected  // facts: title
    case notProtected  // facts: title
    case alwaysProtected  // facts: category
    case itemProtected  // facts: title
    case wrongItemPassword
    case itemPasswordTooShort  // facts: minimum
    case itemPasswordNeeded  // facts: category
    case newerItemSeal  // facts: version
    case notEnoughMemory  // facts: neededMiB, availableMiB
    case neverCopied  // facts: title
    /// The vault is an account's: its password is the master password (`passwd --account`).
    case accountVaultPassword
    case quickUnlockNotOffered  // facts: reason (a key of quickUnlock.*), days
    case quickUnlockRefused  // facts: triesLeft, system
    case quickUnlockUnavailable  // facts: reason
    // The vault file
    case noVault  // facts: path
    case vaultExists  // facts: path
    case notAVault  // facts: path
    case newerFormat  // facts: version
    case damaged  // facts: path, reason
    case busy
    case conflict
    case vaultTooLarge
    case io  // facts: operation, path, reason
    case directoryNotOwned  // facts: path, owner (uid)
    // Items
    case itemNotFound  // facts: reference
    case ambiguousItem  // facts: reference, count, candidates (one per line)
    case itemInTrash  // facts: title, id
    case itemNotInTrash  // facts: title, id
    case versionNotFound  // facts: version, id
    case invalidValue  // facts: message, hint (validation, from the item model's checks)
    case noField  // facts: title, field, id
    case noPassword  // facts: title, id
    // One-time codes
    case noOneTimePassword  // facts: title, id
    case nothingToImport
    case selectionOutOfRange  // facts: count
    // References, fill, check
    case invalidReference  // facts: reference, reason
    case notALogin  // facts: title, id
    case otherSite  // facts: saved, requested
    case passkeyRelyingParty  // facts: rp, origin, reason (notHTTPS, ipAddress, notSuffix, publicSuffix)
    case passkeyNotFound  // facts: rp
    case passkeyExists  // facts: rp, title
    case passkeyAlgorithm  // facts: algorithms
    case notAnAddress  // facts: address
    case breachCheckOff
    case breachCheckFailed  // facts: reason
    case catalogueMissing  // facts: name
    case invalidGenerator  // facts: reason, value
    case libraryMissing  // facts: libraries, packages (space-separated)
    case noDisplay
    case clipboardFailed  // facts: reason
    case internalError  // facts: type
    case parseFailed  // facts: reason (crashed, tooSlow, noAnswer, notStarted, helperMissing, confinement), signal, status, detail: the parse child
    // The account server
    case accountExists
    case accountIDTaken
    case signInFailed
    case challengeExpired
    case notSignedIn
    case notFound  // facts: route
    case serverUnreachable  // facts: server, reason
    case badServerAnswer  // facts: server, status
    /// The server was upgraded past this client: it serves clients from version `oldest` on (HTTP 400).
    case clientTooOld  // facts: oldest, client
    case insecureServer  // facts: server
    case serverParametersRefused  // facts: memoryMiB, passes, lanes
    case serverSaltChanged  // facts: server (the account's salt is not the one this device last signed in with)
    case noAccount
    case rateLimited  // facts: minutes
    /// The server gave up on a request whose body arrived too slowly (HTTP 408).
    case requestTimeout
    case deviceNotFound  // facts: device
    case signupClosed
    case twoFactorRequired
    case twoFactorCodeWrong
    case invitationInvalid  // facts: reason (missing, unknown, used, expired, otherEmail)
    case alreadySignedIn  // facts: email, server
    case notAnEmail  // facts: email
    case masterTooWeak  // facts: score (0-2)
    case secretKeyInvalid  // facts: problem (empty, missingVersion, unknownVersion, invalidCharacter, missing, extra, mistyped) and its facts
    case kitMismatch  // the typed characters are not the Secret Key's last four
    // Sync and vaults
    /// A push was made on a manifest that is no longer the newest (HTTP 409; the client pulls and merges).
    case syncConflict  // facts: vault
    /// What the server sent does not match what this device verified; nothing here was changed.
    case syncRefused  // facts: vault, reason (fork, stepBack, rootMismatch, signature, misplaced, newerEnvelope, malformed, unknownVault)
    /// Syncing needs the account's keys, which this device keeps after one unlock with the master password.
    case syncKeysMissing
    case vaultNotFound  // facts: reference
    case vaultNameInvalid  // facts: reason
    case lastVault  // facts: name (the only vault left cannot be deleted)
    case localVault  // the command needs an account's vault; this data directory serves the local vault
    // Backups
    case noBackupPassword
    case notABackup  // facts: source
    case backupNewerFormat  // facts: version
    case backupTruncated  // facts: source
    case wrongBackupPassword  // the backup's own password does not open it, or it was changed
    case backupTooLarge  // facts: limitMiB
    case backupCodesMissing  // facts: missing (numbers, comma-separated), count, total
    case backupCodeDamaged  // facts: number, total
    case backupCodeOutOfRange  // facts: number, total
    case backupCodeConflict  // facts: number, total
    case backupCodeInvalid
    case noBackupCodes
    case backupFolderInvalid  // facts: path, reason
    case fileExists  // facts: path
    case backupHintInvalid  // facts: limit (one line of at most that many characters)
    case hintRevealsPassword  // the hint holds the backup password or the vault password
    // Imports and exports of other apps' files
    case importNotThisFormat  // facts: format (the file is not of that format)
    case importDamaged  // facts: reason (a few words: a hash, a length, the XML)
    case importTruncated
    case importWrongPassword  // the file's own password or key file does not open it (or it was changed)
    case importUnsupported  // facts: what (a cipher, a key derivation, a version)
    case importTooLarge  // facts: limitMiB
    case importEmpty  // the file holds nothing an import can make
    case importColumnsUnknown  // facts: columns (a CSV's, none of them known, and no mapping)
    case importMappingInvalid  // facts: name (a target or column that does not exist), columns
    case plainExportNotConfirmed  // facts: path (a plain export needs plainConfirmed, set after asking twice)
    case unknownFormat  // facts: format, formats (the ones taken)
    // Attachments
    case attachmentNotFound  // facts: title, attachment (the item has no attachment of that name or id), names
    case attachmentAmbiguous  // facts: title, attachment, count (several attachments have that name: use the id)
    case attachmentMissing  // facts: name (its encrypted file is not on this device)
    case attachmentDamaged  // facts: name, reason (cut short, changed, or another file's)
    case attachmentTooLarge  // facts: limitMiB
    case attachmentUnreadable  // facts: path, reason (the file to attach)
    case attachmentOnLockedItem  // facts: title (the item is locked with its own password; open it first)
    case blobQuotaExceeded  // facts: quotaMiB, usedMiB (the account's storage on the server is full: items, manifests and attachments)
    case blobsMissing  // facts: ids (comma-separated; a push refers to blobs the server lacks: the device sends them again)
    // Web UI
    case webUnavailable  // facts: reason (the agent could not start its web server)
    case imageUnreadable  // facts: message, hint (an image without a readable QR code)
    // The browser extension
    case notPaired  // facts: pending (true while its pairing waits for the user)
    case handshakeFailed  // facts: reason (challenge, signature)
    case pairingNotFound  // facts: pairing
    case pairingCodeWrong
    case pairingsWaiting  // facts: count (that many pairings wait for the user already)
    case agentUnavailable  // facts: socket (browser-host found no agent)
    case browsersFileDamaged  // facts: path
    // Sharing (families and teams)
    case contactNotFound  // facts: email (no account with that email on the server)
    /// The server: the caller is not in the organisation's newest list, or may not do this there (HTTP 403).
    case notAMember  // facts: org
    /// What the server showed of sharing does not verify; nothing was believed or sealed.
    case sharingRefused  // facts: problem (bundleInvalid, listInvalid, listForked, listWentBack, notTheOrganisation, grantRefused, newerFormat, malformed), detail, version, email
    /// A contact's keys changed since this device pinned them: the old pin stays until the codes are compared.
    case contactKeyChanged  // facts: email
    case organisationNotFound  // facts: name
    case invitationLinkInvalid  // facts: problem (noLink, noOrganisation, otherServer), server
    case memberNotFound  // facts: email, org
    /// The organisation would have no owner left (an owner leaving or demoted alone).
    case lastOwner  // facts: org
    /// The vault is shared with this account to view only (or its list is not verified here, or this device
    /// holds no key for it): the item cannot be changed, and the server refuses writes to it (HTTP 403).
    case viewOnly  // facts: vault
    /// A shared vault is renamed, deleted and shared by its organisation's managers (`passbox org`), not here.
    case vaultShared  // facts: vault
    // Device linking (issue 33)
    /// The server has no open link by that id: used, cancelled, or older than 10 minutes (HTTP 404).
    case linkNotFound
    /// The other side's message does not verify under the link's secret: the server, or someone else, answered
    /// in place of the other device. Nothing was sent.
    case linkRefused  // facts: side (new: the new device's hello; old: the old device's reply or seal)
    /// The other device's user said this was not their device, or cancelled; nothing was sent.
    case linkCancelled
    /// A link code or passbox-link: address that does not read.
    case linkInvalid  // facts: problem (format, checksum, server)

    public var exitCode: Int32 {
        switch self {
        case .locked, .wrongPassword, .wrongDuressPassword, .wrongBackupPassword, .wrongItemPassword, .importWrongPassword, .unlockPromptOnly, .mustWait, .attemptCounterDamaged, .quickUnlockNotOffered, .quickUnlockRefused, .signInFailed,
            .challengeExpired, .notSignedIn, .rateLimited, .twoFactorRequired, .twoFactorCodeWrong:
            3
        case .badRequest, .unknownCategory, .unknownSort, .unknownScope, .unknownFindingKind, .unknownSetting, .invalidSetting,
            .concealedOnCommandLine, .conflictingOptions, .selectionOutOfRange, .notAnAddress, .invalidGenerator, .insecureServer, .notAnEmail, .secretKeyInvalid, .unknownFormat, .importMappingInvalid:
            2
        default: 1
        }
    }
}
