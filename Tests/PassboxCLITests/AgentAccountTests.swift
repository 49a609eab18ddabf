import Foundation
import PassboxClient
import PassboxCore
import PassboxProtocol
import PassboxServerAPI
import PassboxStore
import PassboxTestKit
import Testing

/// The account's operations through the agent (what the web UI's onboarding and account pages send), against a
/// real `passbox server`: sign-up opens the account's vault, the account page, activity, the Emergency Kit as
/// PDF and its confirmation, two-factor sign-in turned on and used by a second device with a recovery code,
/// signing that device out, and two-factor sign-in turned off.
@Suite struct AgentAccountTests {
    /// Every operation this suite sends (AgentOperationTests checks that the rest are sent there).
    static let operations: Set<OperationName> = [
        .accountSignUp, .accountSignIn, .accountView, .accountActivity, .deviceSignOut, .twoFactorEnrol, .twoFactorConfirm, .twoFactorDisable, .kitPDF, .kitConfirm,
        .accountSignOut, .recoverySetup, .accountPassword,
    ]
    let master = "tulip ocean marble violin anchor"

    func failure(_ agent: RealAgent, _ request: Request) throws -> ErrorCode { try agent.failure(request).code }

    /// Never skipped: AgentOperationTests counts on this test to send the account's operations.
    @Test func theAgentSignsUpSignsInAndServesTheAccountPages() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/oathtool"), "oathtool is needed (make test installs it)")
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/pdftotext"), "pdftotext is needed (make test installs poppler-utils)")
        let dir = try TemporaryDirectory("passbox-agent-account")
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir)
        let first = try RealAgent(makeVault: false)
        #expect(try first.send(.status).status().vaultExists == false)
        #expect(try first.send(.status).status().account == nil)
        // What is checked on this device before any network call.
        let nowhere = "http://127.0.0.1:9"
        #expect(try first.failure(.accountSignUp(AccountSignUpRequest(server: nowhere, email: "nobody", password: SecretText(master)))) == ProtocolError(.notAnEmail, ["email": "nobody"]))
        #expect(try failure(first, .accountSignUp(AccountSignUpRequest(server: nowhere, email: "me@example.org", password: SecretText("password1")))) == .masterTooWeak)
        let shortKey = try first.failure(.accountSignIn(AccountSignInRequest(server: nowhere, email: "me@example.org", password: SecretText("x"), secretKey: SecretText("P1-ABC"))))
        #expect(shortKey.code == .secretKeyInvalid && shortKey.facts["problem"] == "missing")
        #expect(try failure(first, .accountSignUp(AccountSignUpRequest(server: "http://vault.example.org", email: "me@example.org", password: SecretText(master)))) == .insecureServer)

        // Sign-up: the Secret Key once, and the account's vault open at once.
        let made = try first.send(.accountSignUp(AccountSignUpRequest(server: server.origin, email: "Web@Example.org", password: SecretText(master), deviceName: "Browser"))).signedUp()
        #expect(made.email == "web@example.org" && made.server == server.origin)
        #expect(made.secretKey.range(of: #"^P1-[0-9A-Z]{6}(-[0-9A-Z]{5,6}){5}$"#, options: .regularExpression) != nil)
        let status = try first.send(.status).status()
        #expect(status.unlocked && status.vaultExists == true)
        #expect(status.account == AccountBrief(email: "web@example.org", server: server.origin, kitReminder: true))
        #expect(try failure(first, .accountSignUp(AccountSignUpRequest(server: server.origin, email: "other@example.org", password: SecretText(master)))) == .alreadySignedIn)
        _ = try first.add("login", ItemChanges(title: "Made in the browser", username: "web"))
        // Phrases and duress passwords are the local vault's: an account's vault syncs every item.
        var phrased = ItemChanges(title: "Phrased")
        phrased.killphrase = "a killphrase"
        #expect(try failure(first, .add(AddRequest(category: "note", changes: phrased))) == .localVaultOnly)
        #expect(try failure(first, .duressSet(DuressRequest(current: SecretText(master), duress: SecretText("a duress password")))) == .localVaultOnly)
        #expect(try first.send(.sync(SyncRequest())).synced().status.queued == 0)

        // The account page and its activity.
        var view = try first.send(.accountView).account()
        #expect(view.email == "web@example.org" && view.accountID == String(made.secretKey.dropFirst(3).prefix(6)))
        #expect(view.devices.count == 1 && view.devices[0].isCurrent && view.devices[0].name == "Browser")
        #expect(!view.twoFactor.enabled && !view.kitConfirmed)
        #expect(try first.send(.accountActivity).activity().events.map(\.kind).contains("signup"))

        // The Emergency Kit: the master password first; the PDF holds the Secret Key whole; confirmed by its last four.
        // A wrong master password is counted as a wrong unlock is; the right one resets the count.
        let attempts = VaultStore.serving(first.session.data).attempts
        #expect(try failure(first, .kitPDF(KitRequest(password: SecretText("")))) == .wrongPassword)
        #expect(try attempts.failures() == 0, "nothing typed is not a guess")
        #expect(try failure(first, .kitPDF(KitRequest(password: SecretText("not the master password")))) == .wrongPassword)
        #expect(try attempts.failures() == 1)
        let kit = try first.send(.kitPDF(KitRequest(password: SecretText(master), language: "de"))).file()
        #expect(try attempts.failures() == 0)
        #expect(kit.mediaType == "application/pdf" && kit.name.hasSuffix(".pdf"))
        let pdf = try #require(Data(base64Encoded: kit.base64))
        #expect(pdf.prefix(5) == Data("%PDF-".utf8))
        let pdfPath = dir.path + "/kit.pdf"
        try pdf.write(to: URL(fileURLWithPath: pdfPath))
        let text = try Transcript.execute("/usr/bin/pdftotext", ["-layout", pdfPath, "-"], stdin: [], environment: [:]).stdout
        #expect(text.contains(made.secretKey) && text.contains("Auf einem neuen Gerät"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: first.session.data).allSatisfy { !$0.hasSuffix(".pdf") }, "no kit left behind")
        #expect(try failure(first, .kitConfirm(KitRequest(lastFour: SecretText("ZZZZ")))) == .kitMismatch)
        #expect(try first.send(.kitConfirm(KitRequest(lastFour: SecretText(String(made.secretKey.suffix(4)).lowercased())))) == .done)
        #expect(try first.send(.status).status().account?.kitReminder == false)

        // Two-factor sign-in: the setup as a QR code's modules and a setup key; a code of the app turns it on.
        // Turning it on needs the master password (a fresh proof of the sign-in key): a wrong one is refused here.
        #expect(try failure(first, .twoFactorEnrol(TwoFactorRequest(password: SecretText("not the master password")))) == .wrongPassword)
        #expect(try failure(first, .twoFactorEnrol(TwoFactorRequest())) == .wrongPassword)
        let setup = try first.send(.twoFactorEnrol(TwoFactorRequest(password: SecretText(master)))).twoFactorSetup()
        #expect(setup.uri.hasPrefix("otpauth://totp/") && setup.modules.count == setup.size && setup.modules.allSatisfy { $0.count == setup.size })
        let code = try Transcript.execute("/usr/bin/oathtool", ["--totp", "-b", setup.setupKey], stdin: [], environment: [:]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        if code != "000000" { #expect(try failure(first, .twoFactorConfirm(TwoFactorRequest(code: SecretText("000000")))) == .twoFactorCodeWrong) }
        // As an app shows it, "123 456": the space is dropped.
        let spaced = String(code.prefix(3)) + " " + String(code.suffix(3))
        let recovery = try first.send(.twoFactorConfirm(TwoFactorRequest(code: SecretText(spaced)))).recoveryCodes().codes
        #expect(recovery.count == 10)
        view = try first.send(.accountView).account()
        #expect(view.twoFactor.enabled && view.kitConfirmed)

        // A second device: the Secret Key is checked first, then the second factor is asked for; a recovery code
        // signs it in and its vault syncs the item made on the first.
        let second = try RealAgent(makeVault: false)
        let signIn = { (code: String?) in
            Request.accountSignIn(AccountSignInRequest(
                server: server.origin, email: "web@example.org", password: SecretText(self.master), secretKey: SecretText(made.secretKey.lowercased()), code: code.map(SecretText.init),
                deviceName: "Second"))
        }
        #expect(try failure(second, signIn(nil)) == .twoFactorRequired)
        #expect(try second.send(.status).status().account == nil, "nothing kept after a sign-in that needs its second factor")
        #expect(try second.send(signIn(recovery[0])) == .done)
        #expect(try second.send(.status).status().unlocked)
        var titles: [String] = []
        for _ in 0..<100 where !titles.contains("Made in the browser") {
            titles = (try? second.send(.list(ListRequest())).items().items.map(\.title)) ?? []
            if !titles.contains("Made in the browser") { usleep(100_000) }
        }
        #expect(titles.contains("Made in the browser"), "the second device's vault syncs the first's item")

        // The first signs the second out; the second's account page then says it is signed out.
        view = try first.send(.accountView).account()
        let other = try #require(view.devices.first { !$0.isCurrent })
        #expect(try failure(first, .deviceSignOut(DeviceSignOutRequest(device: view.devices.first { $0.isCurrent }!.deviceID, password: SecretText(master)))) == .badRequest)
        #expect(try failure(first, .deviceSignOut(DeviceSignOutRequest(device: other.deviceID, password: SecretText("not it")))) == .wrongPassword)
        #expect(try first.send(.deviceSignOut(DeviceSignOutRequest(device: other.deviceID, password: SecretText(master)))).count().count == 1)
        #expect(try failure(second, .accountView) == .notSignedIn)
        // The second signs out here (the Secret Key leaves it, only when asked by name) and signs in again: its
        // kept vault opens with the item.
        #expect(try failure(second, .accountSignOut(AccountSignOutRequest(forgetSecretKey: false))) == .badRequest)
        #expect(try second.send(.accountSignOut(AccountSignOutRequest(forgetSecretKey: true))).count().count == 1, "ended at the server (already)")
        let signedOut = try second.send(.status).status()
        #expect(signedOut.account == nil && !signedOut.unlocked && signedOut.vaultExists == false)
        #expect(try second.send(signIn(recovery[1])) == .done)
        #expect(try second.send(.list(ListRequest())).items().items.contains { $0.title == "Made in the browser" })
        #expect(try first.send(.accountActivity).activity().events.map(\.kind).contains("deviceSignedOut"))

        // ACC-11: a recovery code through the agent. A wrong master password makes none; the right one makes
        // one code, which the account page then lists (and which recovers the account below).
        #expect(try first.send(.accountView).account().recovery == RecoveryStatus(configured: false, created: nil))
        #expect(try failure(first, .recoverySetup(TwoFactorRequest(password: SecretText("not the master password")))) == .wrongPassword)
        #expect(try first.send(.accountView).account().recovery?.configured == false)
        let codes = try first.send(.recoverySetup(TwoFactorRequest(password: SecretText(master)))).recoveryCodes().codes
        #expect(codes.count == 1)
        let recoveryCode = try RecoveryCode(parsing: codes[0])
        let recoveryView = try #require(try first.send(.accountView).account().recovery)
        #expect(recoveryView.configured && recoveryView.created != nil && (recoveryView.organisations ?? []).isEmpty)
        #expect(try first.send(.accountActivity).activity().events.map(\.kind).contains("recoverySetUp"))

        // Two-factor sign-in off, with the master password; a locked agent shows no account page.
        #expect(try failure(first, .twoFactorDisable(TwoFactorRequest(password: SecretText("not the master password")))) == .wrongPassword)
        #expect(try first.send(.twoFactorDisable(TwoFactorRequest(password: SecretText(master)))) == .done)
        #expect(try !first.send(.accountView).account().twoFactor.enabled)
        #expect(try first.send(.deviceSignOut(DeviceSignOutRequest(others: true, password: SecretText(master)))).count().count == 1, "the second device, signed in again")
        // DEV-3: the master password changed through the agent (as `passbox passwd --account`): a weak one is
        // refused before the network, a wrong current one counted; then only the new one opens the vault.
        let changedMaster = "quartz harbor lantern meadow copper"
        #expect(try failure(first, .accountPassword(ChangePasswordRequest(current: SecretText(master), new: SecretText("password1")))) == .masterTooWeak)
        #expect(try failure(first, .accountPassword(ChangePasswordRequest(current: SecretText("not it at all"), new: SecretText(changedMaster)))) == .wrongPassword)
        let changedReply = try first.send(.accountPassword(ChangePasswordRequest(current: SecretText(master), new: SecretText(changedMaster))))
        #expect(changedReply == .done, "\(changedReply)")
        #expect(try first.send(.status).status().unlocked, "still unlocked")
        #expect(try first.send(.accountActivity).activity().events.map(\.kind).contains("passwordChanged"))
        #expect(try first.send(.lock(LockRequest())) == .done)
        #expect(try failure(first, .unlock(UnlockRequest(password: SecretText(master)))) == .wrongPassword)
        #expect(try first.send(.unlock(UnlockRequest(password: SecretText(changedMaster)))) == .done)
        #expect(try first.send(.list(ListRequest())).items().items.contains { $0.title == "Made in the browser" })
        #expect(try first.send(.lock(LockRequest())) == .done)
        #expect(try failure(first, .accountView) == .locked)
        // ACC-9 on the lock page: signing out while locked takes the Secret Key's last four characters.
        #expect(try failure(first, .accountSignOut(AccountSignOutRequest(forgetSecretKey: true))) == .locked)
        #expect(try failure(first, .accountSignOut(AccountSignOutRequest(forgetSecretKey: true, lastFour: SecretText("ABC")))) == .kitMismatch)
        #expect(try first.send(.status).status().account != nil, "wrong characters change nothing")
        let lastFour = String(made.secretKey.filter { $0 != "-" }.suffix(4)).lowercased()
        #expect(try first.send(.accountSignOut(AccountSignOutRequest(forgetSecretKey: true, lastFour: SecretText(lastFour)))).count().count == 1)
        #expect(try first.send(.status).status().account == nil)

        // The code the page showed recovers the account: the server's recovery blob opens with it.
        let newMaster = "harbor quill meadow lantern copper"
        let (_, recovered) = try Array(newMaster.utf8).withUnsafeBytes {
            try AccountClient(server: server.origin).recover(email: "web@example.org", code: recoveryCode, newPassword: $0, deviceID: "recovered-device", deviceName: "Recovered")
        }
        #expect(recovered.accountID == view.accountID)
    }
}
