import Foundation
import PassboxCore
import PassboxDomains
import PassboxInterop
import PassboxProtocol
import PassboxStore

extension ProtocolError {
    /// The code and facts of any error the libraries throw. Facts never hold a secret.
    public static func from(_ error: any Error) -> ProtocolError {
        switch error {
        case let e as ProtocolError: return e
        case let e as StoreError: return from(e)
        case let e as VaultError: return from(e)
        case let e as BackupError: return from(e)
        case let e as InteropError: return from(e)
        case let e as AttachmentError: return from(e)
        case let e as ValidationError: return ProtocolError(.invalidValue, e.facts.merging(["reason": e.reason]) { _, reason in reason })
        case let e as PasswordStrength.Unavailable: return missing(e.libraries, e.packages)
        case let e as DomainRules.Unavailable: return missing(e.libraries, e.packages)
        default: return ProtocolError(.internalError, ["type": String(describing: type(of: error))])
        }
    }

    static func missing(_ libraries: [String], _ packages: [String]) -> ProtocolError {
        ProtocolError(.libraryMissing, ["libraries": libraries.joined(separator: ", "), "packages": packages.joined(separator: " ")])
    }

    static func from(_ e: StoreError) -> ProtocolError {
        switch e {
        case .wrongPassword: ProtocolError(.wrongPassword)
        case .mustWait(let seconds): ProtocolError(.mustWait, ["minutes": String((seconds + 59) / 60)])
        case .noVault(let path): ProtocolError(.noVault, ["path": path])
        case .vaultExists(let path): ProtocolError(.vaultExists, ["path": path])
        case .notAVault(let path): ProtocolError(.notAVault, ["path": path])
        case .newerFormat(let version): ProtocolError(.newerFormat, ["version": String(version)])
        case .damaged(let path, let reason): ProtocolError(.damaged, ["path": path, "reason": reason])
        case .busy: ProtocolError(.busy)
        case .conflict: ProtocolError(.conflict)
        case .tooLarge: ProtocolError(.vaultTooLarge)
        case .io(let operation, let path, let code): ProtocolError(.io, ["operation": operation, "path": path, "reason": String(cString: strerror(code))])
        case .passwordUnchanged: ProtocolError(.passwordUnchanged)
        case .accountVaultPassword: ProtocolError(.accountVaultPassword)
        case .unlockPromptOnly: ProtocolError(.unlockPromptOnly)
        case .duressSameAsOwn: ProtocolError(.duressSameAsOwn)
        case .wrongDuressPassword: ProtocolError(.wrongDuressPassword)
        case .localVaultOnly: ProtocolError(.localVaultOnly)
        case .attemptCounterDamaged(let path, let seconds): ProtocolError(.attemptCounterDamaged, ["path": path, "minutes": String((seconds + 59) / 60)])
        case .directoryNotOwned(let path, let owner): ProtocolError(.directoryNotOwned, ["path": path, "owner": String(owner)])
        }
    }

    static func from(_ e: VaultError) -> ProtocolError {
        switch e {
        case .itemNotFound(let reference): ProtocolError(.itemNotFound, ["reference": reference])
        case .ambiguous(let reference, let candidates):
            ProtocolError(.ambiguousItem, ["reference": reference, "count": String(candidates.count), "candidates": candidates.joined(separator: "\n")])
        case .itemInTrash(let title): ProtocolError(.itemInTrash, ["title": title])
        case .itemNotInTrash(let title): ProtocolError(.itemNotInTrash, ["title": title])
        case .viewOnly(let vault): ProtocolError(.viewOnly, ["vault": vault])
        case .versionNotFound(let version): ProtocolError(.versionNotFound, ["version": version])
        case .invalidPhrase: ProtocolError(.invalidPhrase, ["limit": String(Phrases.maximumLength)])
        case .cannotProtect(let category): ProtocolError(.cannotProtect, ["category": category])
        case .alreadyProtected(let title): ProtocolError(.alreadyProtected, ["title": title])
        case .notProtected(let title): ProtocolError(.notProtected, ["title": title])
        case .alwaysProtected(let category): ProtocolError(.alwaysProtected, ["category": category])
        case .itemProtected(let title): ProtocolError(.itemProtected, ["title": title])
        case .wrongItemPassword: ProtocolError(.wrongItemPassword)
        case .itemPasswordTooShort(let minimum): ProtocolError(.itemPasswordTooShort, ["minimum": String(minimum)])
        case .itemPasswordNeeded(let category): ProtocolError(.itemPasswordNeeded, ["category": category])
        case .newerItemSeal(let version): ProtocolError(.newerItemSeal, ["version": String(version)])
        case .notEnoughMemory(let needed, let available): ProtocolError(.notEnoughMemory, ["neededMiB": String(needed), "availableMiB": String(available)])
        }
    }

    static func from(_ e: AttachmentError) -> ProtocolError {
        switch e {
        case .missing(let name): ProtocolError(.attachmentMissing, ["name": name])
        case .damaged(let name, let reason): ProtocolError(.attachmentDamaged, ["name": name, "reason": reason])
        case .tooLarge(let limit): ProtocolError(.attachmentTooLarge, ["limitMiB": String(limit)])
        case .unreadable(let path, let reason): ProtocolError(.attachmentUnreadable, ["path": path, "reason": reason])
        }
    }

    static func from(_ e: InteropError) -> ProtocolError {
        switch e {
        case .notThisFormat(let format): ProtocolError(.importNotThisFormat, ["format": format])
        case .truncated: ProtocolError(.importTruncated)
        case .damaged(let reason): ProtocolError(.importDamaged, ["reason": reason])
        case .wrongPassword: ProtocolError(.importWrongPassword)
        case .unsupported(let what): ProtocolError(.importUnsupported, ["what": what])
        case .tooLarge(let limit): ProtocolError(.importTooLarge, ["limitMiB": String(limit)])
        case .empty: ProtocolError(.importEmpty)
        case .unknownColumns(let columns): ProtocolError(.importColumnsUnknown, ["columns": columns])
        case .badMapping(let name, let columns): ProtocolError(.importMappingInvalid, ["name": name, "columns": columns])
        }
    }

    static func from(_ e: BackupError) -> ProtocolError {
        switch e {
        case .notABackup: ProtocolError(.notABackup)
        case .newerFormat(let version): ProtocolError(.backupNewerFormat, ["version": String(version)])
        case .truncated: ProtocolError(.backupTruncated)
        case .wrongPassword: ProtocolError(.wrongBackupPassword)
        case .tooLarge(let limit): ProtocolError(.backupTooLarge, ["limitMiB": String(limit)])
        case .noBackupPassword: ProtocolError(.noBackupPassword)
        case .shards(let s):
            switch s {
            case .invalid: ProtocolError(.backupCodeInvalid)
            case .none: ProtocolError(.noBackupCodes)
            case .outOfRange(let n, let total): ProtocolError(.backupCodeOutOfRange, ["number": String(n), "total": String(total)])
            case .damaged(let n, let total): ProtocolError(.backupCodeDamaged, ["number": String(n), "total": String(total)])
            case .conflicting(let n, let total): ProtocolError(.backupCodeConflict, ["number": String(n), "total": String(total)])
            case .missing(let numbers, let total):
                // At most 20 numbers named; the count says how many in all.
                ProtocolError(.backupCodesMissing, ["missing": numbers.prefix(20).map(String.init).joined(separator: ", ") + (numbers.count > 20 ? ", …" : ""), "count": String(numbers.count), "total": String(total)])
            }
        }
    }
}
