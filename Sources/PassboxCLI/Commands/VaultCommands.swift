import Foundation
import PassboxCore
import PassboxCrypto
import PassboxProtocol
import PassboxService
import PassboxStore
import PassboxWording

extension Commands {
    /// `passbox init`: creates the local vault, asking for a new password (twice on a terminal).
    static func initVault(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: "passbox init")
        // Signed in, the account's vault is served: it is made at sign-in and opens with the master password.
        if context.store.isAccountVault, let record = try AccountRecord.load(context.dataDirectory) {
            throw ProtocolError(.alreadySignedIn, ["email": record.email, "server": record.server])
        }
        if context.store.exists {
            // A file that is not a vault is named as such (the hint to change a vault's password would mislead).
            let handle = FileHandle(forReadingAtPath: context.store.vaultPath)
            let head = (try? handle?.read(upToCount: VaultHeader.length)).flatMap { $0.map(Array.init) } ?? []
            try? handle?.close()
            if (try? VaultHeader.decode(head, path: context.store.vaultPath)) == nil {
                throw ProtocolError(.notAVault, ["path": context.store.vaultPath])
            }
            throw ProtocolError(.vaultExists, ["path": context.store.vaultPath])
        }
        let password = try newPassword(context, prompt: "New vault password: ")
        let parameters: Argon2Parameters
        if args.flag("insecure-test-kdf") {
            Console.err("passbox: warning: --insecure-test-kdf makes a vault that is cheap to attack; use it only for tests")
            parameters = Argon2Parameters(memoryKiB: 64, passes: 1, lanes: 1)
        } else {
            Console.err("Measuring this machine to choose the key-derivation cost (about a second)…")
            parameters = try Argon2Calibration.calibrate().parameters
        }
        let used = try VaultService(dataDirectory: context.dataDirectory, store: context.store).create(password: password, parameters: parameters)
        Console.out("Created a vault at \(context.store.vaultPath)")
        Console.out("Key derivation: \(describe(used))")
        Console.out("Next: passbox add login --title \"Example\" --username you@example.com --url example.com --generate")
    }

    /// `passbox passwd`: changes the vault password; only this vault's slot is rewritten, with a new data key.
    /// With an agent running, it stays unlocked with the new keys.
    static func changePassword(_ context: Context, _ args: Arguments) throws {
        try args.expectPositionals(0...0, usage: "passbox passwd")
        guard context.store.exists else { throw ProtocolError(.noVault, ["path": context.store.vaultPath]) }
        let current = try context.input.secretText(prompt: "Current vault password: ")
        let new = try newPassword(context, prompt: "New vault password: ")
        try context.send(.changePassword(ChangePasswordRequest(current: current, new: SecretText(new))))
        Console.out("Changed the vault password.")
    }

    /// "Argon2id, 512 MiB, 4 passes, 4 lanes".
    static func describe(_ p: Argon2Parameters) -> String {
        let memory = p.memoryKiB >= 1024 ? "\(p.memoryKiB / 1024) MiB" : "\(p.memoryKiB) KiB"
        return "Argon2id, \(memory), \(p.passes) pass\(p.passes == 1 ? "" : "es"), \(p.lanes) lane\(p.lanes == 1 ? "" : "s")"
    }

    /// Reads a new password, checks the rule (G27), shows its strength and warns below "strong".
    static func newPassword(_ context: Context, prompt: String) throws -> String {
        let password = try context.input.secret(prompt: prompt)
        try PasswordRules.checkLocalVaultPassword(password)
        if context.input.isTerminal {
            let again = try context.input.secret(prompt: "Repeat it: ")
            guard again == password else { throw CLIError.failure("the two passwords differ", hint: "run the command again") }
        }
        // Strength is advice here: without libzxcvbn the rules above still apply and the line is left out.
        guard let strength = try? Tools.strength(password) else { return password }
        Console.err("Strength: \(context.tr("strength.label.\(strength.score)")) (\(strength.score)/4)")
        if strength.score < 3 {
            Console.err("passbox: warning: this password is not strong. \(strength.warning.map { context.tr($0) } ?? "") Anyone with a copy of the vault file can try guesses at it; a long passphrase of random words is safer.")
        }
        return password
    }
}
