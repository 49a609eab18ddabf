import Foundation
import PassboxCore
import PassboxCrypto
import PassboxProtocol

/// The device's side of an account on a `passbox server`: sign-up (the Secret Key made here), sign-in (the
/// Secret Key checked here before any network call), the account's facts and sign-out. Failures are
/// `ProtocolError`s: the server's own codes, or `serverUnreachable`, `badServerAnswer`, `insecureServer`,
/// `serverParametersRefused` for what happens on the way.
public struct AccountClient: Sendable {
    /// The server's origin (`https://vault.example.org`), which is what a sign-in signs.
    public let origin: String

    /// Checks the address: https, or http only to this machine (127.0.0.0/8, ::1, localhost).
    public init(server: String) throws {
        var text = server.trimmingCharacters(in: .whitespaces)
        while text.hasSuffix("/") { text.removeLast() }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
            scheme == "https" || scheme == "http", url.path.isEmpty, url.query == nil
        else { throw ProtocolError(.notAnAddress, ["address": server]) }
        if scheme == "http" {
            guard Loopback.isLoopbackHost(host) else { throw ProtocolError(.insecureServer, ["server": text]) }
        }
        origin = SignInTranscript.normalizedOrigin(text)
    }

    /// What sign-up and sign-in leave on the device (the CLI keeps it in the account record).
    public struct SignedIn: Sendable {
        public let accountID: String
        public let email: String
        public let token: String
        public let keyset: [UInt8]
        public let salt: [UInt8]
        public let kdf: Argon2Parameters
        /// The token that skips the second factor on this device for 30 days, when asked for.
        public var rememberToken: String? = nil
        /// The key of the account's personal vault on this device (from the opened keyset), to make it.
        public var vaultKey: SecretBytes? = nil
        /// What the device keeps to sync the account's vaults (from the opened keyset).
        public var syncState: SyncState? = nil
    }

    /// Makes a new account: a new Secret Key, salt and keyset, sent with the sign-in public key; then signs in
    /// as this device. Returns the Secret Key (shown to the user once) and the session.
    public func signup(
        email: String, password: UnsafeRawBufferPointer, deviceID: String, deviceName: String, invitation: String? = nil,
        parameters: Argon2Parameters = AccountKDFParameters.newAccount
    ) throws -> (SecretKey, SignedIn) {
        let email = SignInTranscript.normalizedEmail(email)
        let keyset = try AccountKeyset.generate()
        // A six-character account id can collide with another account's: a new key is made and tried again.
        for attempt in 1...3 {
            let secretKey = SecretKey.generate()
            let salt = SecureRandom.bytes(count: 16)
            let keys = try AccountKeys.derive(password: password, salt: salt, parameters: parameters, secretKey: secretKey)
            let request = SignupRequest(
                accountID: secretKey.accountID, email: email, salt: Data(salt), kdf: Self.wire(parameters),
                signInPublicKey: Data(keys.signInKey.publicKey), keyset: Data(try keyset.sealed(accountID: secretKey.accountID, unlockKey: keys.accountUnlockKey)),
                invitation: invitation)
            do {
                _ = try call("POST", "/v1/signup", request, as: SignupReply.self)
            } catch let error as ProtocolError where error.code == .accountIDTaken && attempt < 3 {
                continue
            }
            let session = try signin(email: email, keys: keys, accountID: secretKey.accountID, salt: salt, parameters: parameters, deviceID: deviceID, deviceName: deviceName)
            return (secretKey, session)
        }
        throw ProtocolError(.accountIDTaken)
    }

