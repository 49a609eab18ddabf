import Foundation

// What each request body tells the frame (secrets after the JSON), the web API (a body naming the agent's
// files is refused) and a command without an agent (the open vault's password it carries).

extension UnlockRequest: RequestBody {
    public var carriesSecrets: Bool { true }
}
extension QuickUnlockRequest: RequestBody {
    public var carriesSecrets: Bool { true }
}
extension LockRequest: RequestBody {}
extension ChangePasswordRequest: RequestBody {
    public var carriesSecrets: Bool { true }
}
extension ListRequest: RequestBody {}
extension ShowRequest: RequestBody {}
extension FieldRequest: RequestBody {}
extension SearchRequest: RequestBody {}
extension AddRequest: RequestBody {
    public var carriesSecrets: Bool { itemPassword != nil }
}
extension EditRequest: RequestBody {}
extension ItemRequest: RequestBody {}
extension RestoreVersionRequest: RequestBody {}
extension SetOneTimePasswordRequest: RequestBody {}
extension ImportRequest: RequestBody {}
extension GeneratorRequest: RequestBody {}
extension StrengthRequest: RequestBody {
    public var carriesSecrets: Bool { true }
}
extension CheckRequest: RequestBody {}
extension DismissRequest: RequestBody {}
extension FixHTTPSRequest: RequestBody {}
extension BreachRangesRequest: RequestBody {}
extension FillRequest: RequestBody {}
extension SettingRequest: RequestBody {}
extension ResolveRequest: RequestBody {}
extension CopyRequest: RequestBody {}
extension SyncRequest: RequestBody {}
extension VaultCreateRequest: RequestBody {}
extension VaultEditRequest: RequestBody {}
extension VaultDeleteRequest: RequestBody {}
extension MoveRequest: RequestBody {}
extension CreateVaultRequest: RequestBody {
    public var carriesSecrets: Bool { true }
}
extension ReadQRRequest: RequestBody {}
extension AccountSignUpRequest: RequestBody {
    public var carriesSecrets: Bool { true }
}
extension AccountSignInRequest: RequestBody {
    public var carriesSecrets: Bool { true }
}
extension DeviceSignOutRequest: RequestBody {
    public var carriesSecrets: Bool { password != nil }
}
extension TwoFactorRequest: RequestBody {
    public var carriesSecrets: Bool { true }
}
extension KitRequest: RequestBody {
    public var carriesSecrets: Bool { true }
}
extension AccountSignOutRequest: RequestBody {
    public var carriesSecrets: Bool { lastFour != nil }
}
extension DuressRequest: RequestBody {
    public var carriesSecrets: Bool { true }
    public var currentPassword: SecretText? { current }
}
extension EraseSettingRequest: RequestBody {
    public var carriesSecrets: Bool { true }
    public var currentPassword: SecretText? { current }
}
extension DeleteAllDataRequest: RequestBody {
    public var carriesSecrets: Bool { true }
    public var currentPassword: SecretText? { current }
}
extension ProtectItemRequest: RequestBody {
    public var carriesSecrets: Bool { true }
}
extension BackupPasswordRequest: RequestBody {
    public var carriesSecrets: Bool { true }
    public var currentPassword: SecretText? { current }
}
extension BackupMakeRequest: RequestBody {
    public var webRefusal: String? { path != nil ? "the web UI's backups come back as downloads, not paths" : nil }
}
extension BackupAutoRequest: RequestBody {}
extension BackupRestoreRequest: RequestBody {
    public var carriesSecrets: Bool { true }
    public var webRefusal: String? { path != nil ? "the web UI restores what it uploads, not paths" : nil }
}
extension ItemsImportRequest: RequestBody {
    public var carriesSecrets: Bool { password != nil }
    public var webRefusal: String? { path != nil || keyFilePath != nil ? "the web UI imports what it uploads, not paths" : nil }
}
extension ItemsExportRequest: RequestBody {
    public var carriesSecrets: Bool { password != nil }
    public var webRefusal: String? { path != nil ? "the web UI's exports come back as downloads, not paths" : nil }
}
extension AttachRequest: RequestBody {
    public var webRefusal: String? { path != nil ? "the web UI attaches what it uploads, not paths" : nil }
}
extension AttachmentsRequest: RequestBody {}
extension SaveAttachmentRequest: RequestBody {
    public var webRefusal: String? { path != nil ? "the web UI downloads attachments, it names no file of the agent's" : nil }
}
