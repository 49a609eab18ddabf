import Foundation
import PassboxCrypto

/// The stored form of an item, its history versions and fields (docs/FORMATS.md, "Payload").
extension Item {
    /// Encodes the item as it stands in a payload's items array.
    public func packed() -> [UInt8] {
        var w = MessagePackWriter(capacity: 512)
        pack(into: &w)
        return w.bytes
    }

    func pack(into w: inout MessagePackWriter) {
        let dates: [(String, Date?)] = [
            ("created", created), ("lastChanged", lastChanged), ("lastUsed", lastUsed), ("lastFilled", lastFilled), ("trashedAt", trashedAt),
        ]
        let presentDates = dates.filter { $0.1 != nil }
        let count = 4 + presentDates.count + (websites.isEmpty ? 0 : 1) + (notes.isEmpty ? 0 : 1) + (tags.isEmpty ? 0 : 1)
            + (isFavorite ? 1 : 0) + (history.isEmpty ? 0 : 1) + (dismissals.isEmpty ? 0 : 1) + (passwordBreach == nil ? 0 : 1) + unknown.count
            + (vaultID == nil ? 0 : 1) + (syncBase == nil ? 0 : 1) + (syncPending ? 1 : 0) + (killphrase == nil ? 0 : 1) + (searchPassphrase == nil ? 0 : 1)
            + (sealed == nil ? 0 : 1) + (attachments.isEmpty ? 0 : 1) + (passkeys.isEmpty ? 0 : 1)
        w.writeMapHeader(count)
        w.write("id")
        w.write(id)
        w.write("category")
        w.write(category.rawValue)
        w.write("title")
        w.write(title)
        w.write("fields")
        w.writeArrayHeader(fields.count)
        for field in fields { field.pack(into: &w) }
        if !websites.isEmpty {
            w.write("websites")
            w.write(websites)
        }
        if !notes.isEmpty {
            w.write("notes")
            w.write(notes)
        }
        if !tags.isEmpty {
            w.write("tags")
            w.write(tags)
        }
        if isFavorite {
            w.write("favorite")
            w.write(true)
        }
        for (key, date) in presentDates {
            w.write(key)
            w.write(date!.passboxMilliseconds)
        }
        if !history.isEmpty {
            w.write("history")
            w.writeArrayHeader(history.count)
            for version in history {
                w.writeMapHeader(3)
                w.write("id")
                w.write(version.id)
                w.write("replacedAt")
                w.write(version.replacedAt.passboxMilliseconds)
                w.write("item")
                version.item.pack(into: &w)
            }
        }
        if !dismissals.isEmpty {
            w.write("dismissals")
            w.write(dismissals)
        }
        if let mark = passwordBreach {
            w.write("passwordBreach")
            w.writeMapHeader(3)
            w.write("checkedAt")
            w.write(mark.checkedAt.passboxMilliseconds)
            w.write("occurrences")
            w.write(mark.occurrences)
            w.write("fingerprint")
            w.write(mark.fingerprint)
        }
        if let vaultID {
            w.write("vault")
            w.write(vaultID)
        }
        if let base = syncBase {
            w.write("syncBase")
            w.writeMapHeader(base.ancestor == nil ? 3 : 4)
            w.write("vault")
            w.write(base.vaultID)
            w.write("revision")
            w.write(base.revision)
            w.write("hash")
            w.write(binary: base.hash)
            if let ancestor = base.ancestor {
                w.write("ancestor")
                ancestor.pack(into: &w)
            }
        }
        if syncPending {
            w.write("syncPending")
            w.write(true)
        }
        for (key, digest) in [("killphrase", killphrase), ("searchPassphrase", searchPassphrase)] {
            guard let digest else { continue }
            w.write(key)
            digest.pack(into: &w)
        }
        if let sealed {
            w.write("sealed")
            sealed.pack(into: &w)
        }
        if !attachments.isEmpty {
            w.write("attachments")
            w.writeArrayHeader(attachments.count)
            for attachment in attachments { attachment.pack(into: &w) }
        }
        if !passkeys.isEmpty {
            w.write("passkeys")
            w.writeArrayHeader(passkeys.count)
            for passkey in passkeys { passkey.pack(into: &w) }
        }
        w.writeUnknown(unknown)
    }

