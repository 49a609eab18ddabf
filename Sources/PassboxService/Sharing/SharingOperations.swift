import Foundation
import PassboxClient
import PassboxCore
import PassboxCrypto
import PassboxManifest
import PassboxProtocol
import PassboxStore

/// Families and teams for the account of one data directory (security.md §6, docs/PROTOCOL.md "Sharing"):
/// the key directory with pins, security codes, organisations' member lists, invitations and confirmation.
/// Everything the server shows is verified here before it is believed or kept; what does not verify is
/// refused with `sharingRefused` and kept as a sharing warning. Writes (a new list version) need the master
/// password, which opens the account's signing key for the one operation.
public enum SharingOperations {
    // MARK: Identity and contacts

    static func ownBundle(_ record: AccountRecord) throws -> KeyBundle {
        do { return try KeyBundle(Array(record.keyset), accountID: record.accountID) } catch { throw refusal(error, email: record.email) }
    }

    /// This account's security code; with `checkServer`, whether the server's directory publishes the same keys.
    public static func ownCode(dataDirectory: String, checkServer: Bool) throws -> OwnCodeView {
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        let own = try ownBundle(record)
        var matches: Bool?
        if checkServer {
            let shown = try client.keys(email: record.email, token: record.token ?? "")
            matches = shown.accountID == record.accountID && (try? KeyBundle(Array(shown.bundle), accountID: shown.accountID))?.keys == own.keys
        }
        return OwnCodeView(email: record.email, securityCode: own.keys.securityCode.description, serverMatches: matches)
    }

    /// Looks `email` up in the server's directory and holds it to this device's pin: the first keys seen are
    /// pinned; other keys later are kept aside as `pending` with a `keyChanged` warning, the pin staying in
    /// force. `acceptNew` (after the user compared the new code) makes the pending keys the pin.
    public static func contact(_ email: String, acceptNew: Bool = false, markCompared: Bool = false, dataDirectory: String) throws -> ContactView {
        let (record, client) = try AccountOperations.signedIn(dataDirectory)
        let normalized = SignInTranscript.normalizedEmail(email)
        let shown = try client.keys(email: normalized, token: record.token ?? "")
        var file = try SharingFile.load(dataDirectory)
        let bundle: KeyBundle
        do {
            guard SignInTranscript.normalizedEmail(shown.email) == normalized else { throw SharingError.bundleInvalid }
            bundle = try KeyBundle(Array(shown.bundle), accountID: shown.accountID)
        } catch {
            file.warn(warning("bundleInvalid", record, subject: normalized, detail: "the directory's keys for \(normalized) are not signed by their own key"))
            try file.save(dataDirectory)
            throw refusal(error, email: normalized)
        }
        let now = Date()
        guard var pin = file.contact(server: record.server, email: normalized) else {
            let pin = SharingFile.Contact(
                server: record.server, email: normalized, accountID: bundle.accountID, bundle: Data(bundle.encoded), pinned: now, compared: markCompared)
            file.set(pin)
            try file.save(dataDirectory)
            return ContactView(email: normalized, accountID: bundle.accountID, securityCode: bundle.keys.securityCode.description, compared: markCompared, pinnedNow: true)
        }
        let pinned = try KeyBundle(Array(pin.bundle), accountID: pin.accountID)
        if pinned.keys == bundle.keys, pinned.accountID == bundle.accountID {
            if pin.pending != nil || markCompared {
                pin.pending = nil
                pin.pendingAccountID = nil
                pin.compared = pin.compared || markCompared
                file.set(pin)
                try file.save(dataDirectory)
            }
            return ContactView(email: normalized, accountID: pinned.accountID, securityCode: pinned.keys.securityCode.description, compared: pin.compared, pinnedNow: false)
        }
        // Accepting takes the keys the user compared: the pending ones. Other keys shown now become the
        // pending ones instead (the server cannot swap keys between the comparison and the acceptance).
        if acceptNew, let pending = pin.pending, pending == Data(bundle.encoded), pin.pendingAccountID == bundle.accountID {
            pin = SharingFile.Contact(server: record.server, email: normalized, accountID: bundle.accountID, bundle: Data(bundle.encoded), pinned: now, compared: true)
            file.set(pin)
            file.warnings.removeAll { $0.kind == "keyChanged" && $0.server == record.server && $0.subject == normalized }
            try file.save(dataDirectory)
            return ContactView(email: normalized, accountID: bundle.accountID, securityCode: bundle.keys.securityCode.description, compared: true, pinnedNow: true)
        }
        pin.pending = Data(bundle.encoded)
        pin.pendingAccountID = bundle.accountID
        file.set(pin)
        file.warn(warning("keyChanged", record, subject: normalized, detail: "pinned \(pinned.keys.securityCode) · shown now \(bundle.keys.securityCode)"))
        try file.save(dataDirectory)
        return ContactView(
            email: normalized, accountID: pinned.accountID, securityCode: pinned.keys.securityCode.description, compared: pin.compared,
            newSecurityCode: bundle.keys.securityCode.description, pinnedNow: false)
    }

