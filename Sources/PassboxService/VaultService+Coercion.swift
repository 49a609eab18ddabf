import Foundation
import PassboxProtocol
import PassboxStore

/// Duress passwords, the erase setting and Delete All Data (security.md §7): each needs the open vault and
/// its current password, checked as a counted attempt (G76, G94), and never the tenth in a row (G20).
extension VaultService {
    func performCoercion(_ request: Request) throws -> Reply {
        guard let session else { throw ProtocolError(.locked) }
        if store.isAccountVault { throw ProtocolError(.localVaultOnly) }
        switch request {
        case .duressSet(let r):
            try session.opened.setDuressPassword(current: Self.lockedCopy(r.current), duress: Self.lockedCopy(r.duress))
        case .duressChange(let r):
            guard let new = r.new else { throw ProtocolError(.badRequest, ["reason": "duress-change needs new"]) }
            try session.opened.changeDuressPassword(current: Self.lockedCopy(r.current), duress: Self.lockedCopy(r.duress), new: Self.lockedCopy(new))
        case .eraseSetting(let r):
            try session.opened.setEraseAfterFailures(r.on, current: Self.lockedCopy(r.current))
            return .settings(settingsView())
        case .deleteAllData(let r):
            defer { if !store.exists { lock() } }
            try session.opened.deleteAllData(current: Self.lockedCopy(r.current))
            lock()
        default:
            throw ProtocolError(.badRequest, ["reason": "\(request.operation.rawValue) is not a duress operation"])
        }
        return .done
    }
}
