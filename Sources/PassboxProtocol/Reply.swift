import Foundation

/// A reply: one typed value per kind of answer, or an error. On the wire `{"kind": NAME, "body": {...}}`.
public enum Reply: Sendable, Equatable {
    case done
    case status(StatusReply)
    case items(ItemListReply)
    case item(ItemDetail)
    case value(ValueReply)
    case saved(SavedReply)
    case history(HistoryReply)
    case count(CountReply)
    case code(CodeReply)
    case imported(ImportReply)
    case generated(GeneratedReply)
    case strength(StrengthReply)
    case check(CheckReply)
    case fill(FillReply)
    case settings(SettingsView)
    case resolved(ResolveReply)
    case prefixes(PrefixesReply)
    case synced(SyncReply)
    case vaults(VaultListReply)
    case vault(VaultView)
    case vaultDeleted(VaultDeletedReply)
    case web(WebOpenReply)
    case signedUp(SignedUpReply)
    case account(AccountView)
    case activity(ActivityReply)
    case twoFactorSetup(TwoFactorSetupReply)
    case recoveryCodes(RecoveryCodesReply)
    case file(FileReply)
    case backup(BackupView)
    case backupMade(BackupMadeReply)
    case restored(RestoredReply)
    case importPreview(ImportPreviewReply)
    case exported(ExportedReply)
    case attachments(AttachmentsReply)
    case attachmentSaved(AttachmentSavedReply)
    case hello(HelloReply)
    case browserPairing(BrowserPairingReply)
    case browserChallenge(BrowserChallengeReply)
    case browserSession(BrowserSessionReply)
    case browserFill(BrowserFillReply)
    case browserOffer(BrowserOfferReply)
    case browserPairings(BrowserPairingsReply)
    case sharing(SharingReply)
    case org(OrgReply)
    case invitation(InvitationReply)
    case securityCode(SecurityCodeReply)
    case linkOffer(LinkOfferReply)
    case linkStatus(LinkStatusReply)
    case ranges(RangesReply)
    case passkeys(PasskeysReply)
    case passkeySigned(PasskeySignedReply)
    case passkeyCreated(PasskeyCreatedReply)
    case failure(ProtocolError)

    public enum Kind: String, Codable, Sendable {
        case done, status, items, item, value, saved, history, count, code, imported, generated, strength, check, fill, settings, resolved, prefixes
        case synced, vaults, vault, vaultDeleted, web, signedUp, account, activity, twoFactorSetup, recoveryCodes, file, backup, backupMade, restored
        case importPreview, exported, attachments, attachmentSaved, hello
        case browserPairing, browserChallenge, browserSession, browserFill, browserOffer, browserPairings
        case sharing, org, invitation, securityCode, linkOffer, linkStatus
        case ranges
        case passkeys, passkeySigned, passkeyCreated
        case failure
    }

    public var kind: Kind {
        switch self {
        case .done: .done
        case .status: .status
        case .items: .items
        case .item: .item
        case .value: .value
        case .saved: .saved
        case .history: .history
        case .count: .count
        case .code: .code
        case .imported: .imported
        case .generated: .generated
        case .strength: .strength
        case .check: .check
        case .fill: .fill
        case .settings: .settings
        case .resolved: .resolved
        case .prefixes: .prefixes
        case .synced: .synced
        case .vaults: .vaults
        case .vault: .vault
        case .vaultDeleted: .vaultDeleted
        case .web: .web
        case .signedUp: .signedUp
        case .account: .account
        case .activity: .activity
        case .twoFactorSetup: .twoFactorSetup
        case .recoveryCodes: .recoveryCodes
        case .file: .file
        case .backup: .backup
        case .backupMade: .backupMade
        case .restored: .restored
        case .importPreview: .importPreview
        case .exported: .exported
        case .attachments: .attachments
        case .attachmentSaved: .attachmentSaved
        case .hello: .hello
        case .browserPairing: .browserPairing
        case .browserChallenge: .browserChallenge
        case .browserSession: .browserSession
        case .browserFill: .browserFill
        case .browserOffer: .browserOffer
        case .browserPairings: .browserPairings
        case .sharing: .sharing
        case .org: .org
        case .invitation: .invitation
        case .securityCode: .securityCode
        case .linkOffer: .linkOffer
        case .linkStatus: .linkStatus
        case .ranges: .ranges
        case .passkeys: .passkeys
        case .passkeySigned: .passkeySigned
        case .passkeyCreated: .passkeyCreated
        case .failure: .failure
        }
    }
}