    /// Signs in as this device. `lastUsed` are the parameters this device used last for the account, if any:
    /// the server cannot change them silently, nor offer less than the floor.
    public func signin(
        email: String, password: UnsafeRawBufferPointer, secretKey: SecretKey, deviceID: String, deviceName: String, lastUsed: Argon2Parameters?,
        lastSalt: [UInt8]? = nil, rememberToken: String? = nil, rememberDevice: Bool = false, secondFactor: (() throws -> String)? = nil
    ) throws -> SignedIn {
        let email = SignInTranscript.normalizedEmail(email)
        let pre = try call("POST", "/v1/prelogin", PreloginRequest(email: email), as: PreloginReply.self)
        // A salt other than the one this device last signed in with is refused before anything is derived or
        // signed: a server that swaps it would otherwise get a signature made with keys of its choosing.
        if let lastSalt, Array(pre.salt) != lastSalt {
            throw ProtocolError(.serverSaltChanged, ["server": origin])
        }
        let parameters = Argon2Parameters(memoryKiB: pre.kdf.memoryKiB, passes: pre.kdf.passes, lanes: pre.kdf.lanes)
        do {
            try AccountKDFPolicy.check(parameters, lastUsed: lastUsed)
        } catch {
            throw ProtocolError(.serverParametersRefused, ["memoryMiB": String(parameters.memoryKiB / 1024), "passes": String(parameters.passes), "lanes": String(parameters.lanes)])
        }
        guard pre.salt.count == 16 else { throw ProtocolError(.badServerAnswer, ["server": origin, "status": "200"]) }
        let keys = try AccountKeys.derive(password: password, salt: Array(pre.salt), parameters: parameters, secretKey: secretKey)
        do {
            return try signin(
                email: email, keys: keys, accountID: secretKey.accountID, salt: Array(pre.salt), parameters: parameters, deviceID: deviceID, deviceName: deviceName,
                rememberToken: rememberToken)
        } catch let error as ProtocolError where error.code == .twoFactorRequired && secondFactor != nil {
            // The account has two-factor sign-in: ask for the code and sign again over a new challenge.
            // Apps show a code as "123 456": spaces inside a six-digit code are dropped.
            var answer = try secondFactor!().trimmingCharacters(in: .whitespaces)
            let digits = answer.filter { !$0.isWhitespace }
            if digits.count == 6, digits.allSatisfy(\.isNumber) { answer = digits }
            let isCode = answer.count == 6 && answer.allSatisfy(\.isNumber)
            return try signin(
                email: email, keys: keys, accountID: secretKey.accountID, salt: Array(pre.salt), parameters: parameters, deviceID: deviceID, deviceName: deviceName,
                otp: isCode ? answer : nil, recoveryCode: isCode ? nil : answer, rememberDevice: rememberDevice)
        }
    }

    private func signin(
        email: String, keys: AccountKeys, accountID: String, salt: [UInt8], parameters: Argon2Parameters, deviceID: String, deviceName: String,
        otp: String? = nil, recoveryCode: String? = nil, rememberToken: String? = nil, rememberDevice: Bool = false
    ) throws -> SignedIn {
        let challenge = try call("POST", "/v1/signin/challenge", ChallengeRequest(email: email, deviceID: deviceID), as: ChallengeReply.self)
        let transcript = SignInTranscript.bytes(origin: origin, email: email, challenge: Array(challenge.challenge), deviceID: deviceID)
        let request = SigninRequest(
            challengeID: challenge.challengeID, email: email, deviceID: deviceID, deviceName: deviceName,
            signature: Data(keys.signInKey.signature(for: transcript)), otp: otp, recoveryCode: recoveryCode, rememberToken: rememberToken,
            rememberDevice: rememberDevice ? true : nil)
        let reply = try call("POST", "/v1/signin", request, as: SigninReply.self)
        // The keyset must open with this device's keys and belong to the account the Secret Key names: a server
        // that answers with another account's keyset is caught here.
        guard reply.accountID == accountID, let keyset = try? AccountKeyset(opening: Array(reply.keyset), accountID: accountID, unlockKey: keys.accountUnlockKey)
        else { throw ProtocolError(.badServerAnswer, ["server": origin, "status": "keyset"]) }
        return SignedIn(
            accountID: accountID, email: email, token: reply.token, keyset: Array(reply.keyset), salt: salt, kdf: parameters,
            rememberToken: reply.rememberToken.flatMap { $0.utf8.count <= 128 ? $0 : nil }, vaultKey: try keyset.derivePersonalVaultKey(accountID: accountID),
            syncState: try keyset.syncState(accountID: accountID))
    }

    /// The account's facts and devices, for a signed-in session.
    public func account(token: String) throws -> AccountReply {
        try call("GET", "/v1/account", Optional<Int>.none, token: token, as: AccountReply.self)
    }

