import Foundation
import PassboxClient
import PassboxCore
import PassboxStore

/// What a device keeps of an account it signed up or in to.
public enum AccountDevice {
    /// Writes the account record, and makes the account's vault on this device (once: it is kept across
    /// sign-outs, so signing in again to the same account finds it as it was) with the keys to sync it.
    public static func keep(_ session: AccountClient.SignedIn, secretKey: SecretKey, server: String, deviceID: String, deviceName: String, in dataDirectory: String) throws {
        let record = AccountRecord(
            server: server, email: session.email, accountID: session.accountID, secretKey: secretKey.formatted(), deviceID: deviceID,
            deviceName: deviceName, salt: Data(session.salt), memoryKiB: session.kdf.memoryKiB, passes: session.kdf.passes, lanes: session.kdf.lanes,
            keyset: Data(session.keyset), token: session.token)
        try record.save(dataDirectory)
        let store = VaultStore.serving(dataDirectory)
        guard let key = session.vaultKey, store.isAccountVault else { return }
        let opened = store.exists ? try store.unlock(passwordKey: key) : try store.create(slotKey: key, parameters: record.parameters)
        // The keys to sync with, kept inside the vault (so a quick unlock can sync too).
        if let state = session.syncState, opened.vault.sync?.accountID != state.accountID {
            var vault = opened.vault
            vault.sync = state
            try opened.save(vault)
        }
    }
}
