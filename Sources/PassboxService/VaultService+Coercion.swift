import Foundation
import PassboxProtocol
import PassboxStore

/// Duress passwords, the erase setting and Delete All Data (security.md §7): each needs the open vault and
/// its current password, checked as a counted attempt (G76, G94), and never the tenth in a row (G20).
extension VaultService {
    static func addCoercion(to t: inout OperationTable<VaultService>) {
        t.on(Operations.duressSet) { v, r in
            try v.localSession().opened.setDuressPassword(current: lockedCopy(r.current), duress: lockedCopy(r.duress))
            return Done()
        }
        t.on(Operations.duressChange) { v, r in
            let session = try v.localSession()
            guard let new = r.new else { throw ProtocolError(.badRequest, ["reason": "duress-change needs new"]) }
            try session.opened.changeDuressPassword(current: lockedCopy(r.current), duress: lockedCopy(r.duress), new: lockedCopy(new))
            return Done()
        }
        t.on(Operations.eraseSetting) { v, r in
            try v.localSession().opened.setEraseAfterFailures(r.on, current: lockedCopy(r.current))
            return v.settingsView()
        }
        t.on(Operations.deleteAllData) { v, r in
            let session = try v.localSession()
            defer { if !v.store.exists { v.lock() } }
            try session.opened.deleteAllData(current: lockedCopy(r.current))
            v.lock()
            return Done()
        }
    }

    /// The open local vault's session (`locked`, or `localVaultOnly` for an account's vault).
    func localSession() throws -> VaultSession {
        let session = try openSession()
        if store.isAccountVault { throw ProtocolError(.localVaultOnly) }
        return session
    }
}