    init(unpacking r: inout MessagePackReader) throws {
        self.init(id: "", category: .login, fields: [])
        var sawID = false
        let n = try r.readMapHeader()
        for _ in 0..<n {
            let key = try r.readString()
            switch key {
            case "id":
                id = try r.readString()
                sawID = true
            case "category": category = Category(rawValue: try r.readString())
            case "title": title = try r.readString()
            case "fields":
                let count = try r.readArrayHeader()
                fields.reserveCapacity(count)
                for _ in 0..<count { fields.append(try Field(unpacking: &r)) }
            case "websites": websites = try r.readStrings()
            case "notes": notes = try r.readString()
            case "tags": tags = try r.readStrings()
            case "favorite": isFavorite = try r.readBool()
            case "created": created = Date(passboxMilliseconds: try r.readInt())
            case "lastChanged": lastChanged = Date(passboxMilliseconds: try r.readInt())
            case "lastUsed": lastUsed = Date(passboxMilliseconds: try r.readInt())
            case "lastFilled": lastFilled = Date(passboxMilliseconds: try r.readInt())
            case "trashedAt": trashedAt = Date(passboxMilliseconds: try r.readInt())
            case "history":
                let count = try r.readArrayHeader()
                for _ in 0..<count { history.append(try ItemVersion(unpacking: &r)) }
            case "dismissals": dismissals = try r.readStrings()
            case "passwordBreach":
                var mark = PasswordBreachMark(checkedAt: Date(timeIntervalSince1970: 0), occurrences: 0, fingerprint: "")
                for _ in 0..<(try r.readMapHeader()) {
                    switch try r.readString() {
                    case "checkedAt": mark.checkedAt = Date(passboxMilliseconds: try r.readInt())
                    case "occurrences": mark.occurrences = Int(try r.readInt())
                    case "fingerprint": mark.fingerprint = try r.readString()
                    default: _ = try r.readValue()
                    }
                }
                passwordBreach = mark
            case "vault": vaultID = try r.readString()
            case "syncBase":
                var base = SyncBase(vaultID: "", revision: 0, hash: [])
                for _ in 0..<(try r.readMapHeader()) {
                    switch try r.readString() {
                    case "vault": base.vaultID = try r.readString()
                    case "revision": base.revision = try r.readInt()
                    case "hash": base.hash = try r.readBinary()
                    case "ancestor": base.ancestor = try Item(unpacking: &r)
                    default: _ = try r.readValue()
                    }
                }
                syncBase = base
            case "syncPending": syncPending = try r.readBool()
            case "killphrase": killphrase = try PhraseDigest(unpacking: &r)
            case "searchPassphrase": searchPassphrase = try PhraseDigest(unpacking: &r)
            case "sealed": sealed = try SealedContent(unpacking: &r)
            case "attachments":
                let count = try r.readArrayHeader()
                for _ in 0..<count { attachments.append(try Attachment(unpacking: &r)) }
            case "passkeys":
                let count = try r.readArrayHeader()
                for _ in 0..<count { passkeys.append(try Passkey(unpacking: &r)) }
            default: unknown[key] = try r.readValue()
            }
        }
        guard sawID else { throw MessagePackError(reason: "an item has no id") }
    }
}

extension Item {
    /// Decodes one item packed by `packed()`.
    public init(unpacking bytes: UnsafeRawBufferPointer) throws {
        var r = MessagePackReader(bytes)
        try self.init(unpacking: &r)
        guard r.isAtEnd else { throw MessagePackError(reason: "bytes after the item") }
    }
}

extension ItemVersion {
    init(unpacking r: inout MessagePackReader) throws {
        var id: String?
        var replacedAt: Date?
        var item: Item?
        let n = try r.readMapHeader()
        for _ in 0..<n {
            switch try r.readString() {
            case "id": id = try r.readString()
            case "replacedAt": replacedAt = Date(passboxMilliseconds: try r.readInt())
            case "item": item = try Item(unpacking: &r)
            default: _ = try r.readValue()
            }
        }
        guard let id, let replacedAt, let item else { throw MessagePackError(reason: "a history version is incomplete") }
        self.init(id: id, replacedAt: replacedAt, item: item)
    }
}

