import Foundation

/// Every operation the agent serves, registered once: `all` is the list the registry, the dispatcher's
/// check, the web allow-list and docs/PROTOCOL.md are built from. Adding an operation is adding it here
/// (with `since` the generation that brings it), giving it a handler, and regenerating the docs.
public enum Operations {
    public static let hello = Operation<HelloRequest, HelloReply>(
        .hello, surfaces: .every, since: 13, vault: false,
        request: #"version (the client's protocol generation), operations [the names it knows]"#,
        reply: #"`hello`: version (the agent's generation), oldest (the oldest it serves), operations (those the caller's surface may call), missing (the client's operations this agent lacks: each is answered `unsupported`)"#)
    public static let status = Operation<NoBody, StatusReply>(
        .status, surfaces: .every, vault: false,
        request: #"—"#,
        reply: #"`status`: unlocked, vault (path), locksInSeconds, autoLockMinutes, pid, lockSignals, quickUnlock {offered, reason, days, available, user}, protocolVersion, productVersion? (the agent's version, for the web UI's About), sync?, vaultExists?, account? {email, server, kitReminder, sharingWarnings?}, breachAlerts? (logins newly published breaches put at risk, until the next `check`; protocol 17), vaultMark? (a random mark drawn anew at every save of the open vault, any client's; protocol 17)"#)
    public static let unlock = Operation<UnlockRequest, Done>(
        .unlock, surfaces: .every, vault: false,
        request: #"password"#,
        reply: #"`done` (held to the unlock deadline; `wrongPassword`, `mustWait`, …)"#)
    public static let quickUnlock = Operation<QuickUnlockRequest, Done>(
        .quickUnlock, surfaces: .every, vault: false,
        request: #"loginPassword"#,
        reply: #"`done`; `quickUnlockNotOffered`, `quickUnlockRefused` (three refusals drop the key), `quickUnlockUnavailable`"#)
    public static let lock = Operation<LockRequest, Done>(
        .lock, surfaces: .every, vault: false,
        request: #"forget (also drop the quick-unlock key)"#,
        reply: #"`done`"#)
    public static let changePassword = Operation<ChangePasswordRequest, Done>(
        .changePassword, vault: false,
        request: #"current, new"#,
        reply: #"`done`; the agent re-opens with the new password and keeps a new quick-unlock key"#)
    public static let list = Operation<ListRequest, ItemListReply>(
        .list, vault: true,
        request: #"category?, tag?, favoritesOnly, sort? (newest, oldest, az, za, recent), offset, limit? (at most 1,000 a page: a page is encoded whole in memory, so pages are kept small), vault?, rows? (true: the page as text rows), withCode? (only items with a one-time-password setup; generation 16), withPasskey? (only items that hold a passkey; generation 18)"#,
        reply: #"`items`: items [ItemSummary: hasCode since generation 16], total, vaultIsEmpty; with rows, items is empty and rows holds the page: a line an item, its id, favorite (1 or empty), title, categoryName and summary separated by tabs, a backslash, tab or line feed inside a field written as a backslash and one of backslash, t, n; and widths: the display widths of the table's ID, TITLE and CATEGORY columns over the whole listing (each at most 120; a client may print each page as it comes, padded to them)"#)
    public static let show = Operation<ShowRequest, ItemDetail>(
        .show, vault: true,
        request: #"item, reveal"#,
        reply: #"`item`: ItemDetail (concealed values `masked` with an empty `value` unless reveal; a TOTP field carries its current code, an HOTP field its counter; the password field its strength, zxcvbn's score 0–4, when libzxcvbn is there)"#)
    public static let field = Operation<FieldRequest, ValueReply>(
        .field, vault: true,
        request: #"item, field (key or label, or title, notes, website, url, code)"#,
        reply: #"`value`: itemID, title, value (`code` goes through `code`)"#)
    public static let search = Operation<SearchRequest, ItemListReply>(
        .search, vault: true,
        request: #"query, scope? (all, name, username, website, notes), limit"#,
        reply: #"`items` (each with `match`: title-prefix, title-word, title, field, near)"#)
    public static let add = Operation<AddRequest, SavedReply>(
        .add, vault: true,
        request: #"category, changes: ItemChanges"#,
        reply: #"`saved`: id, title, categoryName, changed, weakPassword? (a strength when a typed password is below strong)"#)
    public static let edit = Operation<EditRequest, SavedReply>(
        .edit, vault: true,
        request: #"item, changes: ItemChanges"#,
        reply: #"`saved` (changed false when nothing changed: nothing is saved)"#)
    public static let delete = Operation<ItemRequest, SavedReply>(
        .delete, vault: true,
        request: #"item"#,
        reply: #"`saved` (moved to the trash)"#)
    public static let history = Operation<ShowRequest, HistoryReply>(
        .history, vault: true,
        request: #"item, reveal"#,
        reply: #"`history`: id, title, versions [{id, replacedAt, changes [{what, label?, old?, new?}], item}] newest first, previousPasswords [{value, masked, replacedAt}]"#)
    public static let restoreVersion = Operation<RestoreVersionRequest, SavedReply>(
        .restoreVersion, vault: true,
        request: #"item, version"#,
        reply: #"`saved` with version"#)
    public static let trashList = Operation<ListRequest, ItemListReply>(
        .trashList, vault: true,
        request: #"the body of `list` (paging; rows is not answered here)"#,
        reply: #"`items` with trashedAt"#)
    public static let trashRestore = Operation<ItemRequest, SavedReply>(
        .trashRestore, vault: true,
        request: #"item"#,
        reply: #"`saved`"#)
    public static let trashDelete = Operation<ItemRequest, SavedReply>(
        .trashDelete, vault: true,
        request: #"item"#,
        reply: #"`saved`"#)
    public static let trashEmpty = Operation<NoBody, CountReply>(
        .trashEmpty, vault: true,
        request: #"—"#,
        reply: #"`count`"#)
    public static let code = Operation<ItemRequest, CodeReply>(
        .code, vault: true,
        request: #"item"#,
        reply: #"`code`: kind (totp, hotp), code, secondsLeft?, period?, counter?, itemID, title. HOTP: the counter advances and is saved before the code is answered"#)
    public static let setOneTimePassword = Operation<SetOneTimePasswordRequest, CodeReply>(
        .setOneTimePassword, vault: true,
        request: #"item, setups [otpauth link or setup key]"#,
        reply: #"`code` (TOTP: the current code; HOTP: the counter)"#)
    public static let importOneTimePasswords = Operation<ImportRequest, ImportReply>(
        .importOneTimePasswords, vault: true,
        request: #"setups [otpauth or otpauth-migration links], select? [numbers from 1], all, toLogins"#,
        reply: #"`imported`: accounts [{issuer, account, kind, period, digits, algorithm}], imported [{issuer, account, itemID, title, toLogin}], skippedDuplicates. Neither `all` nor `select`: lists only. Accounts whose secret the vault holds, or numbers given twice, are skipped and counted"#)
    public static let generate = Operation<GeneratorRequest, GeneratedReply>(
        .generate, vault: false,
        request: #"GeneratorRequest: words? (passphrase), length?, uppercase, lowercase, digits, symbols, allowSimilar, separator?, capitalize, includeDigit, language?"#,
        reply: #"`generated`: password, entropyBits"#)
    public static let strength = Operation<StrengthRequest, StrengthReply>(
        .strength, vault: false,
        request: #"password, userInputs"#,
        reply: #"`strength`: score 0–4, guessesLog10, warning? and suggestions as wording keys (`strength.warning.*`, `strength.suggestion.*`)"#)
    public static let check = Operation<CheckRequest, CheckReply>(
        .check, vault: true,
        request: #"runBreachCheck, background? (protocol 17: asked in the background, the new-breach alerts of `status` stay; otherwise asking is seeing them), ranges? (prefix → the range service's answer, fetched by the client for the prefixes `breach-prefixes` gave, padded with random ones it discards; all needed prefixes must be there)"#,
        reply: #"`check`: score, rating, logins, secureLogins, tiles {atRisk, reused, weak, other (logins kept from secure by other findings only), secure}, deductions {kind: points}, fixFirst [{itemID, title, kinds, points}], notSecure (every login not secure, the same shape, largest gain first), findings [{kind, itemID, title, details, dismissed, group?}], breachCheckEnabled, lastBreachCheck?, breachedPasswordsFound?, catalogueDate?"#)
    public static let breachPrefixes = Operation<NoBody, PrefixesReply>(
        .breachPrefixes, vault: true,
        request: #"—"#,
        reply: #"`prefixes`: prefixes (the five hex characters of each distinct login password's SHA-1); `breachCheckOff` unless turned on"#)
    public static let breachRanges = Operation<BreachRangesRequest, RangesReply>(
        .breachRanges, since: 16, vault: true,
        request: #"prefixes (at most 100, five hex characters each: the real ones and the client's padding, which the agent cannot tell apart)"#,
        reply: #"`ranges`: ranges (prefix → the range service's answer), fetched off the vault queue from the range address in the settings; `breachCheckOff` unless turned on, `breachCheckFailed` {problem, …} when the service cannot be asked, `badRequest` for a prefix that is not five hex characters"#)
    public static let dismiss = Operation<DismissRequest, SavedReply>(
        .dismiss, vault: true,
        request: #"item, kind, dismissed"#,
        reply: #"`saved`"#)
    public static let fixHTTPS = Operation<FixHTTPSRequest, CountReply>(
        .fixHTTPS, vault: true,
        request: #"item? (absent: every item)"#,
        reply: #"`count` with the items switched"#)
    public static let fill = Operation<FillRequest, Reply>(
        .fill, vault: true,
        request: #"address, pick?, field?, confirmOtherSite"#,
        reply: #"without pick: `fill`: host, candidates [{id, title, username?, website, match}]; with pick: `value` (the login's lastFilled is recorded), or `otherSite` when the login is saved for another site and not confirmed"#, answers: [.fill, .value])
    public static let settings = Operation<NoBody, SettingsView>(
        .settings, vault: false,
        request: #"—"#,
        reply: #"`settings`: autoLockMinutes, quickUnlock?, reminderDays, breachCheck, rangeURL, damagedFile? (settings.json could not be read: the strictest settings are in force), clipboardSeconds, webLanguage?, webTheme?, webShortcuts, breachCatalogueURL? (where a vault without an account refreshes its breach catalogue every 6 hours; absent: it does not)"#)
    public static let changeSetting = Operation<SettingRequest, SettingsView>(
        .changeSetting, vault: false,
        request: #"name (auto-lock, quick-unlock, reminder, breach-check, range-url, clipboard (10–600 s), web-language (en, de), web-theme (system, dark, light), web-shortcuts (on, off), breach-catalogue (on: Have I Been Pwned's list, off, or an https address or an http one on this machine)), value"#,
        reply: #"`settings`"#)
    public static let resolve = Operation<ResolveRequest, ResolveReply>(
        .resolve, vault: true,
        request: #"references [passbox://VAULT/ITEM/FIELD], markUsed"#,
        reply: #"`resolved`: values, in order. A `code` field goes through `code` (an HOTP counter advances)"#)
    public static let copy = Operation<CopyRequest, Done>(
        .copy, vault: true,
        request: #"reference, clearAfter (seconds, 1–3600), display {display?, waylandDisplay?, xauthority?, runtimeDirectory?} (the client's session)"#,
        reply: #"`done`: the agent copies the value (marking it `x-kde-passwordManagerHint: secret` on X11), clears it after `clearAfter` if the clipboard still holds it, and when it locks; `noDisplay`, `clipboardFailed` (reason)"#)
    public static let sync = Operation<SyncRequest, SyncReply>(
        .sync, vault: true,
        request: #"takeNotices (hand over the notices of edits merged on this device since the last time)"#,
        reply: #"`synced`: pulled, pushed, status (SyncStatusView: the account, last sync, queued changes, conflicts, notices…). On an account vault only (`noAccount`); the agent runs it off the vault queue"#)
    public static let vaultList = Operation<NoBody, VaultListReply>(
        .vaultList, vault: true,
        request: #"—"#,
        reply: #"`vaults`: kind (local, account), account?, vaults [VaultView: id, name, icon, colour, items, isDefault…], other? (the other kind of vault in this data directory)"#)
    public static let vaultCreate = Operation<VaultCreateRequest, VaultView>(
        .vaultCreate, vault: true,
        request: #"name, icon?, colour?"#,
        reply: #"`vault`: VaultView; `vaultNameTaken`, `invalidValue`"#)
    public static let vaultEdit = Operation<VaultEditRequest, VaultView>(
        .vaultEdit, vault: true,
        request: #"vault (a name or id), name?, icon?, colour?"#,
        reply: #"`vault`: VaultView; `vaultNotFound`, `vaultNameTaken`"#)
    public static let vaultDelete = Operation<VaultDeleteRequest, VaultDeletedReply>(
        .vaultDelete, vault: true,
        request: #"vault (a name or id), confirm (without it the answer only tells what would happen)"#,
        reply: #"`vaultDeleted`: id, name, items (live ones that go to the trash), trashed (already there), home (the vault they go to), deleted; `lastVault` (the only vault cannot go)"#)
    public static let move = Operation<MoveRequest, CountReply>(
        .move, vault: true,
        request: #"items [ITEM], vault (a name or id), copy (copy rather than move)"#,
        reply: #"`count`: the items moved or copied; `vaultNotFound`"#)
    public static let createVault = Operation<CreateVaultRequest, Done>(
        .createVault, vault: false,
        request: #"password"#,
        reply: #"`done`: the local vault made with the same rules and key-derivation cost as `passbox init` (measured, about a second), and left unlocked; `vaultExists`, `passwordRule`, `alreadySignedIn`… (the web UI's onboarding)"#)
    public static let webOpen = Operation<NoBody, WebOpenReply>(
        .webOpen, surfaces: .socket, vault: false,
        request: #"—"#,
        reply: #"`web`: url (`http://127.0.0.1:PORT/open/TOKEN`, works once within 60 s), opener (a 0600 HTML file in the agent's socket directory that forwards to url, for `xdg-open`), origin. Answered on the socket only: through the web API it is `badRequest`"#)
    public static let readQR = Operation<ReadQRRequest, ResolveReply>(
        .readQR, vault: false,
        request: #"image (PNG or JPEG, base64, at most 16 MiB)"#,
        reply: #"`resolved`: the text of every QR code in it; `imageUnreadable` (message)"#)
    public static let accountSignUp = Operation<AccountSignUpRequest, SignedUpReply>(
        .accountSignUp, vault: false,
        request: #"server, email, password, invitation?, deviceName?"#,
        reply: #"`signedUp`: email, server, secretKey (shown once). Before any network call: a local vault in the data directory is `vaultExists` (the agent signs up and in only where there is no vault: the web UI's onboarding; `passbox signup` can do it beside a local vault), then the email (`notAnEmail`), a signed-in directory (`alreadySignedIn`), the address (`notAnAddress`, `insecureServer`: https, or http to this machine) and the master password (`masterTooWeak` below 3/4). The account's vault is then open on this device (the agent keeps its quick-unlock key as at `unlock`); once the server made the account the answer is `signedUp` even if the vault did not open here (it opens at the lock page). `accountExists`, `signupClosed`, `invitationInvalid`…"#)
    public static let accountSignIn = Operation<AccountSignInRequest, Done>(
        .accountSignIn, vault: false,
        request: #"server, email, password, secretKey, code?, rememberDevice, acceptNewParameters, deviceName?"#,
        reply: #"`done`: the account's vault open on this device (it syncs at once). The same checks as `account-signup` come first, then the Secret Key (`secretKeyInvalid`, facts problem and its facts); a session the device could not keep is ended at the server; an account with a second factor and no code answers `twoFactorRequired` and keeps nothing, and the request is sent again with the code (or a recovery code). `signInFailed`, `serverParametersRefused`…"#)
    public static let accountView = Operation<NoBody, AccountView>(
        .accountView, vault: true,
        request: #"—"#,
        reply: #"`account`: server, email, accountID, created, kdf, devices [DeviceSession], twoFactor {enabled, recoveryCodesLeft}, kitConfirmed, recovery? {configured, created?, organisations? (family names)} (protocol 17). Needs the account's vault open (else `locked`; a local vault: `noAccount`)"#)
    public static let accountActivity = Operation<NoBody, ActivityReply>(
        .accountActivity, vault: true,
        request: #"—"#,
        reply: #"`activity`: events [{kind, at, address, deviceName}], the account's last 50"#)
    public static let deviceSignOut = Operation<DeviceSignOutRequest, CountReply>(
        .deviceSignOut, vault: true,
        request: #"device? \| others, password (the master password: a fresh proof of the sign-in key, a counted attempt; wrong: `wrongPassword`)"#,
        reply: #"`count`: the devices signed out (this device signs out with `passbox signout`: `badRequest`)"#)
    public static let twoFactorEnrol = Operation<TwoFactorRequest, TwoFactorSetupReply>(
        .twoFactorEnrol, vault: true,
        request: #"password (the master password, as for `device-signout`; protocol 12)"#,
        reply: #"`twoFactorSetup`: setupKey (base32), uri (otpauth), size and modules (the QR code of uri, `size` rows of "0"/"1", drawn by the page; size 0 without libqrencode: the setup key alone)"#)
    public static let twoFactorConfirm = Operation<TwoFactorRequest, RecoveryCodesReply>(
        .twoFactorConfirm, vault: true,
        request: #"code"#,
        reply: #"`recoveryCodes`: codes (ten, shown once); `twoFactorCodeWrong`"#)
    public static let twoFactorDisable = Operation<TwoFactorRequest, Done>(
        .twoFactorDisable, vault: true,
        request: #"password"#,
        reply: #"`done`; `wrongPassword` (checked against the keyset this device keeps, before the network, and counted as unlock attempts are: `mustWait` after failures in a row)"#)
    public static let recoverySetup = Operation<TwoFactorRequest, RecoveryCodesReply>(
        .recoverySetup, since: 17, vault: true,
        request: #"password (the master password: it opens the keyset this device keeps, which is sealed anew under the new code)"#,
        reply: #"`recoveryCodes`: codes (the one new recovery code, shown once; it replaces an earlier one); `wrongPassword` (counted as at `two-factor-disable`), `mustWait`"#)
    public static let accountPassword = Operation<ChangePasswordRequest, Done>(
        .accountPassword, since: 17, vault: true,
        request: #"current, new (the account's master password: DEV-3, as `passbox passwd --account`)"#,
        reply: #"`done`: the server has the new keyset and sign-in key; every other device is signed out, the Secret Key stays the same, and the agent stays unlocked with a new quick-unlock key. `masterTooWeak` below 3/4 (before any network call), `wrongPassword` for the current one (counted as unlock attempts), `mustWait`"#)
    public static let kitPDF = Operation<KitRequest, FileReply>(
        .kitPDF, vault: true,
        request: #"password, language? (en, de)"#,
        reply: #"`file`: name, mediaType (application/pdf), base64: the Emergency Kit (the same page as `passbox kit --pdf`), written to a 0600 file in the data directory, read back and removed; `wrongPassword` (counted as at `two-factor-disable`), `mustWait`"#)
    public static let kitConfirm = Operation<KitRequest, Done>(
        .kitConfirm, vault: true,
        request: #"lastFour"#,
        reply: #"`done`: the Emergency Kit reminder stops on this device; `kitMismatch` (compared in constant time)"#)
    public static let accountSignOut = Operation<AccountSignOutRequest, CountReply>(
        .accountSignOut, vault: true,
        request: #"forgetSecretKey (must be true, else `badRequest`), lastFour? (protocol 17: on the lock page, the Secret Key's last four characters stand in for the open vault; wrong: `kitMismatch`, counted as unlock attempts)"#,
        reply: #"`count`: 1 when the session ended at the server (or had already), 0 when the server was out of reach (it keeps the session until it expires). This device's session ends at the server where it still can (already ended, or the server out of reach, does not stop it), the account record with the Secret Key is removed and the vault locks (the agent drops its clipboard copies and quick-unlock key); the account's vault stays on the device, encrypted, and opens again after the next sign-in. A sign-out that fails leaves the vault open as it was. `passbox signout --forget-secret-key` does the same on the command line (it asks a running agent to lock and forget its quick-unlock key first)"#)
    public static let duressSet = Operation<DuressRequest, Done>(
        .duressSet, vault: true,
        request: #"current, duress"#,
        reply: #"`done`: a new, empty vault in the next slot of the secret order, replacing what was there; `duressSameAsOwn`"#)
    public static let duressChange = Operation<DuressRequest, Done>(
        .duressChange, vault: true,
        request: #"current, duress (its password now), new"#,
        reply: #"`done`: that slot alone re-keyed, its contents kept; `wrongDuressPassword` (the old duress password is a counted attempt too)"#)
    public static let eraseSetting = Operation<EraseSettingRequest, SettingsView>(
        .eraseSetting, vault: true,
        request: #"current, on"#,
        reply: #"`settings` (eraseAfterFailures): this machine's setting"#)
    public static let deleteAllData = Operation<DeleteAllDataRequest, Done>(
        .deleteAllData, vault: true,
        request: #"current"#,
        reply: #"`done`, then the agent is locked and there is no vault: every vault of the file is erased (the erase journal's steps)"#)
    public static let itemProtect = Operation<ProtectItemRequest, SavedReply>(
        .itemProtect, vault: true,
        request: #"item, password"#,
        reply: #"`saved`: the item's fields and notes sealed (Argon2id 256 MiB × 4 × 4), its history dropped; `cannotProtect` (only notes, recovery phrases, private keys, SSH keys), `alreadyProtected`, `itemPasswordTooShort` (8), `notEnoughMemory`"#)
    public static let itemUnprotect = Operation<ProtectItemRequest, SavedReply>(
        .itemUnprotect, vault: true,
        request: #"item, password"#,
        reply: #"`saved`; `notProtected`, `alwaysProtected` (recovery phrases, private keys), `wrongItemPassword`"#)
    public static let itemOpen = Operation<ProtectItemRequest, ItemDetail>(
        .itemOpen, vault: true,
        request: #"item, password"#,
        reply: #"`item`, revealed, for this answer only (nothing saved or kept); `wrongItemPassword`"#)
    public static let backupPassword = Operation<BackupPasswordRequest, BackupView>(
        .backupPassword, vault: true,
        request: #"current, password, hint? (one line of at most 120 characters, printed on PDFs)"#,
        reply: #"`backup`: the password (the vault password's rules) derived at 512 MiB × 32 × 4 under a new salt, the key kept in the vault's payload; auto-backup settings stay; `invalidValue` (too short, only digits), `backupHintInvalid`, `hintRevealsPassword` (the hint holds either password, folded for case and accents), `wrongPassword`, `notEnoughMemory`"#)
    public static let backupView = Operation<NoBody, BackupView>(
        .backupView, vault: true,
        request: #"—"#,
        reply: #"`backup`: passwordSet, hint, folder?, retentionDays, autoBackups (files auto-backup keeps), lastBackup?, problem? (the last auto-backup's failure, an error as above)"#)
    public static let backupMake = Operation<BackupMakeRequest, BackupMadeReply>(
        .backupMake, vault: true,
        request: #"format (file, pdf, transfer), paper? (a4, letter), path?, language? (en, de)"#,
        reply: #"`backupMade`: name, mediaType, base64 (without path) or path (written new and 0600; `fileExists` never replaces one), bytes, codes, pages; a transfer's `transfer` is its codes as `{size, modules}` (rows of "0"/"1"), padded by a random amount and saved nowhere, and it is no "last backup". A PDF without path passes through a 0600 file in the data directory, removed before the answer. A file with a path copies the attachments' blobs into `blobs/` beside it (`attachmentsCopied`); a PDF, a transfer and a download count the attachments they leave out (`attachmentsLeftOut`); `noBackupPassword`, `invalidSetting` (format, paper)"#)
    public static let backupAuto = Operation<BackupAutoRequest, BackupView>(
        .backupAuto, vault: true,
        request: #"folder? (an absolute path of a directory of this user's that is not a link; absent: off), retentionDays? (1–3,650)"#,
        reply: #"`backup`; `backupFolderInvalid` (reason: relative, missing, notDirectory, notOwned, dataDirectory), `noBackupPassword`. After every later change the agent writes a new `passbox-auto-DATE-TIME[-N].pbbackup` there (O_EXCL), deletes only files it wrote that are past the retention, always keeping the newest, and records them in the vault"#)
    public static let backupRestore = Operation<BackupRestoreRequest, RestoredReply>(
        .backupRestore, vault: true,
        request: #"password, mode (new, replace), one of path, base64, codes [text…], language?"#,
        reply: #"`restored`: mode, items, trashed, vaults (the names made), made, repeatedCodes, foreignCodes, and for a path attachmentsRestored and attachmentsMissing (blobs brought back from `blobs/` beside the file, each opened whole first; one missing or damaged is counted and not kept). Always the backup's own password (G59); one save, so a failure changes nothing; `replace` is `localVaultOnly` on an account's vault; `wrongBackupPassword`, `backupTruncated`, `notABackup`, `backupNewerFormat`, `backupTooLarge` (past 64 MiB), and for codes `backupCodesMissing` (missing: up to 20 numbers, count, total), `backupCodeDamaged`, `backupCodeOutOfRange`, `backupCodeConflict`, `backupCodeInvalid`, `noBackupCodes`"#)
    public static let importItems = Operation<ItemsImportRequest, ImportPreviewReply>(
        .importItems, vault: true,
        request: #"format (kdbx, bitwarden-json, 1pux, proton-pass, cxf, csv, aegis, 2fas, otpauth, or auto: told by the file's first bytes, else its `name`; the reply names the one found), name?, mapping? {target: column} (csv: title, username, password, url, notes, otp, folder, tags, favorite), one of path (absolute; the agent reads it, at most 256 MiB) and base64, password? (the file's), keyFilePath?, groups? (tags, the default, or vaults), vault? (where items go: a name or id; the first vault), keepDuplicates, confirm"#,
        reply: #"`importPreview`: format, source (the file's version, cipher and key derivation), items, trashed, categories {raw category: count}, duplicates, duplicateTitles (up to 20), notBrought {reason: count} (attachment, passkey, emptyEntry, recoveryPhrase, privateKey, linkedField, unknownType, invalidCode, unsupportedCode), attachments? (files the items carry: a KeePass file's attachments, written as blobs before the one save and removed if it fails), refused, refusals [{title, error}] (up to 20: items failing an edit's checks, left out), vault, newVaults, imported, kdfSeconds, phases? (where the time went: kdf, decrypt, parse, map, check and save in seconds, textBytes (the XML's length for a KeePass file) and parsePeakKiB (the parse child's peak after the file's key derivation); other formats than KeePass count reading and mapping as parse). Without `confirm` nothing is written; with it every accepted item is added in one save (new vaults made first), so a failure adds nothing. A duplicate (same category, title, username, first website's host, password and one-time-password key as an item here; a trashed one against any item) is left out unless `keepDuplicates`. `importWrongPassword`, `importNotThisFormat`, `importDamaged` (reason), `importTruncated`, `importUnsupported` (what), `importTooLarge` (limitMiB), `importEmpty` (nothing to make), `importColumnsUnknown` (columns), `importMappingInvalid` (name, columns; exit 2), `unknownFormat`, `vaultNotFound`"#)
    public static let exportItems = Operation<ItemsExportRequest, ExportedReply>(
        .exportItems, vault: true,
        request: #"format (kdbx, bitwarden-json, cxf), path? (absolute; absent: the file comes back as base64, the web UI's download, its KeePass attachments bounded to 48 MiB), password? (a KeePass file's; the vault password's rules), vault?, plainConfirmed?, passkeysConfirmed? (a plain export carries the passkeys' private keys only with it)"#,
        reply: #"`exported`: path (absent for a download), entries, bytes, leftOut {trashed, sealed, attachmentTooLarge, attachmentMissing, passkey, passkeyPlain, passkeyCounter: count}, and for a download base64, name ("VAULT-or-Passbox YYYY-MM-DD.kdbx" or ".json") and mediaType. A KeePass file carries the items' attachments (up to 192 MiB in all). A KeePass 4 file (ChaCha20, Argon2id 256 MiB × 4 × 2, gzip, a group per vault), or Bitwarden's JSON or CXF 1.0 (passkeys with a counter above zero left out, as CXF requires), not encrypted, only with `plainConfirmed` (`plainExportNotConfirmed` otherwise; the CLI sets it after asking twice), written new and 0600 (`fileExists` never replaces one); hidden items are never in it; `importEmpty` when nothing is left to export, `invalidValue` (a weak password), `unknownFormat`"#)
    public static let attach = Operation<AttachRequest, AttachmentsReply>(
        .attach, vault: true,
        request: #"item, one of path (absolute; the agent reads it a chunk at a time, at most 4 GiB) and base64 (at most 64 MiB; the web UI's upload), name? (default: the path's last part), mediaType? (type/subtype; default: told by the name), uploadID? and more? (a larger upload in parts: each part's base64 with the same uploadID, `more` true but on the last; the agent holds the parts in memory only, 64 MiB in all, at most 4 uploads, dropped at lock; a part naming another item is `badRequest`)"#,
        reply: #"`attachments` (changed absent until the last part): itemID, title, attachments [AttachmentView], changed (the one added). The blob is written first, then the item saved (a version in its history); a failed save removes the blob. A PNG or JPEG gets a thumbnail blob. `attachmentUnreadable` (path, reason), `attachmentTooLarge` (limitMiB), `attachmentOnLockedItem` (title), `invalidValue` (a name with a slash or a control character, over 255 characters, or a 101st attachment)"#)
    public static let attachments = Operation<AttachmentsRequest, AttachmentsReply>(
        .attachments, vault: true,
        request: #"item"#,
        reply: #"`attachments` (changed absent)"#)
    public static let detach = Operation<AttachmentsRequest, AttachmentsReply>(
        .detach, vault: true,
        request: #"item, attachment (its id, an id prefix of six or more, or its name)"#,
        reply: #"`attachments`, changed (the one removed); its blob goes once no version of any item refers to it. `attachmentNotFound` (title, attachment, names), `attachmentAmbiguous` (title, attachment, count)"#)
    public static let saveAttachment = Operation<SaveAttachmentRequest, AttachmentSavedReply>(
        .saveAttachment, vault: true,
        request: #"item, attachment, path? (absolute), thumbnail?"#,
        reply: #"`attachmentSaved`: name, mediaType, size, and path (written new, 0600, a chunk at a time; `fileExists`; damage found at any chunk removes what was written) or base64 (without path: the web UI; with `thumbnail` the image's thumbnail when it has one, else the file). An account's blob this device lacks is fetched from the server first. `attachmentMissing` (name), `attachmentDamaged` (name, reason)"#)

    /// Every operation, in the order docs/PROTOCOL.md lists them.

    // The browser extension (docs/PROTOCOL.md, "The browser extension"), generation 14.
    public static let browserPairBegin = Operation<BrowserPairBeginRequest, BrowserPairingReply>(
        .browserPairBegin, surfaces: .browser, since: 14, vault: false,
        request: #"publicKey (Ed25519, base64url), browser, name"#,
        reply: #"`browserPairing`: pairing, agentNonce, expiresInSeconds (600). At most 8 pairings wait; the code is SHA-256("passbox browser pairing v1", 0, publicKey, agentNonce)'s first four bytes modulo 1,000,000"#)
    public static let browserPairConfirm = Operation<BrowserPairConfirmRequest, Done>(
        .browserPairConfirm, since: 14, vault: false,
        request: #"pairing, code (the six digits the user saw in the browser and here)"#,
        reply: #"`done`: the extension's key is pinned in browsers.json; `pairingNotFound` (unknown or expired), `pairingCodeWrong`"#)
    public static let browserPairings = Operation<NoBody, BrowserPairingsReply>(
        .browserPairings, since: 14, vault: false,
        request: #"—"#,
        reply: #"`browserPairings`: pending [{pairing, browser, name, code, expiresInSeconds}], paired [{pairing, browser, name, pairedAt, lastUsed?}]"#)
    public static let browserRemove = Operation<BrowserRemoveRequest, CountReply>(
        .browserRemove, since: 14, vault: false,
        request: #"pairing (an id, or a pending pairing's id)"#,
        reply: #"`count`: 1 when a pairing was removed (its sessions end at once), 0 when there was none"#)
    public static let browserChallenge = Operation<NoBody, BrowserChallengeReply>(
        .browserChallenge, surfaces: .browser, since: 14, vault: false,
        request: #"—"#,
        reply: #"`browserChallenge`: challenge (32 random bytes, base64url; single use, 60 s; at most 32 wait)"#)
    public static let browserProve = Operation<BrowserProveRequest, BrowserSessionReply>(
        .browserProve, surfaces: .browser, since: 14, vault: false,
        request: #"publicKey, challenge, signature (Ed25519 over "passbox browser session v1", 0, the challenge)"#,
        reply: #"`browserSession`: pairing, name, session (to the host, which keeps it); `notPaired` {pending}, `handshakeFailed` {reason}"#)
    public static let browserCandidates = Operation<BrowserCandidatesRequest, FillReply>(
        .browserCandidates, surfaces: .browser, since: 14, vault: true,
        request: #"url (the frame's or tab's origin and "/": the browser's word, never the page's), session (added by the host)"#,
        reply: #"`fill`: host, candidates [{id, title, username?, website, match}]: exact host first, then the registrable domain, at most 50; never a secret, never a trashed item"#)
    public static let browserFill = Operation<BrowserFillRequest, BrowserFillReply>(
        .browserFill, surfaces: .browser, since: 14, vault: true,
        request: #"url, item, confirmOtherSite, code (the one-time code only), session"#,
        reply: #"`browserFill`: itemID, title, username?, password?, code?, hasCode; `otherSite` {saved, requested, title} unless confirmed; the login's lastFilled is recorded"#)
    public static let browserSearch = Operation<BrowserSearchRequest, ItemListReply>(
        .browserSearch, surfaces: .browser, since: 14, vault: true,
        request: #"query, session"#,
        reply: #"`items`: the vault's search (at most 50), summaries only"#)
    public static let browserOffer = Operation<BrowserLoginRequest, BrowserOfferReply>(
        .browserOffer, surfaces: .browser, since: 14, vault: true,
        request: #"url, username, password (secret), session"#,
        reply: #"`browserOffer`: action (save: no login of the site has the username; update: one has another password; none: saved as it is), item?, title?"#)
    public static let browserSave = Operation<BrowserLoginRequest, SavedReply>(
        .browserSave, surfaces: .browser, since: 14, vault: true,
        request: #"url, username, password (secret), item? (update its password), title?, session"#,
        reply: #"`saved`: a new login for the site (title: the site's host unless given), or the item's password replaced (the old one goes to its history); `otherSite` when item is saved for another site"#)
    public static let browserGenerate = Operation<BrowserGenerateRequest, GeneratedReply>(
        .browserGenerate, surfaces: .browser, since: 14, vault: false,
        request: #"session"#,
        reply: #"`generated`: password, entropyBits (the generator's defaults)"#)
    public static let browserSession = Operation<BrowserSessionRequest, Done>(
        .browserSession, surfaces: .browser, since: 14, vault: false,
        request: #"session (the host asks before relaying status, unlock, quick-unlock or lock)"#,
        reply: #"`done` while the session stands; `notPaired` once its pairing was removed"#)
    // Passkeys (docs/PROTOCOL.md, "Passkeys"), generation 18.
    public static let browserPasskeys = Operation<BrowserPasskeysRequest, PasskeysReply>(
        .browserPasskeys, surfaces: .browser, since: 18, vault: true,
        request: #"url (the browser's word for the frame or tab), rp? (the relying party id the page asked for; absent: the origin's host), allow? (credential ids, base64url), session"#,
        reply: #"`passkeys`: rp, origin, passkeys [{item, title, credential, userName, displayName}] (live logins only, never a key; none: the extension leaves the call to the browser); `passkeyRelyingParty` {rp, origin, reason: notHTTPS, ipAddress, notSuffix, publicSuffix} when the page may not claim the relying party"#)
    public static let browserPasskeySign = Operation<BrowserPasskeySignRequest, PasskeySignedReply>(
        .browserPasskeySign, surfaces: .browser, since: 18, vault: true,
        request: #"url, rp?, item, credential, clientData (the client data JSON, base64url: type webauthn.get and the tab's origin), session"#,
        reply: #"`passkeySigned`: item, credential, authenticatorData (SHA-256 of rp, flags UP UV BE BS, counter), signature (ES256, DER, over the authenticator data and SHA-256 of the client data), userHandle; the passkey's lastUsed recorded (and a counter that counts saved first); `passkeyRelyingParty`, `passkeyNotFound` {rp}, `badRequest` (clientData's type or origin)"#)
    public static let browserPasskeyCreate = Operation<BrowserPasskeyCreateRequest, PasskeyCreatedReply>(
        .browserPasskeyCreate, surfaces: .browser, since: 18, vault: true,
        request: #"url, rp?, userHandle (base64url, 1–64 bytes), userName, displayName, algorithms (COSE; must hold -7), exclude? (credential ids), session"#,
        reply: #"`passkeyCreated`: item, title, newItem, credential, authenticatorData (with the attested credential: Passbox's AAGUID, the id, the COSE key), attestationObject (fmt none), publicKey (SubjectPublicKeyInfo), algorithm (-7). The passkey goes into the site's login with that user name (a version in its history), or a new login; a passkey of the same relying party and user handle is replaced. `passkeyRelyingParty`, `passkeyExists` {rp, title} (an excluded credential is here), `passkeyAlgorithm` {algorithms}"#)

    public static let all: [OperationSpec] = [
        hello.spec, status.spec, unlock.spec, quickUnlock.spec, lock.spec, changePassword.spec, list.spec, show.spec, field.spec, search.spec,
        add.spec, edit.spec, delete.spec, history.spec, restoreVersion.spec, trashList.spec, trashRestore.spec, trashDelete.spec, trashEmpty.spec,
        code.spec, setOneTimePassword.spec, importOneTimePasswords.spec, generate.spec, strength.spec, check.spec, breachPrefixes.spec, breachRanges.spec, dismiss.spec,
        fixHTTPS.spec, fill.spec, settings.spec, changeSetting.spec, resolve.spec, copy.spec, sync.spec, vaultList.spec, vaultCreate.spec,
        vaultEdit.spec, vaultDelete.spec, move.spec, createVault.spec, webOpen.spec, readQR.spec, accountSignUp.spec, accountSignIn.spec,
        accountView.spec, accountActivity.spec, deviceSignOut.spec, twoFactorEnrol.spec, twoFactorConfirm.spec, twoFactorDisable.spec, recoverySetup.spec, accountPassword.spec, kitPDF.spec,
        kitConfirm.spec, accountSignOut.spec, duressSet.spec, duressChange.spec, eraseSetting.spec, deleteAllData.spec, itemProtect.spec,
        itemUnprotect.spec, itemOpen.spec, backupPassword.spec, backupView.spec, backupMake.spec, backupAuto.spec, backupRestore.spec,
        importItems.spec, exportItems.spec, attach.spec, attachments.spec, detach.spec, saveAttachment.spec,
        browserPairBegin.spec, browserPairConfirm.spec, browserPairings.spec, browserRemove.spec, browserChallenge.spec, browserProve.spec,
        browserCandidates.spec, browserFill.spec, browserSearch.spec, browserOffer.spec, browserSave.spec, browserGenerate.spec, browserSession.spec,
        sharing.spec, orgShow.spec, orgChange.spec, orgAccept.spec, securityCode.spec,
        linkOpen.spec, linkWait.spec, linkConfirm.spec, linkBegin.spec, linkAnswer.spec, linkFinish.spec,
        browserPasskeys.spec, browserPasskeySign.spec, browserPasskeyCreate.spec
    ]
}