    /// Ends this device's session on the server.
    public func signout(token: String) throws {
        let answer = try exchange("DELETE", "/v1/session", body: nil, token: token)
        guard answer.status == 204 else { throw failure(answer) }
    }

    /// Changes the master password: the current one must open the keyset this device keeps (a wrong one is
    /// caught here and never sent); the keyset is sealed again under the new account unlock key, the Secret
    /// Key stays. Returns the new salt, parameters and sealed keyset for the account record.
    public func changePassword(
        email: String, current: UnsafeRawBufferPointer, new: UnsafeRawBufferPointer, secretKey: SecretKey, salt: [UInt8], lastUsed: Argon2Parameters,
        keyset sealed: [UInt8], deviceID: String, token: String, parameters: Argon2Parameters = AccountKDFParameters.newAccount
    ) throws -> (salt: [UInt8], kdf: Argon2Parameters, keyset: [UInt8]) {
        let currentKeys = try AccountKeys.derive(password: current, salt: salt, parameters: lastUsed, secretKey: secretKey)
        guard let keyset = try? AccountKeyset(opening: sealed, accountID: secretKey.accountID, unlockKey: currentKeys.accountUnlockKey) else {
            throw ProtocolError(.wrongPassword)
        }
        let newSalt = SecureRandom.bytes(count: 16)
        let newKeys = try AccountKeys.derive(password: new, salt: newSalt, parameters: parameters, secretKey: secretKey)
        let resealed = try keyset.sealed(accountID: secretKey.accountID, unlockKey: newKeys.accountUnlockKey)
        let challenge = try call("POST", "/v1/signin/challenge", ChallengeRequest(email: email, deviceID: deviceID), as: ChallengeReply.self)
        let transcript = SignInTranscript.bytes(
            label: SignInTranscript.passwordChangeLabel, origin: origin, email: email, challenge: Array(challenge.challenge), deviceID: deviceID)
        let request = PasswordChangeRequest(
            challengeID: challenge.challengeID, signature: Data(currentKeys.signInKey.signature(for: transcript)), salt: Data(newSalt),
            kdf: Self.wire(parameters), signInPublicKey: Data(newKeys.signInKey.publicKey), keyset: Data(resealed))
        let answer = try exchange("POST", "/v1/account/password", body: Array(try ProtocolCoding.wireEncode(request)), token: token)
        guard answer.status == 204 else { throw failure(answer) }
        return (newSalt, parameters, resealed)
    }

    // MARK: Account recovery

    /// The breach catalogue the server mirrors (SEC-15): nil when the copy whose SHA-256 is `have` is still its
    /// catalogue, else its bytes (at most 16 MiB; the caller parses them before keeping anything).
    public func breachCatalogue(token: String, have: String?) throws -> Data? {
        let answer = try exchange("POST", "/v1/catalogue/breaches", body: Array(try ProtocolCoding.wireEncode(CatalogueRequest(have: have))), token: token, timeoutSeconds: 60, limit: 16 << 20)
        if answer.status == 204 { return nil }
        guard answer.status == 200 else { throw failure(answer) }
        return Data(answer.body)
    }

    public func recoveryStatus(token: String) throws -> RecoveryStatus {
        try call("GET", "/v1/recovery", Optional<Int>.none, token: token, as: RecoveryStatus.self)
    }

    /// Makes a new recovery code (replacing an earlier one): the master password must open the kept keyset;
    /// the keyset is sealed under the code's recovery key and sent with the code's public key, after a fresh
    /// signature by the current sign-in key. Returns the code, shown once.
    public func setUpRecovery(
        email: String, password: UnsafeRawBufferPointer, secretKey: SecretKey, salt: [UInt8], parameters: Argon2Parameters, keyset sealed: [UInt8],
        deviceID: String, token: String
    ) throws -> RecoveryCode {
        let keys = try AccountKeys.derive(password: password, salt: salt, parameters: parameters, secretKey: secretKey)
        guard let keyset = try? AccountKeyset(opening: sealed, accountID: secretKey.accountID, unlockKey: keys.accountUnlockKey) else {
            throw ProtocolError(.wrongPassword)
        }
        let code = RecoveryCode.generate()
        let blob = try keyset.sealed(accountID: secretKey.accountID, unlockKey: try code.recoveryKey())
        let challenge = try call("POST", "/v1/signin/challenge", ChallengeRequest(email: email, deviceID: deviceID), as: ChallengeReply.self)
        let transcript = SignInTranscript.bytes(
            label: SignInTranscript.recoverySetupLabel, origin: origin, email: email, challenge: Array(challenge.challenge), deviceID: deviceID)
        let request = RecoverySetupRequest(
            proof: FreshProof(challengeID: challenge.challengeID, signature: Data(keys.signInKey.signature(for: transcript))),
            publicKey: Data(try code.signInKey().publicKey), blob: Data(blob))
        let answer = try exchange("POST", "/v1/recovery", body: Array(try ProtocolCoding.wireEncode(request)), token: token)
        guard answer.status == 204 else { throw failure(answer) }
        return code
    }

