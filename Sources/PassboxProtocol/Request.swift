import Foundation

/// Every operation the agent serves (and the web UI's JSON API will): the wire name of each request.
public enum OperationName: String, Codable, Sendable, CaseIterable {
    case status, unlock, quickUnlock = "quick-unlock", lock, changePassword = "change-password"
    case list, show, field, search, add, edit, delete, history, restoreVersion = "restore-version"
    case trashList = "trash-list", trashRestore = "trash-restore", trashDelete = "trash-delete", trashEmpty = "trash-empty"
    case code, setOneTimePassword = "set-one-time-password", importOneTimePasswords = "import-one-time-passwords"
    case generate, strength, check, breachPrefixes = "breach-prefixes", dismiss, fixHTTPS = "fix-https", fill, settings
    case changeSetting = "change-setting", resolve, copy
    case sync, vaultList = "vault-list", vaultCreate = "vault-create", vaultEdit = "vault-edit", vaultDelete = "vault-delete", move
    case createVault = "create-vault", webOpen = "web-open", readQR = "read-qr"
    case accountSignUp = "account-signup", accountSignIn = "account-signin", accountView = "account-view", accountActivity = "account-activity"
    case deviceSignOut = "device-signout", twoFactorEnrol = "two-factor-enrol", twoFactorConfirm = "two-factor-confirm"
    case twoFactorDisable = "two-factor-disable", kitPDF = "kit-pdf", kitConfirm = "kit-confirm", accountSignOut = "account-signout"
    case duressSet = "duress-set", duressChange = "duress-change", eraseSetting = "erase-setting", deleteAllData = "delete-all-data"
    case itemProtect = "item-protect", itemUnprotect = "item-unprotect", itemOpen = "item-open"
    case backupPassword = "backup-password", backupView = "backup-view", backupMake = "backup-make", backupAuto = "backup-auto", backupRestore = "backup-restore"
    case importItems = "import-items", exportItems = "export-items"
    case attach, attachments, detach, saveAttachment = "save-attachment"
    case hello
    case browserPairBegin = "browser-pair-begin", browserPairConfirm = "browser-pair-confirm", browserPairings = "browser-pairings"
    case browserRemove = "browser-remove", browserChallenge = "browser-challenge", browserProve = "browser-prove"
    case browserCandidates = "browser-candidates", browserFill = "browser-fill", browserSearch = "browser-search"
    case browserOffer = "browser-offer", browserSave = "browser-save", browserGenerate = "browser-generate", browserSession = "browser-session"
    case sharing, orgShow = "org-show", orgChange = "org-change", orgAccept = "org-accept", securityCode = "security-code"
    case linkOpen = "link-open", linkWait = "link-wait", linkConfirm = "link-confirm", linkBegin = "link-begin", linkAnswer = "link-answer", linkFinish = "link-finish"
    case breachRanges = "breach-ranges"
    case recoverySetup = "recovery-setup", accountPassword = "account-password"
    case browserPasskeys = "browser-passkeys", browserPasskeySign = "browser-passkey-sign", browserPasskeyCreate = "browser-passkey-create"

    /// Whether the operation needs the unlocked vault.
    public var needsVault: Bool { OperationRegistry.current.spec(self)?.needsVault ?? true }
}

