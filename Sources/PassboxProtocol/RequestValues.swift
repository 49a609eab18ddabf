import Foundation

/// The requests by operation, as values: `.list(ListRequest(...))`, `.status`.
extension Request {
    public static let status = Request(Operations.status)
    public static func unlock(_ body: UnlockRequest) -> Request { Request(Operations.unlock, body) }
    public static func quickUnlock(_ body: QuickUnlockRequest) -> Request { Request(Operations.quickUnlock, body) }
    public static func lock(_ body: LockRequest) -> Request { Request(Operations.lock, body) }
    public static func changePassword(_ body: ChangePasswordRequest) -> Request { Request(Operations.changePassword, body) }
    public static func list(_ body: ListRequest) -> Request { Request(Operations.list, body) }
    public static func show(_ body: ShowRequest) -> Request { Request(Operations.show, body) }
    public static func field(_ body: FieldRequest) -> Request { Request(Operations.field, body) }
    public static func search(_ body: SearchRequest) -> Request { Request(Operations.search, body) }
    public static func add(_ body: AddRequest) -> Request { Request(Operations.add, body) }
    public static func edit(_ body: EditRequest) -> Request { Request(Operations.edit, body) }
    public static func delete(_ body: ItemRequest) -> Request { Request(Operations.delete, body) }
    public static func history(_ body: ShowRequest) -> Request { Request(Operations.history, body) }
    public static func restoreVersion(_ body: RestoreVersionRequest) -> Request { Request(Operations.restoreVersion, body) }
    public static func trashList(_ body: ListRequest) -> Request { Request(Operations.trashList, body) }
    public static func trashRestore(_ body: ItemRequest) -> Request { Request(Operations.trashRestore, body) }
    public static func trashDelete(_ body: ItemRequest) -> Request { Request(Operations.trashDelete, body) }
    public static let trashEmpty = Request(Operations.trashEmpty)
    public static func code(_ body: ItemRequest) -> Request { Request(Operations.code, body) }
    public static func setOneTimePassword(_ body: SetOneTimePasswordRequest) -> Request { Request(Operations.setOneTimePassword, body) }
    public static func importOneTimePasswords(_ body: ImportRequest) -> Request { Request(Operations.importOneTimePasswords, body) }
    public static func generate(_ body: GeneratorRequest) -> Request { Request(Operations.generate, body) }
    public static func strength(_ body: StrengthRequest) -> Request { Request(Operations.strength, body) }
    public static func check(_ body: CheckRequest) -> Request { Request(Operations.check, body) }
    public static let breachPrefixes = Request(Operations.breachPrefixes)
    public static func dismiss(_ body: DismissRequest) -> Request { Request(Operations.dismiss, body) }
    public static func fixHTTPS(_ body: FixHTTPSRequest) -> Request { Request(Operations.fixHTTPS, body) }
    public static func fill(_ body: FillRequest) -> Request { Request(Operations.fill, body) }
    public static let settings = Request(Operations.settings)
    public static func changeSetting(_ body: SettingRequest) -> Request { Request(Operations.changeSetting, body) }
    public static func resolve(_ body: ResolveRequest) -> Request { Request(Operations.resolve, body) }
    public static func copy(_ body: CopyRequest) -> Request { Request(Operations.copy, body) }
    public static func sync(_ body: SyncRequest) -> Request { Request(Operations.sync, body) }
    public static let vaultList = Request(Operations.vaultList)
    public static func vaultCreate(_ body: VaultCreateRequest) -> Request { Request(Operations.vaultCreate, body) }
    public static func vaultEdit(_ body: VaultEditRequest) -> Request { Request(Operations.vaultEdit, body) }
    public static func vaultDelete(_ body: VaultDeleteRequest) -> Request { Request(Operations.vaultDelete, body) }
    public static func move(_ body: MoveRequest) -> Request { Request(Operations.move, body) }
    public static func createVault(_ body: CreateVaultRequest) -> Request { Request(Operations.createVault, body) }
    public static let webOpen = Request(Operations.webOpen)
    public static func readQR(_ body: ReadQRRequest) -> Request { Request(Operations.readQR, body) }
    public static func accountSignUp(_ body: AccountSignUpRequest) -> Request { Request(Operations.accountSignUp, body) }
    public static func accountSignIn(_ body: AccountSignInRequest) -> Request { Request(Operations.accountSignIn, body) }
    public static let accountView = Request(Operations.accountView)
    public static let accountActivity = Request(Operations.accountActivity)
    public static func deviceSignOut(_ body: DeviceSignOutRequest) -> Request { Request(Operations.deviceSignOut, body) }
    public static func twoFactorEnrol(_ body: TwoFactorRequest) -> Request { Request(Operations.twoFactorEnrol, body) }
    public static func twoFactorConfirm(_ body: TwoFactorRequest) -> Request { Request(Operations.twoFactorConfirm, body) }
    public static func twoFactorDisable(_ body: TwoFactorRequest) -> Request { Request(Operations.twoFactorDisable, body) }
    public static func recoverySetup(_ body: TwoFactorRequest) -> Request { Request(Operations.recoverySetup, body) }
    public static func accountPassword(_ body: ChangePasswordRequest) -> Request { Request(Operations.accountPassword, body) }
    public static func kitPDF(_ body: KitRequest) -> Request { Request(Operations.kitPDF, body) }
    public static func kitConfirm(_ body: KitRequest) -> Request { Request(Operations.kitConfirm, body) }
    public static func accountSignOut(_ body: AccountSignOutRequest) -> Request { Request(Operations.accountSignOut, body) }
    public static func duressSet(_ body: DuressRequest) -> Request { Request(Operations.duressSet, body) }
    public static func duressChange(_ body: DuressRequest) -> Request { Request(Operations.duressChange, body) }
    public static func eraseSetting(_ body: EraseSettingRequest) -> Request { Request(Operations.eraseSetting, body) }
    public static func deleteAllData(_ body: DeleteAllDataRequest) -> Request { Request(Operations.deleteAllData, body) }
    public static func itemProtect(_ body: ProtectItemRequest) -> Request { Request(Operations.itemProtect, body) }
    public static func itemUnprotect(_ body: ProtectItemRequest) -> Request { Request(Operations.itemUnprotect, body) }
    public static func itemOpen(_ body: ProtectItemRequest) -> Request { Request(Operations.itemOpen, body) }
    public static func backupPassword(_ body: BackupPasswordRequest) -> Request { Request(Operations.backupPassword, body) }
    public static let backupView = Request(Operations.backupView)
    public static func backupMake(_ body: BackupMakeRequest) -> Request { Request(Operations.backupMake, body) }
    public static func backupAuto(_ body: BackupAutoRequest) -> Request { Request(Operations.backupAuto, body) }
    public static func backupRestore(_ body: BackupRestoreRequest) -> Request { Request(Operations.backupRestore, body) }
    public static func importItems(_ body: ItemsImportRequest) -> Request { Request(Operations.importItems, body) }
    public static func exportItems(_ body: ItemsExportRequest) -> Request { Request(Operations.exportItems, body) }
    public static func attach(_ body: AttachRequest) -> Request { Request(Operations.attach, body) }
    public static func attachments(_ body: AttachmentsRequest) -> Request { Request(Operations.attachments, body) }
    public static func detach(_ body: AttachmentsRequest) -> Request { Request(Operations.detach, body) }
    public static func saveAttachment(_ body: SaveAttachmentRequest) -> Request { Request(Operations.saveAttachment, body) }
    public static func hello(_ body: HelloRequest) -> Request { Request(Operations.hello, body) }
}