extension Field {
    func pack(into w: inout MessagePackWriter) {
        let originalKind: String? = if case .string(let s)? = unknown["kind"] { s } else { nil }
        let extra = unknown.filter { $0.key != "kind" }
        w.writeMapHeader(4 + (key == nil ? 0 : 1) + extra.count)
        w.write("id")
        w.write(id)
        if let key {
            w.write("key")
            w.write(key)
        }
        w.write("label")
        w.write(label)
        w.write("kind")
        w.write(originalKind ?? kind.rawValue)
        w.write("value")
        w.write(value)
        w.writeUnknown(extra)
    }

    init(unpacking r: inout MessagePackReader) throws {
        self.init(id: "", label: "", kind: .text, value: "")
        let n = try r.readMapHeader()
        for _ in 0..<n {
            let name = try r.readString()
            switch name {
            case "id": id = try r.readString()
            case "key": key = try r.readString()
            case "label": label = try r.readString()
            case "kind":
                let raw = try r.readString()
                // A kind from a newer version is shown as concealed text (the safe choice) and written back unchanged.
                if let known = FieldKind(rawValue: raw) { kind = known } else {
                    kind = .hidden
                    unknown["kind"] = .string(raw)
                }
            case "value": value = try r.readString()
            default: unknown[name] = try r.readValue()
            }
        }
    }
}

extension PhraseDigest {
    func pack(into w: inout MessagePackWriter) {
        w.writeMapHeader(2)
        w.write("salt")
        w.write(binary: salt)
        w.write("digest")
        w.write(binary: digest)
    }

    init(unpacking r: inout MessagePackReader) throws {
        var salt: [UInt8]?
        var digest: [UInt8]?
        for _ in 0..<(try r.readMapHeader()) {
            switch try r.readString() {
            case "salt": salt = try r.readBinary()
            case "digest": digest = try r.readBinary()
            default: _ = try r.readValue()
            }
        }
        guard let salt, let digest, salt.count == Phrases.saltLength, digest.count == 32 else {
            throw MessagePackError(reason: "a phrase digest is not 16 bytes of salt and 32 of digest")
        }
        self.init(salt: salt, digest: digest)
    }
}

extension SealedContent {
    func pack(into w: inout MessagePackWriter) {
        w.writeMapHeader(7)
        w.write("v")
        w.write(version)
        w.write("memoryKiB")
        w.write(Int(kdf.memoryKiB))
        w.write("passes")
        w.write(Int(kdf.passes))
        w.write("lanes")
        w.write(Int(kdf.lanes))
        w.write("salt")
        w.write(binary: salt)
        w.write("nonce")
        w.write(binary: nonce)
        w.write("box")
        w.write(binary: box)
    }

    init(unpacking r: inout MessagePackReader) throws {
        var v = 0, memory = 0, passes = 0, lanes = 0
        var salt = [UInt8](), nonce = [UInt8](), box = [UInt8]()
        for _ in 0..<(try r.readMapHeader()) {
            switch try r.readString() {
            case "v": v = Int(try r.readInt())
            case "memoryKiB": memory = Int(try r.readInt())
            case "passes": passes = Int(try r.readInt())
            case "lanes": lanes = Int(try r.readInt())
            case "salt": salt = try r.readBinary()
            case "nonce": nonce = try r.readBinary()
            case "box": box = try r.readBinary()
            default: _ = try r.readValue()
            }
        }
        guard v >= 1, (8...(4 << 20)).contains(memory), (1...128).contains(passes), [1, 2, 4].contains(lanes), salt.count == 16, nonce.count == 24, box.count >= 16 else {
            throw MessagePackError(reason: "an item's seal is malformed")
        }
        self.init(version: v, kdf: Argon2Parameters(memoryKiB: UInt32(memory), passes: UInt32(passes), lanes: UInt8(lanes)), salt: salt, nonce: nonce, box: box)
    }
}
