import Foundation
import PassboxCore
import PassboxCrypto
import PassboxProtocol
import PassboxStore

/// The account's operations as requests: sign-up and sign-in open the account's vault on this device at once
/// (the served vault becomes the account's); the account pages need the vault unlocked, so a locked agent
/// says nothing of the account beyond what `status` says.
extension VaultService {
    /// Makes the account; its vault is then open. The key handed back opens it again (quick unlock).
    /// Signing up or in through the agent is for a data directory without a vault (the web UI's onboarding):
    /// with a local vault here the command line signs in (`passbox signin`), and the served vault changes.
    func refuseBesideALocalVault() throws {
        refreshStore()
        if store.exists, !store.isAccountVault { throw ProtocolError(.vaultExists, ["path": store.vaultPath]) }
    }

    public func signUp(_ r: AccountSignUpRequest) throws -> (SignedUpReply, SecretBytes?) {
        try refuseBesideALocalVault()
        let (secretKey, session, client) = try AccountOperations.signUp(r, dataDirectory: dataDirectory, surface: "Passbox")
        // The account exists now and its Secret Key must reach the user: a vault that does not open here is
        // opened at the lock page with the master password instead.
        let key = try? openAccountVault(session.vaultKey)
        return (SignedUpReply(email: session.email, server: client.origin, secretKey: secretKey.formatted()), key ?? nil)
    }

    /// Signs in; the account's vault is then open (and syncs, through the agent's live connection).
    public func signIn(_ r: AccountSignInRequest, deviceID: String? = nil, attestation: Data? = nil) throws -> SecretBytes? {
        try refuseBesideALocalVault()
        let session = try AccountOperations.signIn(r, dataDirectory: dataDirectory, surface: "Passbox", deviceID: deviceID, attestation: attestation)
        return (try? openAccountVault(session.vaultKey)) ?? nil
    }

    /// After the server ended this device's session (off the agent's queue): the vault locks and the data
    /// directory is read again (it serves no account now).
    public func finishSignOut() {
        lock()
        refreshStore()
    }

    /// After a sign-up or sign-in: the account's vault is opened with its key.
    func openAccountVault(_ key: SecretBytes?) throws -> SecretBytes? {
        refreshStore()
        guard let key, store.isAccountVault, store.exists else { return nil }
        try unlock(passwordKey: key)
        return key
    }

    /// The account pages' requests that need only the data directory and the network (view, activity, devices,
    /// two-factor): answered without the vault, so the agent runs them off its queue (the caller checked that
    /// an account's vault is unlocked).
    public static func performAccountNetwork(_ request: Request, dataDirectory: String) -> Reply {
        do {
            return try accountNetwork.answer(dataDirectory, request) ?? .failure(ProtocolError(.badRequest, ["reason": "not an account request"]))
        } catch {
            return .failure(ProtocolError.from(error))
        }
    }

    /// The account pages' network requests, their context the data directory.
    static let accountNetwork: OperationTable<String> = {
        var t = OperationTable<String>()
        t.on(Operations.accountView) { data, _ in try AccountOperations.view(data) }
        t.on(Operations.accountActivity) { data, _ in try AccountOperations.activity(data) }
        t.on(Operations.deviceSignOut) { data, r in CountReply(count: try AccountOperations.signOutDevice(r, dataDirectory: data), items: []) }
        t.on(Operations.twoFactorEnrol) { data, r in try AccountOperations.enrolTwoFactor(r, dataDirectory: data) }
        t.on(Operations.twoFactorConfirm) { data, r in try AccountOperations.confirmTwoFactor(r, dataDirectory: data) }
        t.on(Operations.twoFactorDisable) { data, r in
            try AccountOperations.disableTwoFactor(r, dataDirectory: data)
            return Done()
        }
        t.on(Operations.recoverySetup) { data, r in RecoveryCodesReply(codes: [try AccountOperations.setUpRecovery(r, dataDirectory: data)]) }
        return t
    }()

    /// The account pages' requests.
    static func addAccount(to t: inout OperationTable<VaultService>) {
        t.on(Operations.accountSignUp) { v, r in try v.signUp(r).0 }
        t.on(Operations.accountSignIn) { v, r in
            _ = try v.signIn(r)
            return Done()
        }
        t.include(accountNetwork) { v, answer in
            try v.requireAccountVault()
            return try answer(v.dataDirectory)
        }
        t.include(sharingNetwork) { v, answer in
            try v.requireAccountVault()
            let held = try SharingFile.lock(v.dataDirectory)
            defer { withExtendedLifetime(held) {} }
            return try answer(SharingContext(dataDirectory: v.dataDirectory, boxKey: v.session?.vault.sync?.boxKey))
        }
        t.on(Operations.kitPDF) { v, r in
            try v.requireAccountVault()
            return try AccountOperations.kitPDF(r, directory: v.dataDirectory, dataDirectory: v.dataDirectory)
        }
        t.on(Operations.accountPassword) { v, r in
            try v.requireAccountVault()
            try AccountOperations.changeMasterPassword(r, dataDirectory: v.dataDirectory)
            return Done()
        }
        t.on(Operations.kitConfirm) { v, r in
            try v.requireAccountVault()
            try AccountOperations.confirmKit(r, dataDirectory: v.dataDirectory)
            return Done()
        }
        t.on(Operations.accountSignOut) { v, r in
            try v.requireAccountVault()
            // The Secret Key leaves this device: only when asked for by name (the surface asks first).
            guard r.forgetSecretKey else { throw ProtocolError(.badRequest, ["reason": "signing out forgets the Secret Key: forgetSecretKey must be true"]) }
            // Signed out first: a sign-out that fails leaves the vault open as it was.
            let ended = try AccountOperations.signOut(v.dataDirectory)
            v.finishSignOut()
            return CountReply(count: ended ? 1 : 0)
        }
    }

    /// An account's vault is open here (else `locked`, or `noAccount` for the local vault).
    func requireAccountVault() throws {
        guard isUnlocked else { throw ProtocolError(.locked) }
        guard store.isAccountVault else { throw ProtocolError(.noAccount) }
    }
}