    /// Recovers an account whose master password (and perhaps Secret Key) is lost: proves the recovery code,
    /// opens the recovery blob here, and sets a new master password with a new Secret Key for the same
    /// account id. Every other session ends and the code is used up. Returns the new Secret Key and this
    /// device's session.
    public func recover(
        email: String, code: RecoveryCode, newPassword: UnsafeRawBufferPointer, deviceID: String, deviceName: String,
        parameters: Argon2Parameters = AccountKDFParameters.newAccount
    ) throws -> (SecretKey, SignedIn) {
        let email = SignInTranscript.normalizedEmail(email)
        let signer = try code.signInKey()
        func proof() throws -> RecoveryProof {
            let challenge = try call("POST", "/v1/signin/challenge", ChallengeRequest(email: email, deviceID: deviceID), as: ChallengeReply.self)
            let transcript = SignInTranscript.bytes(
                label: SignInTranscript.recoveryLabel, origin: origin, email: email, challenge: Array(challenge.challenge), deviceID: deviceID)
            return RecoveryProof(challengeID: challenge.challengeID, email: email, deviceID: deviceID, signature: Data(signer.signature(for: transcript)))
        }
        let fetched = try call("POST", "/v1/recovery/blob", try proof(), as: RecoveryBlobReply.self)
        guard let keyset = try? AccountKeyset(opening: Array(fetched.blob), accountID: fetched.accountID, unlockKey: try code.recoveryKey()),
            let secretKey = SecretKey.generate(accountID: fetched.accountID)
        else { throw ProtocolError(.badServerAnswer, ["server": origin, "status": "recovery"]) }
        let salt = SecureRandom.bytes(count: 16)
        let keys = try AccountKeys.derive(password: newPassword, salt: salt, parameters: parameters, secretKey: secretKey)
        let sealed = try keyset.sealed(accountID: fetched.accountID, unlockKey: keys.accountUnlockKey)
        let request = RecoveryCompleteRequest(
            proof: try proof(), deviceName: deviceName, salt: Data(salt), kdf: Self.wire(parameters), signInPublicKey: Data(keys.signInKey.publicKey),
            keyset: Data(sealed))
        let reply = try call("POST", "/v1/recovery/complete", request, as: SigninReply.self)
        guard reply.accountID == fetched.accountID else { throw ProtocolError(.badServerAnswer, ["server": origin, "status": "recovery"]) }
        return (
            secretKey,
            SignedIn(
                accountID: reply.accountID, email: email, token: reply.token, keyset: sealed, salt: salt, kdf: parameters,
                vaultKey: try keyset.derivePersonalVaultKey(accountID: reply.accountID), syncState: try keyset.syncState(accountID: reply.accountID))
        )
    }

    // MARK: Two-factor sign-in

    public func twoFactorStatus(token: String) throws -> TwoFactorStatus {
        try call("GET", "/v1/2fa", Optional<Int>.none, token: token, as: TwoFactorStatus.self)
    }

    /// A pending TOTP secret, as the parameters an authenticator app takes (SHA-1, 6 digits, 30 s); `proof`
    /// is a fresh proof labelled `twoFactorOnLabel`.
    public func enrolTwoFactor(token: String, email: String, proof: FreshProof) throws -> OTPParameters {
        let reply = try call("POST", "/v1/2fa/enrol", proof, token: token, as: TwoFactorEnrolReply.self)
        guard reply.secret.count >= 16 else { throw ProtocolError(.badServerAnswer, ["server": origin, "status": "2fa"]) }
        let host = URL(string: origin)?.host ?? "Passbox"
        return OTPParameters(kind: .totp, secret: Array(reply.secret), issuer: "Passbox (\(host))", account: email)
    }

