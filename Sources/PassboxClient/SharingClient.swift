import Foundation
import PassboxCore
import PassboxCrypto
import PassboxProtocol

/// The device's side of the sharing routes (docs/PROTOCOL.md "Sharing"): one call each. Answers are checked
/// for shape here; what they mean is verified by `SharingOperations` before anything is believed.
extension AccountClient {
    public func keys(email: String, token: String) throws -> KeyLookupReply {
        do {
            return try call("POST", "/v1/keys", KeyLookupRequest(email: email), token: token, as: KeyLookupReply.self)
        } catch let error as ProtocolError where error.code == .contactNotFound {
            throw ProtocolError(.contactNotFound, ["email": email])
        }
    }

    public func orgs(token: String) throws -> OrgsReply {
        try call("GET", "/v1/orgs", Optional<KeyLookupRequest>.none, token: token, as: OrgsReply.self)
    }

    public func appendList(orgID: String, version: [UInt8], token: String) throws -> OrgAppendReply {
        try call("POST", "/v1/orgs/append", OrgAppendRequest(orgID: orgID, version: Data(version)), token: token, as: OrgAppendReply.self, limit: 1 << 20)
    }

    /// One page of the list after `since` (the caller asks again while `more`), at most 64 MiB.
    public func fetchList(orgID: String, since: Int64, token: String) throws -> OrgFetchReply {
        do {
            return try call("POST", "/v1/orgs/fetch", OrgFetchRequest(orgID: orgID, since: since), token: token, as: OrgFetchReply.self, timeoutSeconds: 60, limit: 32 << 20)
        } catch let error as ProtocolError where error.code == .notAMember {
            throw ProtocolError(.notAMember, ["org": orgID])
        }
    }

    public func invite(orgID: String, email: String, role: String, mail: Bool = false, token: String) throws -> OrgInviteReply {
        try call("POST", "/v1/orgs/invite", OrgInviteRequest(orgID: orgID, email: email, role: role, mail: mail ? true : nil), token: token, as: OrgInviteReply.self)
    }

    public func putVault(_ request: SharedVaultPutRequest, token: String) throws {
        let answer = try exchange("POST", "/v1/orgs/vaults/put", body: Array(try ProtocolCoding.wireEncode(request)), token: token, limit: 1 << 20)
        guard answer.status / 100 == 2 else { throw failure(answer) }
    }

    public func leave(orgID: String, token: String) throws {
        let answer = try exchange("POST", "/v1/orgs/leave", body: Array(try ProtocolCoding.wireEncode(OrgLeaveRequest(orgID: orgID))), token: token)
        guard answer.status / 100 == 2 else { throw failure(answer) }
    }

    public func revokeInvitation(orgID: String, id: String, token: String) throws {
        let answer = try exchange("POST", "/v1/orgs/revoke", body: Array(try ProtocolCoding.wireEncode(OrgRevokeRequest(orgID: orgID, id: id))), token: token)
        guard answer.status / 100 == 2 else { throw failure(answer) }
    }

    /// An invitation with its whole list, page by page (at most 100,000 versions).
    public func previewInvitation(token invitation: String, token: String) throws -> InvitationPreviewReply {
        var reply = try call("POST", "/v1/invitations/preview", InvitationTokenRequest(token: invitation), token: token, as: InvitationPreviewReply.self, timeoutSeconds: 60, limit: 32 << 20)
        var pages = 1
        while reply.more == true, !reply.versions.isEmpty, pages < 200 {
            let next = try call(
                "POST", "/v1/invitations/preview", InvitationTokenRequest(token: invitation, since: Int64(reply.versions.count)), token: token, as: InvitationPreviewReply.self,
                timeoutSeconds: 60, limit: 32 << 20)
            reply.versions += next.versions
            reply.more = next.more
            pages += 1
        }
        return reply
    }

    public func acceptInvitation(token invitation: String, token: String) throws {
        let answer = try exchange("POST", "/v1/invitations/accept", body: Array(try ProtocolCoding.wireEncode(InvitationTokenRequest(token: invitation))), token: token)
        guard answer.status / 100 == 2 else { throw failure(answer) }
    }
}

// MARK: Organisation recovery (ACC-10)

extension AccountClient {
    public func allowRecovery(orgID: String, allow: Bool, proof: FreshProof?, token: String) throws {
        let request = OrgRecoveryAllowRequest(orgID: orgID, allow: allow, proof: proof)
        let answer = try exchange("POST", "/v1/orgs/recovery/allow", body: Array(try ProtocolCoding.wireEncode(request)), token: token)
        guard answer.status / 100 == 2 else { throw failure(answer) }
    }

    public func approveRecovery(orgID: String, accountID: String, bundle: [UInt8], token: String) throws {
        let request = OrgRecoveryApproveRequest(orgID: orgID, accountID: accountID, bundle: Data(bundle))
        let answer = try exchange("POST", "/v1/orgs/recovery/approve", body: Array(try ProtocolCoding.wireEncode(request)), token: token)
        guard answer.status / 100 == 2 else { throw failure(answer) }
    }

    /// Someone who lost master password and Secret Key asks their family's owners to let them back in: a new
    /// keyset and a new Secret Key for the same account id are made here and sent with the request. They take
    /// effect only when an owner, having compared the new security code, approves. Returns the new Secret Key,
    /// the account id and the sealed keyset (its first 129 bytes are the public bundle).
    public func askFamilyForRecovery(
        email: String, newPassword: UnsafeRawBufferPointer, parameters: Argon2Parameters = AccountKDFParameters.newAccount
    ) throws -> (secretKey: SecretKey, accountID: String, keyset: [UInt8]) {
        let email = SignInTranscript.normalizedEmail(email)
        let start = try call("POST", "/v1/recovery/family/start", FamilyRecoveryStartRequest(email: email), as: FamilyRecoveryStartReply.self)
        guard let secretKey = SecretKey.generate(accountID: start.accountID) else { throw ProtocolError(.badServerAnswer, ["server": origin, "status": "recovery"]) }
        let keyset = try AccountKeyset.generate()
        let salt = SecureRandom.bytes(count: 16)
        let keys = try AccountKeys.derive(password: newPassword, salt: salt, parameters: parameters, secretKey: secretKey)
        let sealed = try keyset.sealed(accountID: start.accountID, unlockKey: keys.accountUnlockKey)
        let kdf = Self.wire(parameters)
        // Signed with the new keyset's own key: these credentials go with these keys and no others.
        let transcript = FamilyRecoveryKeysRequest.transcript(
            accountID: start.accountID, signInPublicKey: Data(keys.signInKey.publicKey), salt: Data(salt), kdf: kdf, keyset: Data(sealed))
        let request = FamilyRecoveryKeysRequest(
            email: email, token: start.token, salt: Data(salt), kdf: kdf, signInPublicKey: Data(keys.signInKey.publicKey), keyset: Data(sealed),
            signature: Data(keyset.signingKey.signature(for: transcript)))
        let answer = try exchange("POST", "/v1/recovery/family/keys", body: Array(try ProtocolCoding.wireEncode(request)), token: nil)
        guard answer.status / 100 == 2 else { throw failure(answer) }
        return (secretKey, start.accountID, sealed)
    }
}
