import Foundation
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxManifest
import PassboxProtocol
import PassboxStore

/// Organisation recovery (ACC-10, ACC-11): a family member who allowed it, and lost both master password and
/// Secret Key, makes new credentials on a new device (`ask`); an owner compares the new security code with
/// them and approves (`approve`): a list version holding the new keys (which renews the family's vault keys
/// for them), then the server takes the new credentials. The member's own vaults on the server are dropped:
/// their keys came from the lost keyset, so nobody — the owner neither — can open them.
extension SharingOperations {
    /// Lets the family's owners help this account back in (with the master password: a fresh proof), or stops
    /// it; the family's name.
    public static func allowRecovery(_ reference: String, allow: Bool, password: SecretText?, dataDirectory: String) throws -> String {
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        let orgID = try resolve(reference, record: record, dataDirectory: dataDirectory)
        let (head, _) = try refreshed(orgID, record: record, client: client, dataDirectory: dataDirectory)
        guard head.kind == .family else { throw ProtocolError(.organisationNotFound, ["name": reference]) }
        let proof = allow ? try AccountOperations.freshProof(SignInTranscript.familyRecoveryLabel, password: password, record: record, client: client, dataDirectory: dataDirectory) : nil
        try client.allowRecovery(orgID: orgID, allow: allow, proof: proof, token: record.token ?? "")
        return head.name
    }

    /// The families whose owners may help this account back in, by name (ids this device does not know as they are).
    public static func recoveryFamilies(_ ids: [String], dataDirectory: String) -> [String] {
        let lists = (try? SharingFile.load(dataDirectory).lists) ?? []
        return ids.map { id in lists.first { $0.orgID == id }.flatMap { try? MemberListVersion(decoding: Array($0.head)) }?.name ?? id }
    }

    /// Asks a family's owners to let this account back in with new credentials (on a device that keeps none of
    /// the account): the new Secret Key and the new security code to read out to an owner.
    public static func askForRecovery(server: String, email: String, newPassword: SecretText) throws -> (secretKey: SecretKey, code: String) {
        let client = try AccountClient(server: server)
        let (secretKey, accountID, keyset) = try newPassword.withUnsafeBytes { try client.askFamilyForRecovery(email: email, newPassword: $0) }
        let bundle = try KeyBundle(Array(keyset.prefix(KeyBundle.length)), accountID: accountID)
        return (secretKey, bundle.keys.securityCode.description)
    }

    /// An owner lets a member back in: `code` is the new security code the member read out, and the request's
    /// new keys must have exactly that code (anyone can file a request for an email that allows recovery: the
    /// code is what ties it to the member). The keys are pinned for the member's email, signed into a new list
    /// version (a new epoch: the vaults this owner manages get keys for them), and the server is told which
    /// keys were compared.
    public static func approveRecovery(_ reference: String, email: String, code: String, password: SecretText, dataDirectory: String) throws -> OrgView {
        let normalized = SignInTranscript.normalizedEmail(email)
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        let orgID = try resolve(reference, record: record, dataDirectory: dataDirectory)
        try requireTrusted(orgID, record: record, dataDirectory: dataDirectory)
        let (head, reply) = try refreshed(orgID, record: record, client: client, dataDirectory: dataDirectory)
        guard head.member(record.accountID)?.role == .owner else { throw ProtocolError(.notAMember, ["org": head.name]) }
        guard let request = (reply.recoveries ?? []).first(where: { $0.email == normalized }), let member = head.member(request.accountID), member.email == normalized
        else { throw ProtocolError(.memberNotFound, ["email": normalized, "org": head.name]) }
        let bundle: KeyBundle
        do { bundle = try KeyBundle(Array(request.bundle), accountID: request.accountID) } catch { throw refusal(error, email: normalized) }
        let typed = code.filter(\.isNumber)
        guard typed.count == 60, ConstantTime.equal(Array(typed.utf8), Array(bundle.keys.securityCode.description.filter(\.isNumber).utf8)) else {
            throw ProtocolError(.sharingRefused, ["problem": "codeMismatch", "email": normalized])
        }
        let keys = Keys(password, dataDirectory: dataDirectory)
        // The new keys become the pin for their email (the user compared the code, or chose not to).
        var file = try SharingFile.load(dataDirectory)
        let before = file.contact(server: record.server, email: normalized)
        file.set(SharingFile.Contact(server: record.server, email: normalized, accountID: request.accountID, bundle: Data(bundle.encoded), pinned: Date(), compared: true))
        try file.save(dataDirectory)
        let view: OrgView
        do {
            view = try amend(orgID, keys: keys, dataDirectory: dataDirectory) { next, _, _ in
                guard let i = next.members.firstIndex(where: { $0.accountID == request.accountID }) else {
                    throw ProtocolError(.memberNotFound, ["email": normalized, "org": head.name])
                }
                next.members[i].keys = bundle.keys
            }
        } catch {
            // The old pin comes back, unless the list holds the new keys by now.
            var file = try SharingFile.load(dataDirectory)
            let signed = (try? refreshed(orgID, record: record, client: client, dataDirectory: dataDirectory))?.head.member(request.accountID)?.keys == bundle.keys
            if !signed {
                if let before { file.set(before) } else { file.contacts.removeAll { $0.server == record.server && $0.email == normalized } }
                try? file.save(dataDirectory)
            }
            throw error
        }
        try client.approveRecovery(orgID: orgID, accountID: request.accountID, bundle: bundle.encoded, token: record.token ?? "")
        return view
    }
}