    /// Turns two-factor sign-in on with a code of the app; the ten recovery codes, shown once.
    public func confirmTwoFactor(token: String, code: String) throws -> [String] {
        let codes = try call("POST", "/v1/2fa/confirm", TwoFactorCodeRequest(code: code), token: token, as: RecoveryCodesReply.self).codes
        // Shown to the user as they came: only the shape a recovery code has is accepted.
        let shape = Set("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        guard codes.count == 10, codes.allSatisfy({ $0.count == 11 && Array($0)[5] == "-" && $0.filter { $0 != "-" }.allSatisfy(shape.contains) }) else {
            throw ProtocolError(.badServerAnswer, ["server": origin, "status": "2fa"])
        }
        return codes
    }

    /// A fresh proof of the sign-in key for an operation (`label`): the master password must open the kept
    /// keyset (a wrong one is caught here, before anything is sent), then the sign-in key signs a new
    /// challenge of this device.
    public func freshProof(
        label: String, email: String, password: UnsafeRawBufferPointer, secretKey: SecretKey, salt: [UInt8], parameters: Argon2Parameters, keyset: [UInt8],
        deviceID: String
    ) throws -> FreshProof {
        let keys = try AccountKeys.derive(password: password, salt: salt, parameters: parameters, secretKey: secretKey)
        guard (try? AccountKeyset(opening: keyset, accountID: secretKey.accountID, unlockKey: keys.accountUnlockKey)) != nil else {
            throw ProtocolError(.wrongPassword)
        }
        let challenge = try call("POST", "/v1/signin/challenge", ChallengeRequest(email: email, deviceID: deviceID), as: ChallengeReply.self)
        let transcript = SignInTranscript.bytes(label: label, origin: origin, email: email, challenge: Array(challenge.challenge), deviceID: deviceID)
        return FreshProof(challengeID: challenge.challengeID, signature: Data(keys.signInKey.signature(for: transcript)))
    }

    /// Turns two-factor sign-in off with a fresh proof labelled `twoFactorOffLabel`.
    public func disableTwoFactor(token: String, proof: FreshProof) throws {
        let answer = try exchange("POST", "/v1/2fa/disable", body: Array(try ProtocolCoding.wireEncode(proof)), token: token)
        guard answer.status == 204 else { throw failure(answer) }
    }

    /// The account's last 50 events.
    public func activity(token: String) throws -> ActivityReply {
        try call("GET", "/v1/activity", Optional<Int>.none, token: token, as: ActivityReply.self)
    }

    /// Signs out one other device of the account, with a fresh proof labelled `deviceSignOutLabel`.
    public func signout(device: String, token: String, proof: FreshProof) throws {
        let escaped = device.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let answer = try exchange("DELETE", "/v1/devices/" + escaped, body: Array(try ProtocolCoding.wireEncode(proof)), token: token)
        guard answer.status == 204 else {
            let error = failure(answer)
            throw error.code == .deviceNotFound ? ProtocolError(.deviceNotFound, ["device": device]) : error
        }
    }

    /// Signs out every other device of the account, with a fresh proof labelled `deviceSignOutLabel`; how many
    /// there were.
    public func signoutOthers(token: String, proof: FreshProof) throws -> Int {
        try call("POST", "/v1/devices/signout-others", proof, token: token, as: SignedOutReply.self).count
    }

    // MARK: HTTP

    static func wire(_ p: Argon2Parameters) -> KDFParameters { KDFParameters(memoryKiB: p.memoryKiB, passes: p.passes, lanes: p.lanes) }

    func call<B: Encodable, R: Decodable>(
        _ method: String, _ path: String, _ body: B?, token: String? = nil, as: R.Type, timeoutSeconds: Int = 30, limit: Int = 4 << 20
    ) throws -> R {
        let answer = try exchange(method, path, body: try body.map { Array(try ProtocolCoding.wireEncode($0)) }, token: token, timeoutSeconds: timeoutSeconds, limit: limit)
        guard answer.status / 100 == 2 else { throw failure(answer) }
        do {
            return try ProtocolCoding.wireDecode(R.self, from: Data(answer.body))
        } catch {
            throw ProtocolError(.badServerAnswer, ["server": origin, "status": String(answer.status)])
        }
    }

