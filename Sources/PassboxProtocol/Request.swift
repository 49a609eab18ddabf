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

    /// Whether the operation needs the unlocked vault.
    public var needsVault: Bool {
        switch self {
        case .status, .unlock, .quickUnlock, .lock, .changePassword, .generate, .strength, .settings, .changeSetting, .createVault, .webOpen, .readQR,
            .accountSignUp, .accountSignIn: false
        default: true
        }
    }
}

/// A request: an operation and its parameters. On the wire `{"op": NAME, "body": {...}}`.
public enum Request: Sendable {
    case status
    case unlock(UnlockRequest)
    case quickUnlock(QuickUnlockRequest)
    case lock(LockRequest)
    case changePassword(ChangePasswordRequest)
    case list(ListRequest)
    case show(ShowRequest)
    case field(FieldRequest)
    case search(SearchRequest)
    case add(AddRequest)
    case edit(EditRequest)
    case delete(ItemRequest)
    case history(ShowRequest)
    case restoreVersion(RestoreVersionRequest)
    case trashList(ListRequest)
    case trashRestore(ItemRequest)
    case trashDelete(ItemRequest)
    case trashEmpty
    /// The current code (TOTP) or the next one (HOTP: the counter advances and is saved).
    case code(ItemRequest)
    case setOneTimePassword(SetOneTimePasswordRequest)
    case importOneTimePasswords(ImportRequest)
    case generate(GeneratorRequest)
    case strength(StrengthRequest)
    case check(CheckRequest)
    /// The SHA-1 prefixes to ask the range service for (needs the breach check on).
    case breachPrefixes
    case dismiss(DismissRequest)
    case fixHTTPS(FixHTTPSRequest)
    case fill(FillRequest)
    case settings
    case changeSetting(SettingRequest)
    case resolve(ResolveRequest)
    /// Copy a value to the clipboard (the agent owns the clipboard helpers).
    case copy(CopyRequest)
    case sync(SyncRequest)
    case vaultList
    case vaultCreate(VaultCreateRequest)
    case vaultEdit(VaultEditRequest)
    /// Without `confirm`: what deleting the vault would do; with it, its items go to the trash and it goes.
    case vaultDelete(VaultDeleteRequest)
    case move(MoveRequest)
    case createVault(CreateVaultRequest)
    /// Mints a one-time address for the web UI (served on the agent's socket only, never through the web API).
    case webOpen
    /// The texts of the QR codes in an image (answered as `resolved`).
    case readQR(ReadQRRequest)
    case accountSignUp(AccountSignUpRequest)
    case accountSignIn(AccountSignInRequest)
    case accountView
    case accountActivity
    case deviceSignOut(DeviceSignOutRequest)
    /// The master password in `password` (a fresh proof of the sign-in key, protocol 12).
    case twoFactorEnrol(TwoFactorRequest)
    case twoFactorConfirm(TwoFactorRequest)
    case twoFactorDisable(TwoFactorRequest)
    case kitPDF(KitRequest)
    case kitConfirm(KitRequest)
    case accountSignOut(AccountSignOutRequest)
    case duressSet(DuressRequest)
    case duressChange(DuressRequest)
    case eraseSetting(EraseSettingRequest)
    case deleteAllData(DeleteAllDataRequest)
    case itemProtect(ProtectItemRequest)
    case itemUnprotect(ProtectItemRequest)
    /// The item with its content opened with its own password (nothing is saved).
    case itemOpen(ProtectItemRequest)
    case backupPassword(BackupPasswordRequest)
    case backupView
    case backupMake(BackupMakeRequest)
    case backupAuto(BackupAutoRequest)
    case backupRestore(BackupRestoreRequest)
    case importItems(ItemsImportRequest)
    case exportItems(ItemsExportRequest)
    case attach(AttachRequest)
    case attachments(AttachmentsRequest)
    case detach(AttachmentsRequest)
    case saveAttachment(SaveAttachmentRequest)

