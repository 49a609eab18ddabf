import Foundation

/// A WebAuthn credential the item holds (a "passkey"): made through the browser extension or imported. It is
/// part of the encrypted item like any field, so it syncs, keeps versions in the history, goes into backups and
/// moves with the item. Its private key is never shown, copied or offered to `read`, `run` or `inject`: only
/// the agent signs with it, for the relying party it was made for (docs/FORMATS.md "Passkeys").
public struct Passkey: Sendable, Equatable {
    /// The credential id the relying party knows it by (16 random bytes for one Passbox made).
    public var credentialID: [UInt8]
    /// The relying party id (a registrable domain or a host under one, lower-case ASCII).
    public var relyingParty: String
    /// The relying party's user handle (up to 64 bytes) and the account's names as it gave them.
    public var userHandle: [UInt8]
    public var userName: String
    public var displayName: String
    /// The ES256 private key, PKCS#8 DER.
    public var privateKey: [UInt8]
    /// The signature counter: 0 for a passkey made here (a synced passkey keeps none, as WebAuthn allows);
    /// an imported one that counted goes on counting.
    public var signCount: UInt32
    public var created: Date
    public var lastUsed: Date?
    /// Keys written by a newer Passbox, kept unchanged.
    public var unknown: [String: PackedValue] = [:]

    public init(
        credentialID: [UInt8], relyingParty: String, userHandle: [UInt8], userName: String, displayName: String, privateKey: [UInt8],
        signCount: UInt32 = 0, created: Date, lastUsed: Date? = nil
    ) {
        self.credentialID = credentialID
        self.relyingParty = relyingParty
        self.userHandle = userHandle
        self.userName = userName
        self.displayName = displayName
        self.privateKey = privateKey
        self.signCount = signCount
        self.created = created
        self.lastUsed = lastUsed
    }

    /// The credential id as the web names it (base64url without padding).
    public var credentialText: String {
        Data(credentialID).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

extension Passkey {
    func pack(into w: inout MessagePackWriter) {
        w.writeMapHeader(8 + (lastUsed == nil ? 0 : 1) + unknown.count)
        w.write("credential")
        w.write(binary: credentialID)
        w.write("rp")
        w.write(relyingParty)
        w.write("userHandle")
        w.write(binary: userHandle)
        w.write("userName")
        w.write(userName)
        w.write("displayName")
        w.write(displayName)
        w.write("key")
        w.write(binary: privateKey)
        w.write("signCount")
        w.write(Int(signCount))
        w.write("created")
        w.write(created.passboxMilliseconds)
        if let lastUsed {
            w.write("lastUsed")
            w.write(lastUsed.passboxMilliseconds)
        }
        w.writeUnknown(unknown)
    }

    init(unpacking r: inout MessagePackReader) throws {
        self.init(credentialID: [], relyingParty: "", userHandle: [], userName: "", displayName: "", privateKey: [], created: Date(timeIntervalSince1970: 0))
        var sawCreated = false
        for _ in 0..<(try r.readMapHeader()) {
            let key = try r.readString()
            switch key {
            case "credential": credentialID = try r.readBinary()
            case "rp": relyingParty = try r.readString()
            case "userHandle": userHandle = try r.readBinary()
            case "userName": userName = try r.readString()
            case "displayName": displayName = try r.readString()
            case "key": privateKey = try r.readBinary()
            case "signCount": signCount = UInt32(clamping: try r.readInt())
            case "created":
                created = Date(passboxMilliseconds: try r.readInt())
                sawCreated = true
            case "lastUsed": lastUsed = Date(passboxMilliseconds: try r.readInt())
            default: unknown[key] = try r.readValue()
            }
        }
        guard sawCreated, (1...1023).contains(credentialID.count), !relyingParty.isEmpty, userHandle.count <= 64, !privateKey.isEmpty else {
            throw MessagePackError(reason: "a passkey is incomplete")
        }
    }
}