extension Reply: Codable {
    enum CodingKeys: String, CodingKey { case kind, body }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func body<T: Decodable>(_ type: T.Type) throws -> T { try c.decode(type, forKey: .body) }
        switch try c.decode(Kind.self, forKey: .kind) {
        case .done: self = .done
        case .status: self = .status(try body(StatusReply.self))
        case .items: self = .items(try body(ItemListReply.self))
        case .item: self = .item(try body(ItemDetail.self))
        case .value: self = .value(try body(ValueReply.self))
        case .saved: self = .saved(try body(SavedReply.self))
        case .history: self = .history(try body(HistoryReply.self))
        case .count: self = .count(try body(CountReply.self))
        case .code: self = .code(try body(CodeReply.self))
        case .imported: self = .imported(try body(ImportReply.self))
        case .generated: self = .generated(try body(GeneratedReply.self))
        case .strength: self = .strength(try body(StrengthReply.self))
        case .check: self = .check(try body(CheckReply.self))
        case .fill: self = .fill(try body(FillReply.self))
        case .settings: self = .settings(try body(SettingsView.self))
        case .resolved: self = .resolved(try body(ResolveReply.self))
        case .prefixes: self = .prefixes(try body(PrefixesReply.self))
        case .synced: self = .synced(try body(SyncReply.self))
        case .vaults: self = .vaults(try body(VaultListReply.self))
        case .vault: self = .vault(try body(VaultView.self))
        case .vaultDeleted: self = .vaultDeleted(try body(VaultDeletedReply.self))
        case .web: self = .web(try body(WebOpenReply.self))
        case .signedUp: self = .signedUp(try body(SignedUpReply.self))
        case .account: self = .account(try body(AccountView.self))
        case .activity: self = .activity(try body(ActivityReply.self))
        case .twoFactorSetup: self = .twoFactorSetup(try body(TwoFactorSetupReply.self))
        case .recoveryCodes: self = .recoveryCodes(try body(RecoveryCodesReply.self))
        case .file: self = .file(try body(FileReply.self))
        case .backup: self = .backup(try body(BackupView.self))
        case .backupMade: self = .backupMade(try body(BackupMadeReply.self))
        case .restored: self = .restored(try body(RestoredReply.self))
        case .importPreview: self = .importPreview(try body(ImportPreviewReply.self))
        case .exported: self = .exported(try body(ExportedReply.self))
        case .attachments: self = .attachments(try body(AttachmentsReply.self))
        case .attachmentSaved: self = .attachmentSaved(try body(AttachmentSavedReply.self))
        case .hello: self = .hello(try body(HelloReply.self))
        case .browserPairing: self = .browserPairing(try body(BrowserPairingReply.self))
        case .browserChallenge: self = .browserChallenge(try body(BrowserChallengeReply.self))
        case .browserSession: self = .browserSession(try body(BrowserSessionReply.self))
        case .browserFill: self = .browserFill(try body(BrowserFillReply.self))
        case .browserOffer: self = .browserOffer(try body(BrowserOfferReply.self))
        case .browserPairings: self = .browserPairings(try body(BrowserPairingsReply.self))
        case .sharing: self = .sharing(try body(SharingReply.self))
        case .org: self = .org(try body(OrgReply.self))
        case .invitation: self = .invitation(try body(InvitationReply.self))
        case .securityCode: self = .securityCode(try body(SecurityCodeReply.self))
        case .linkOffer: self = .linkOffer(try body(LinkOfferReply.self))
        case .linkStatus: self = .linkStatus(try body(LinkStatusReply.self))
        case .ranges: self = .ranges(try body(RangesReply.self))
        case .passkeys: self = .passkeys(try body(PasskeysReply.self))
        case .passkeySigned: self = .passkeySigned(try body(PasskeySignedReply.self))
        case .passkeyCreated: self = .passkeyCreated(try body(PasskeyCreatedReply.self))
        case .failure: self = .failure(try body(ProtocolError.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        switch self {
        case .done: break
        case .status(let b): try c.encode(b, forKey: .body)
        case .items(let b): try c.encode(b, forKey: .body)
        case .item(let b): try c.encode(b, forKey: .body)
        case .value(let b): try c.encode(b, forKey: .body)
        case .saved(let b): try c.encode(b, forKey: .body)
        case .history(let b): try c.encode(b, forKey: .body)
        case .count(let b): try c.encode(b, forKey: .body)
        case .code(let b): try c.encode(b, forKey: .body)
        case .imported(let b): try c.encode(b, forKey: .body)
        case .generated(let b): try c.encode(b, forKey: .body)
        case .strength(let b): try c.encode(b, forKey: .body)
        case .check(let b): try c.encode(b, forKey: .body)
        case .fill(let b): try c.encode(b, forKey: .body)
        case .settings(let b): try c.encode(b, forKey: .body)
        case .resolved(let b): try c.encode(b, forKey: .body)
        case .prefixes(let b): try c.encode(b, forKey: .body)
        case .synced(let b): try c.encode(b, forKey: .body)
        case .vaults(let b): try c.encode(b, forKey: .body)
        case .vault(let b): try c.encode(b, forKey: .body)
        case .vaultDeleted(let b): try c.encode(b, forKey: .body)
        case .web(let b): try c.encode(b, forKey: .body)
        case .signedUp(let b): try c.encode(b, forKey: .body)
        case .account(let b): try c.encode(b, forKey: .body)
        case .activity(let b): try c.encode(b, forKey: .body)
        case .twoFactorSetup(let b): try c.encode(b, forKey: .body)
        case .recoveryCodes(let b): try c.encode(b, forKey: .body)
        case .file(let b): try c.encode(b, forKey: .body)
        case .backup(let b): try c.encode(b, forKey: .body)
        case .backupMade(let b): try c.encode(b, forKey: .body)
        case .restored(let b): try c.encode(b, forKey: .body)
        case .importPreview(let b): try c.encode(b, forKey: .body)
        case .exported(let b): try c.encode(b, forKey: .body)
        case .attachments(let b): try c.encode(b, forKey: .body)
        case .attachmentSaved(let b): try c.encode(b, forKey: .body)
        case .hello(let b): try c.encode(b, forKey: .body)
        case .browserPairing(let b): try c.encode(b, forKey: .body)
        case .browserChallenge(let b): try c.encode(b, forKey: .body)
        case .browserSession(let b): try c.encode(b, forKey: .body)
        case .browserFill(let b): try c.encode(b, forKey: .body)
        case .browserOffer(let b): try c.encode(b, forKey: .body)
        case .browserPairings(let b): try c.encode(b, forKey: .body)
        case .sharing(let b): try c.encode(b, forKey: .body)
        case .org(let b): try c.encode(b, forKey: .body)
        case .invitation(let b): try c.encode(b, forKey: .body)
        case .securityCode(let b): try c.encode(b, forKey: .body)
        case .linkOffer(let b): try c.encode(b, forKey: .body)
        case .linkStatus(let b): try c.encode(b, forKey: .body)
        case .ranges(let b): try c.encode(b, forKey: .body)
        case .passkeys(let b): try c.encode(b, forKey: .body)
        case .passkeySigned(let b): try c.encode(b, forKey: .body)
        case .passkeyCreated(let b): try c.encode(b, forKey: .body)
        case .failure(let b): try c.encode(b, forKey: .body)
        }
    }
}

/// Reading the typed value out of a reply: a failure is thrown, an unexpected kind is a `badRequest`.
extension Reply {
    public func get() throws -> Reply {
        if case .failure(let e) = self { throw e }
        return self
    }

    static func unexpected(_ reply: Reply) -> ProtocolError { ProtocolError(.badRequest, ["reason": "unexpected reply \(reply.kind.rawValue)"]) }

    /// The reply as an operation's answer: a failure is thrown, another kind is a `badRequest`.
    public func answer<Answer: ReplyBody>(_ type: Answer.Type) throws -> Answer {
        guard let value = Answer.from(try get()) else { throw Self.unexpected(self) }
        return value
    }

    public func status() throws -> StatusReply { try answer(StatusReply.self) }
    public func items() throws -> ItemListReply { try answer(ItemListReply.self) }
    public func item() throws -> ItemDetail { try answer(ItemDetail.self) }
    public func value() throws -> ValueReply { try answer(ValueReply.self) }
    public func saved() throws -> SavedReply { try answer(SavedReply.self) }
    public func history() throws -> HistoryReply { try answer(HistoryReply.self) }
    public func count() throws -> CountReply { try answer(CountReply.self) }
    public func code() throws -> CodeReply { try answer(CodeReply.self) }
    public func imported() throws -> ImportReply { try answer(ImportReply.self) }
    public func generated() throws -> GeneratedReply { try answer(GeneratedReply.self) }
    public func strength() throws -> StrengthReply { try answer(StrengthReply.self) }
    public func check() throws -> CheckReply { try answer(CheckReply.self) }
    public func fill() throws -> FillReply { try answer(FillReply.self) }
    public func settings() throws -> SettingsView { try answer(SettingsView.self) }
    public func resolved() throws -> ResolveReply { try answer(ResolveReply.self) }
    public func prefixes() throws -> PrefixesReply { try answer(PrefixesReply.self) }
    public func synced() throws -> SyncReply { try answer(SyncReply.self) }
    public func vaults() throws -> VaultListReply { try answer(VaultListReply.self) }
    public func vault() throws -> VaultView { try answer(VaultView.self) }
    public func vaultDeleted() throws -> VaultDeletedReply { try answer(VaultDeletedReply.self) }
    public func web() throws -> WebOpenReply { try answer(WebOpenReply.self) }
    public func signedUp() throws -> SignedUpReply { try answer(SignedUpReply.self) }
    public func account() throws -> AccountView { try answer(AccountView.self) }
    public func activity() throws -> ActivityReply { try answer(ActivityReply.self) }
    public func twoFactorSetup() throws -> TwoFactorSetupReply { try answer(TwoFactorSetupReply.self) }
    public func recoveryCodes() throws -> RecoveryCodesReply { try answer(RecoveryCodesReply.self) }
    public func file() throws -> FileReply { try answer(FileReply.self) }
    public func backup() throws -> BackupView { try answer(BackupView.self) }
    public func backupMade() throws -> BackupMadeReply { try answer(BackupMadeReply.self) }
    public func restored() throws -> RestoredReply { try answer(RestoredReply.self) }
    public func importPreview() throws -> ImportPreviewReply { try answer(ImportPreviewReply.self) }
    public func exported() throws -> ExportedReply { try answer(ExportedReply.self) }
    public func attachments() throws -> AttachmentsReply { try answer(AttachmentsReply.self) }
    public func attachmentSaved() throws -> AttachmentSavedReply { try answer(AttachmentSavedReply.self) }
    public func hello() throws -> HelloReply { try answer(HelloReply.self) }
}