    public var operation: OperationName {
        switch self {
        case .status: .status
        case .unlock: .unlock
        case .quickUnlock: .quickUnlock
        case .lock: .lock
        case .changePassword: .changePassword
        case .list: .list
        case .show: .show
        case .field: .field
        case .search: .search
        case .add: .add
        case .edit: .edit
        case .delete: .delete
        case .history: .history
        case .restoreVersion: .restoreVersion
        case .trashList: .trashList
        case .trashRestore: .trashRestore
        case .trashDelete: .trashDelete
        case .trashEmpty: .trashEmpty
        case .code: .code
        case .setOneTimePassword: .setOneTimePassword
        case .importOneTimePasswords: .importOneTimePasswords
        case .generate: .generate
        case .strength: .strength
        case .check: .check
        case .breachPrefixes: .breachPrefixes
        case .dismiss: .dismiss
        case .fixHTTPS: .fixHTTPS
        case .fill: .fill
        case .settings: .settings
        case .changeSetting: .changeSetting
        case .resolve: .resolve
        case .copy: .copy
        case .sync: .sync
        case .vaultList: .vaultList
        case .vaultCreate: .vaultCreate
        case .vaultEdit: .vaultEdit
        case .vaultDelete: .vaultDelete
        case .move: .move
        case .createVault: .createVault
        case .webOpen: .webOpen
        case .readQR: .readQR
        case .accountSignUp: .accountSignUp
        case .accountSignIn: .accountSignIn
        case .accountView: .accountView
        case .accountActivity: .accountActivity
        case .deviceSignOut: .deviceSignOut
        case .twoFactorEnrol: .twoFactorEnrol
        case .twoFactorConfirm: .twoFactorConfirm
        case .twoFactorDisable: .twoFactorDisable
        case .kitPDF: .kitPDF
        case .kitConfirm: .kitConfirm
        case .accountSignOut: .accountSignOut
        case .duressSet: .duressSet
        case .duressChange: .duressChange
        case .eraseSetting: .eraseSetting
        case .deleteAllData: .deleteAllData
        case .itemProtect: .itemProtect
        case .itemUnprotect: .itemUnprotect
        case .itemOpen: .itemOpen
        case .backupPassword: .backupPassword
        case .backupView: .backupView
        case .backupMake: .backupMake
        case .backupAuto: .backupAuto
        case .backupRestore: .backupRestore
        case .importItems: .importItems
        case .exportItems: .exportItems
        case .attach: .attach
        case .attachments: .attachments
        case .detach: .detach
        case .saveAttachment: .saveAttachment
        }
    }
}