    /// The pinned keys of a contact for sealing or confirming: looked up (pinned at first sight), and refused
    /// with `contactKeyChanged` while the directory shows other keys than the pin.
    static func pinnedKeys(_ email: String, dataDirectory: String) throws -> (accountID: String, keys: IdentityKeys) {
        let view = try contact(email, dataDirectory: dataDirectory)
        guard view.newSecurityCode == nil else { throw ProtocolError(.contactKeyChanged, ["email": view.email]) }
        let (record, _) = try AccountOperations.signedIn(dataDirectory)
        guard let pin = try SharingFile.load(dataDirectory).contact(server: record.server, email: view.email) else { throw ProtocolError(.contactNotFound, ["email": email]) }
        return (pin.accountID, try KeyBundle(Array(pin.bundle), accountID: pin.accountID).keys)
    }

    public static func warnings(dataDirectory: String) throws -> [SharingWarningView] {
        let record = try AccountRecord.load(dataDirectory)
        return try SharingFile.load(dataDirectory).warnings.filter { record == nil || $0.server == record?.server }.map {
            SharingWarningView(kind: $0.kind, subject: $0.subject, detail: $0.detail, seen: $0.seen)
        }
    }

    static func warning(_ kind: String, _ record: AccountRecord, subject: String, detail: String) -> SharingFile.Warning {
        SharingFile.Warning(kind: kind, server: record.server, subject: subject, detail: detail, seen: Date())
    }

    /// A refusal as the error surfaces word: `sharingRefused` with the problem and its detail.
    static func refusal(_ error: Error, email: String? = nil) -> ProtocolError {
        var facts: [String: String] = [:]
        if let email { facts["email"] = email }
        switch error as? SharingError {
        case .bundleInvalid: facts["problem"] = "bundleInvalid"
        case .newerFormat(let v):
            facts["problem"] = "newerFormat"
            facts["version"] = String(v)
        case .malformed(let what):
            facts["problem"] = "malformed"
            facts["detail"] = what
        case .listInvalid(let version, let reason):
            facts["problem"] = "listInvalid"
            facts["version"] = String(version)
            facts["detail"] = reason.rawValue
        case .listForked(let version):
            facts["problem"] = "listForked"
            facts["version"] = String(version)
        case .listWentBack(let seen, let shown):
            facts["problem"] = "listWentBack"
            facts["version"] = String(shown)
            facts["detail"] = String(seen)
        case .notTheOrganisation: facts["problem"] = "notTheOrganisation"
        case .grantRefused(let problem):
            facts["problem"] = "grantRefused"
            facts["detail"] = problem.rawValue
        case nil:
            if let protocolError = error as? ProtocolError { return protocolError }
            facts["problem"] = "malformed"
            facts["detail"] = String(describing: type(of: error))
        }
        return ProtocolError(.sharingRefused, facts)
    }
}