    func exchange(
        _ method: String, _ path: String, body: [UInt8]?, token: String?, timeoutSeconds: Int = 30, limit: Int = 4 << 20
    ) throws -> (status: Int, body: [UInt8]) {
        var headers = ["Accept: application/json", "User-Agent: passbox", "\(ServerAPI.header): \(ServerAPI.version)"]
        if body != nil { headers.append("Content-Type: application/json") }
        if let token { headers.append("Authorization: Bearer \(token)") }
        do {
            return try HTTPGet.exchange(method, origin + path, headers: headers, body: body, timeoutSeconds: timeoutSeconds, limit: limit)
        } catch let failure as HTTPGet.Failure {
            throw ProtocolError(.serverUnreachable, ["server": origin, "reason": failure.description])
        }
    }

    /// The server's typed error, or `badServerAnswer` when the answer is not one (a proxy's page, garbage).
    /// None of the server's facts are kept: a server cannot make the client show words of its choosing
    /// (security.md §6b), and a request it calls bad is an answer this client cannot use.
    func failure(_ answer: (status: Int, body: [UInt8])) -> ProtocolError {
        let serverCodes: Set<ErrorCode> = [
            .accountExists, .accountIDTaken, .signInFailed, .challengeExpired, .notSignedIn, .deviceNotFound, .signupClosed, .twoFactorRequired, .twoFactorCodeWrong,
            .requestTimeout, .syncConflict, .notAMember, .contactNotFound, .lastOwner, .viewOnly, .linkNotFound,
        ]
        if let error = try? ProtocolCoding.wireDecode(ProtocolError.self, from: Data(answer.body)) {
            if serverCodes.contains(error.code) { return ProtocolError(error.code) }
            // The wait is the one fact taken, as a number of whole minutes within a day.
            // An invitation's refusal keeps its reason only when it is one of the known few.
            if error.code == .invitationInvalid, let reason = error.facts["reason"], ["missing", "unknown", "used", "expired", "otherEmail"].contains(reason) {
                return ProtocolError(.invitationInvalid, ["reason": reason])
            }
            // The quota and what is used, as whole numbers of MiB: numbers, never words.
            if error.code == .blobQuotaExceeded, let quota = error.facts["quotaMiB"].flatMap(Int.init), let used = error.facts["usedMiB"].flatMap(Int.init), quota >= 0, used >= 0 {
                return ProtocolError(.blobQuotaExceeded, ["quotaMiB": String(quota), "usedMiB": String(used)])
            }
            // The blobs a push refers to that the server lacks: ids, each 32 hex digits, as many as a push declares.
            if error.code == .blobsMissing, let list = error.facts["ids"] {
                let ids = list.split(separator: ",").map(String.init)
                if !ids.isEmpty, ids.count <= BlobTransfer.declaredLimit, ids.allSatisfy(BlobTransfer.isValidID) {
                    return ProtocolError(.blobsMissing, ["ids": ids.joined(separator: ",")])
                }
            }
            // The server's oldest version as a number; this client's own version is its own to say.
            if error.code == .clientTooOld, let oldest = error.facts["oldest"].flatMap(Int.init), oldest > ServerAPI.version, oldest < 100_000 {
                return ProtocolError(.clientTooOld, ["oldest": String(oldest), "client": String(ServerAPI.version)])
            }
            if error.code == .rateLimited, let minutes = error.facts["minutes"].flatMap(Int.init), (1...1440).contains(minutes) {
                return ProtocolError(.rateLimited, ["minutes": String(minutes)])
            }
        }
        // A proxy's "bad gateway", "unavailable" or "gateway timeout" (or the server's own 503 while it stops): the
        // server is not reachable for now, which a retry may mend, not an answer it gave.
        if [502, 503, 504].contains(answer.status) { return ProtocolError(.serverUnreachable, ["server": origin, "reason": "HTTP \(answer.status)"]) }
        return ProtocolError(.badServerAnswer, ["server": origin, "status": String(answer.status)])
    }
}