extension Request: Codable {
    enum CodingKeys: String, CodingKey { case op, body }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func body<T: Decodable>(_ type: T.Type) throws -> T { try c.decode(type, forKey: .body) }
        switch try c.decode(OperationName.self, forKey: .op) {
        case .status: self = .status
        case .unlock: self = .unlock(try body(UnlockRequest.self))
        case .quickUnlock: self = .quickUnlock(try body(QuickUnlockRequest.self))
        case .lock: self = .lock(try body(LockRequest.self))
        case .changePassword: self = .changePassword(try body(ChangePasswordRequest.self))
        case .list: self = .list(try body(ListRequest.self))
        case .show: self = .show(try body(ShowRequest.self))
        case .field: self = .field(try body(FieldRequest.self))
        case .search: self = .search(try body(SearchRequest.self))
        case .add: self = .add(try body(AddRequest.self))
        case .edit: self = .edit(try body(EditRequest.self))
        case .delete: self = .delete(try body(ItemRequest.self))
        case .history: self = .history(try body(ShowRequest.self))
        case .restoreVersion: self = .restoreVersion(try body(RestoreVersionRequest.self))
        case .trashList: self = .trashList(try body(ListRequest.self))
        case .trashRestore: self = .trashRestore(try body(ItemRequest.self))
        case .trashDelete: self = .trashDelete(try body(ItemRequest.self))
        case .trashEmpty: self = .trashEmpty
        case .code: self = .code(try body(ItemRequest.self))
        case .setOneTimePassword: self = .setOneTimePassword(try body(SetOneTimePasswordRequest.self))
        case .importOneTimePasswords: self = .importOneTimePasswords(try body(ImportRequest.self))
        case .generate: self = .generate(try body(GeneratorRequest.self))
        case .strength: self = .strength(try body(StrengthRequest.self))
        case .check: self = .check(try body(CheckRequest.self))
        case .breachPrefixes: self = .breachPrefixes
        case .dismiss: self = .dismiss(try body(DismissRequest.self))
        case .fixHTTPS: self = .fixHTTPS(try body(FixHTTPSRequest.self))
        case .fill: self = .fill(try body(FillRequest.self))
        case .settings: self = .settings
        case .changeSetting: self = .changeSetting(try body(SettingRequest.self))
        case .resolve: self = .resolve(try body(ResolveRequest.self))
        case .copy: self = .copy(try body(CopyRequest.self))
        case .sync: self = .sync(try body(SyncRequest.self))
        case .vaultList: self = .vaultList
        case .vaultCreate: self = .vaultCreate(try body(VaultCreateRequest.self))
        case .vaultEdit: self = .vaultEdit(try body(VaultEditRequest.self))
        case .vaultDelete: self = .vaultDelete(try body(VaultDeleteRequest.self))
        case .move: self = .move(try body(MoveRequest.self))
        case .createVault: self = .createVault(try body(CreateVaultRequest.self))
        case .webOpen: self = .webOpen
        case .readQR: self = .readQR(try body(ReadQRRequest.self))
        case .accountSignUp: self = .accountSignUp(try body(AccountSignUpRequest.self))
        case .accountSignIn: self = .accountSignIn(try body(AccountSignInRequest.self))
        case .accountView: self = .accountView
        case .accountActivity: self = .accountActivity
        case .deviceSignOut: self = .deviceSignOut(try body(DeviceSignOutRequest.self))
        case .twoFactorEnrol: self = .twoFactorEnrol(try body(TwoFactorRequest.self))
        case .twoFactorConfirm: self = .twoFactorConfirm(try body(TwoFactorRequest.self))
        case .twoFactorDisable: self = .twoFactorDisable(try body(TwoFactorRequest.self))
        case .kitPDF: self = .kitPDF(try body(KitRequest.self))
        case .kitConfirm: self = .kitConfirm(try body(KitRequest.self))
        case .accountSignOut: self = .accountSignOut(try body(AccountSignOutRequest.self))
        case .duressSet: self = .duressSet(try body(DuressRequest.self))
        case .duressChange: self = .duressChange(try body(DuressRequest.self))
        case .eraseSetting: self = .eraseSetting(try body(EraseSettingRequest.self))
        case .deleteAllData: self = .deleteAllData(try body(DeleteAllDataRequest.self))
        case .itemProtect: self = .itemProtect(try body(ProtectItemRequest.self))
        case .itemUnprotect: self = .itemUnprotect(try body(ProtectItemRequest.self))
        case .itemOpen: self = .itemOpen(try body(ProtectItemRequest.self))
        case .backupPassword: self = .backupPassword(try body(BackupPasswordRequest.self))
        case .backupView: self = .backupView
        case .backupMake: self = .backupMake(try body(BackupMakeRequest.self))
        case .backupAuto: self = .backupAuto(try body(BackupAutoRequest.self))
        case .backupRestore: self = .backupRestore(try body(BackupRestoreRequest.self))
        case .importItems: self = .importItems(try body(ItemsImportRequest.self))
        case .exportItems: self = .exportItems(try body(ItemsExportRequest.self))
        case .attach: self = .attach(try body(AttachRequest.self))
        case .attachments: self = .attachments(try body(AttachmentsRequest.self))
        case .detach: self = .detach(try body(AttachmentsRequest.self))
        case .saveAttachment: self = .saveAttachment(try body(SaveAttachmentRequest.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(operation, forKey: .op)
        switch self {
        case .status, .trashEmpty, .settings, .breachPrefixes, .vaultList, .webOpen, .accountView, .accountActivity, .backupView: break
        case .unlock(let b): try c.encode(b, forKey: .body)
        case .quickUnlock(let b): try c.encode(b, forKey: .body)
        case .lock(let b): try c.encode(b, forKey: .body)
        case .changePassword(let b): try c.encode(b, forKey: .body)
        case .list(let b), .trashList(let b): try c.encode(b, forKey: .body)
        case .show(let b), .history(let b): try c.encode(b, forKey: .body)
        case .field(let b): try c.encode(b, forKey: .body)
        case .search(let b): try c.encode(b, forKey: .body)
        case .add(let b): try c.encode(b, forKey: .body)
        case .edit(let b): try c.encode(b, forKey: .body)
        case .delete(let b), .trashRestore(let b), .trashDelete(let b), .code(let b): try c.encode(b, forKey: .body)
        case .restoreVersion(let b): try c.encode(b, forKey: .body)
        case .setOneTimePassword(let b): try c.encode(b, forKey: .body)
        case .importOneTimePasswords(let b): try c.encode(b, forKey: .body)
        case .generate(let b): try c.encode(b, forKey: .body)
        case .strength(let b): try c.encode(b, forKey: .body)
        case .check(let b): try c.encode(b, forKey: .body)
        case .dismiss(let b): try c.encode(b, forKey: .body)
        case .fixHTTPS(let b): try c.encode(b, forKey: .body)
        case .fill(let b): try c.encode(b, forKey: .body)
        case .changeSetting(let b): try c.encode(b, forKey: .body)
        case .resolve(let b): try c.encode(b, forKey: .body)
        case .copy(let b): try c.encode(b, forKey: .body)
        case .sync(let b): try c.encode(b, forKey: .body)
        case .vaultCreate(let b): try c.encode(b, forKey: .body)
        case .vaultEdit(let b): try c.encode(b, forKey: .body)
        case .vaultDelete(let b): try c.encode(b, forKey: .body)
        case .move(let b): try c.encode(b, forKey: .body)
        case .createVault(let b): try c.encode(b, forKey: .body)
        case .readQR(let b): try c.encode(b, forKey: .body)
        case .accountSignUp(let b): try c.encode(b, forKey: .body)
        case .accountSignIn(let b): try c.encode(b, forKey: .body)
        case .deviceSignOut(let b): try c.encode(b, forKey: .body)
        case .twoFactorEnrol(let b), .twoFactorConfirm(let b), .twoFactorDisable(let b): try c.encode(b, forKey: .body)
        case .kitPDF(let b), .kitConfirm(let b): try c.encode(b, forKey: .body)
        case .accountSignOut(let b): try c.encode(b, forKey: .body)
        case .duressSet(let b), .duressChange(let b): try c.encode(b, forKey: .body)
        case .eraseSetting(let b): try c.encode(b, forKey: .body)
        case .deleteAllData(let b): try c.encode(b, forKey: .body)
        case .itemProtect(let b), .itemUnprotect(let b), .itemOpen(let b): try c.encode(b, forKey: .body)
        case .backupPassword(let b): try c.encode(b, forKey: .body)
        case .backupMake(let b): try c.encode(b, forKey: .body)
        case .backupAuto(let b): try c.encode(b, forKey: .body)
        case .backupRestore(let b): try c.encode(b, forKey: .body)
        case .importItems(let b): try c.encode(b, forKey: .body)
        case .exportItems(let b): try c.encode(b, forKey: .body)
        case .attach(let b): try c.encode(b, forKey: .body)
        case .attachments(let b): try c.encode(b, forKey: .body)
        case .detach(let b): try c.encode(b, forKey: .body)
        case .saveAttachment(let b): try c.encode(b, forKey: .body)
        }
    }
}

extension Request {
    /// Whether the request holds `SecretText` values (sent after its JSON).
    public var carriesSecrets: Bool {
        switch self {
        case .unlock, .quickUnlock, .changePassword, .createVault, .strength, .accountSignUp, .accountSignIn, .twoFactorEnrol, .twoFactorConfirm, .twoFactorDisable, .kitPDF,
            .kitConfirm,
            .duressSet, .duressChange, .eraseSetting, .deleteAllData, .itemProtect, .itemUnprotect, .itemOpen, .backupPassword, .backupRestore: true
        case .importItems(let r): r.password != nil
        case .exportItems(let r): r.password != nil
        case .add(let r): r.itemPassword != nil
        case .deviceSignOut(let r): r.password != nil
        default: false
        }
    }
}
