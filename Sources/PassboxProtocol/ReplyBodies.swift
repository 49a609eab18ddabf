import Foundation

// Each reply body knows its case: an operation's `Answer` is checked by the compiler, read by `answer`.
extension StatusReply: ReplyBody {
    public var reply: Reply { .status(self) }
    public static func from(_ reply: Reply) -> StatusReply? { if case .status(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.status] }
}
extension ItemListReply: ReplyBody {
    public var reply: Reply { .items(self) }
    public static func from(_ reply: Reply) -> ItemListReply? { if case .items(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.items] }
}
extension ItemDetail: ReplyBody {
    public var reply: Reply { .item(self) }
    public static func from(_ reply: Reply) -> ItemDetail? { if case .item(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.item] }
}
extension ValueReply: ReplyBody {
    public var reply: Reply { .value(self) }
    public static func from(_ reply: Reply) -> ValueReply? { if case .value(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.value] }
}
extension SavedReply: ReplyBody {
    public var reply: Reply { .saved(self) }
    public static func from(_ reply: Reply) -> SavedReply? { if case .saved(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.saved] }
}
extension HistoryReply: ReplyBody {
    public var reply: Reply { .history(self) }
    public static func from(_ reply: Reply) -> HistoryReply? { if case .history(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.history] }
}
extension CountReply: ReplyBody {
    public var reply: Reply { .count(self) }
    public static func from(_ reply: Reply) -> CountReply? { if case .count(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.count] }
}
extension CodeReply: ReplyBody {
    public var reply: Reply { .code(self) }
    public static func from(_ reply: Reply) -> CodeReply? { if case .code(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.code] }
}
extension ImportReply: ReplyBody {
    public var reply: Reply { .imported(self) }
    public static func from(_ reply: Reply) -> ImportReply? { if case .imported(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.imported] }
}
extension GeneratedReply: ReplyBody {
    public var reply: Reply { .generated(self) }
    public static func from(_ reply: Reply) -> GeneratedReply? { if case .generated(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.generated] }
}
extension StrengthReply: ReplyBody {
    public var reply: Reply { .strength(self) }
    public static func from(_ reply: Reply) -> StrengthReply? { if case .strength(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.strength] }
}
extension CheckReply: ReplyBody {
    public var reply: Reply { .check(self) }
    public static func from(_ reply: Reply) -> CheckReply? { if case .check(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.check] }
}
extension FillReply: ReplyBody {
    public var reply: Reply { .fill(self) }
    public static func from(_ reply: Reply) -> FillReply? { if case .fill(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.fill] }
}
extension SettingsView: ReplyBody {
    public var reply: Reply { .settings(self) }
    public static func from(_ reply: Reply) -> SettingsView? { if case .settings(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.settings] }
}
extension ResolveReply: ReplyBody {
    public var reply: Reply { .resolved(self) }
    public static func from(_ reply: Reply) -> ResolveReply? { if case .resolved(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.resolved] }
}
extension RangesReply: ReplyBody {
    public var reply: Reply { .ranges(self) }
    public static func from(_ reply: Reply) -> RangesReply? { if case .ranges(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.ranges] }
}

extension PrefixesReply: ReplyBody {
    public var reply: Reply { .prefixes(self) }
    public static func from(_ reply: Reply) -> PrefixesReply? { if case .prefixes(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.prefixes] }
}
extension SyncReply: ReplyBody {
    public var reply: Reply { .synced(self) }
    public static func from(_ reply: Reply) -> SyncReply? { if case .synced(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.synced] }
}
extension VaultListReply: ReplyBody {
    public var reply: Reply { .vaults(self) }
    public static func from(_ reply: Reply) -> VaultListReply? { if case .vaults(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.vaults] }
}
extension VaultView: ReplyBody {
    public var reply: Reply { .vault(self) }
    public static func from(_ reply: Reply) -> VaultView? { if case .vault(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.vault] }
}
extension VaultDeletedReply: ReplyBody {
    public var reply: Reply { .vaultDeleted(self) }
    public static func from(_ reply: Reply) -> VaultDeletedReply? { if case .vaultDeleted(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.vaultDeleted] }
}
extension WebOpenReply: ReplyBody {
    public var reply: Reply { .web(self) }
    public static func from(_ reply: Reply) -> WebOpenReply? { if case .web(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.web] }
}
extension SignedUpReply: ReplyBody {
    public var reply: Reply { .signedUp(self) }
    public static func from(_ reply: Reply) -> SignedUpReply? { if case .signedUp(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.signedUp] }
}
extension AccountView: ReplyBody {
    public var reply: Reply { .account(self) }
    public static func from(_ reply: Reply) -> AccountView? { if case .account(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.account] }
}
extension ActivityReply: ReplyBody {
    public var reply: Reply { .activity(self) }
    public static func from(_ reply: Reply) -> ActivityReply? { if case .activity(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.activity] }
}
extension TwoFactorSetupReply: ReplyBody {
    public var reply: Reply { .twoFactorSetup(self) }
    public static func from(_ reply: Reply) -> TwoFactorSetupReply? { if case .twoFactorSetup(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.twoFactorSetup] }
}
extension RecoveryCodesReply: ReplyBody {
    public var reply: Reply { .recoveryCodes(self) }
    public static func from(_ reply: Reply) -> RecoveryCodesReply? { if case .recoveryCodes(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.recoveryCodes] }
}
extension FileReply: ReplyBody {
    public var reply: Reply { .file(self) }
    public static func from(_ reply: Reply) -> FileReply? { if case .file(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.file] }
}
extension BackupView: ReplyBody {
    public var reply: Reply { .backup(self) }
    public static func from(_ reply: Reply) -> BackupView? { if case .backup(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.backup] }
}
extension BackupMadeReply: ReplyBody {
    public var reply: Reply { .backupMade(self) }
    public static func from(_ reply: Reply) -> BackupMadeReply? { if case .backupMade(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.backupMade] }
}
extension RestoredReply: ReplyBody {
    public var reply: Reply { .restored(self) }
    public static func from(_ reply: Reply) -> RestoredReply? { if case .restored(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.restored] }
}
extension ImportPreviewReply: ReplyBody {
    public var reply: Reply { .importPreview(self) }
    public static func from(_ reply: Reply) -> ImportPreviewReply? { if case .importPreview(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.importPreview] }
}
extension ExportedReply: ReplyBody {
    public var reply: Reply { .exported(self) }
    public static func from(_ reply: Reply) -> ExportedReply? { if case .exported(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.exported] }
}
extension AttachmentsReply: ReplyBody {
    public var reply: Reply { .attachments(self) }
    public static func from(_ reply: Reply) -> AttachmentsReply? { if case .attachments(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.attachments] }
}
extension AttachmentSavedReply: ReplyBody {
    public var reply: Reply { .attachmentSaved(self) }
    public static func from(_ reply: Reply) -> AttachmentSavedReply? { if case .attachmentSaved(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.attachmentSaved] }
}
extension HelloReply: ReplyBody {
    public var reply: Reply { .hello(self) }
    public static func from(_ reply: Reply) -> HelloReply? { if case .hello(let v) = reply { v } else { nil } }
    public static var kinds: [Reply.Kind] { [.hello] }
}
