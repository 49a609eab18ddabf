import PassboxCrypto

extension OpenVault {
    /// The vault's own password (the master password for an account's vault), checked as a counted unlock
    /// attempt held to the deadline: it must open this very slot. The tenth in a row is left to the unlock
    /// prompt (G20). For settings that need the password once more, such as the backup password.
    public func checkOwnPassword(_ current: SecretBytes) throws {
        try store.attempts.refuseTenthOutsideUnlock()
        let check = try store.unlock(password: current)
        try checkSameSlot(check)
    }
}
