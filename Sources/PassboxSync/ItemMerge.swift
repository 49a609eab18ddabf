import Foundation
import PassboxCore

/// The three-way merge of an item changed on this device and on the server since their common ancestor
/// (the version both last agreed on). Field by field: a change on one side wins over no change on the
/// other; the same field changed differently on both keeps the server's value current and this device's
/// whole version in the item's history (a `fieldConflict` the user is told about). A field deleted on one
/// side and edited on the other keeps the edit. The histories are joined, so nothing written is lost.
/// The result is the same whichever device merges, given the same three versions.
public enum ItemMerge {
    public struct Result: Sendable {
        public var item: Item
        /// Labels of the fields (or parts: "title", "notes") both sides changed differently.
        public var conflicts: [String]
        /// One side trashed the item while the other edited it: it is out of the trash.
        public var untrashed: Bool
    }

    public static func merge(base: Item?, local: Item, remote: Item, now: Date) -> Result {
        var conflicts: [String] = []
        func pick<T: Equatable>(_ name: String, _ b: T?, _ l: T, _ r: T) -> T {
            if l == r { return l }
            if let b, b == l { return r }
            if let b, b == r { return l }
            conflicts.append(name)
            return r
        }
        let b = base?.synced
        let (l, r) = (local.synced, remote.synced)
        var merged = r
        merged.category = pick("category", b?.category, l.category, r.category)
        merged.title = pick("title", b?.title, l.title, r.title)
        merged.notes = pick("notes", b?.notes, l.notes, r.notes)
        merged.isFavorite = pick("favorite", b?.isFavorite, l.isFavorite, r.isFavorite)
        merged.passwordBreach = pickOptional(b.map { $0.passwordBreach }, l.passwordBreach, r.passwordBreach)
        merged.fields = mergeFields(b?.fields, l.fields, r.fields, conflicts: &conflicts)
        merged.websites = mergeSet(b?.websites, l.websites, r.websites)
        merged.tags = mergeSet(b?.tags, l.tags, r.tags)
        merged.dismissals = mergeSet(b?.dismissals, l.dismissals, r.dismissals)
        merged.passkeys = mergePasskeys(b?.passkeys, l.passkeys, r.passkeys)
        for key in Set(l.unknown.keys).union(r.unknown.keys).sorted() {
            merged.unknown[key] = pickOptional(b.map { $0.unknown[key] }, l.unknown[key], r.unknown[key])
        }
        merged.created = [l.created, r.created].compactMap { $0 }.min()
        merged.lastChanged = [l.lastChanged, r.lastChanged].compactMap { $0 }.max()
        // Trash against an edit: the edit wins, and the item comes out of the trash.
        var untrashed = false
        let localEdited = b.map { content($0) != content(l) } ?? true
        let remoteEdited = b.map { content($0) != content(r) } ?? true
        if l.trashedAt != r.trashedAt {
            let trashedHere = l.trashedAt != nil && b?.trashedAt == nil
            let trashedThere = r.trashedAt != nil && b?.trashedAt == nil
            if (trashedHere && remoteEdited) || (trashedThere && localEdited) {
                merged.trashedAt = nil
                untrashed = true
            } else {
                merged.trashedAt = pickOptional(b.map { $0.trashedAt }, l.trashedAt, r.trashedAt)
            }
        }
        // The histories joined (by version id), oldest first; a conflict keeps this device's version too.
        var versions = [String: ItemVersion]()
        for v in r.history + l.history { versions[v.id] = versions[v.id] ?? v }
        if !conflicts.isEmpty {
            var mine = l
            mine.history = []
            let v = ItemVersion(id: conflictVersionID(l, r), replacedAt: now.storedPrecision, item: mine)
            versions[v.id] = v
        }
        // Two devices that edited the same version each kept it in their history under an id of their own: the
        // same content is kept once (its earliest copy), so the joined history does not repeat itself.
        var seen = Set<[UInt8]>()
        let joined = versions.values.sorted { ($0.replacedAt, $0.id) < ($1.replacedAt, $1.id) }.filter { seen.insert($0.item.packed()).inserted }
        merged.history = Vault.prunedHistory(joined, now: now)
        // Device-local parts stay this device's.
        merged.lastUsed = local.lastUsed
        merged.lastFilled = local.lastFilled
        for i in merged.passkeys.indices {
            merged.passkeys[i].lastUsed = local.passkeys.first { $0.credentialID == merged.passkeys[i].credentialID }?.lastUsed
        }
        return Result(item: merged, conflicts: conflicts, untrashed: untrashed)
    }

    /// Passkeys by credential id: one made on either side is kept, one deleted on either side goes; one both
    /// kept keeps the higher counter (each side's signatures must stay valid). When it was last used is this device's.
    static func mergePasskeys(_ b: [Passkey]?, _ l: [Passkey], _ r: [Passkey]) -> [Passkey] {
        if l == r { return l }
        let before = Set((b ?? []).map(\.credentialID))
        let local = Dictionary(l.map { ($0.credentialID, $0) }, uniquingKeysWith: { a, _ in a })
        let remote = Dictionary(r.map { ($0.credentialID, $0) }, uniquingKeysWith: { a, _ in a })
        var out = [Passkey]()
        for key in r.map(\.credentialID) + l.map(\.credentialID) where !out.contains(where: { $0.credentialID == key }) {
            switch (local[key], remote[key]) {
            case (let mine?, let theirs?):
                var kept = theirs
                kept.signCount = max(mine.signCount, theirs.signCount)
                out.append(kept)
            case (let one?, nil), (nil, let one?):
                // Made on one side (keep) or deleted on the other (drop).
                if !before.contains(key) { out.append(one) }
            case (nil, nil): break
            }
        }
        return out
    }

    /// A version id that is the same on every device merging the same two versions.
    static func conflictVersionID(_ l: Item, _ r: Item) -> String {
        let digest = SyncHash.of(l.packed() + [0] + r.packed())
        let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz")
        return String(digest.prefix(10).map { alphabet[Int($0) & 31] })
    }

    /// The item without history and dates: what an edit changes.
    static func content(_ item: Item) -> Item {
        var c = item
        c.history = []
        c.lastChanged = nil
        c.created = nil
        c.trashedAt = nil
        return c
    }

    static func pickOptional<T: Equatable>(_ b: T??, _ l: T?, _ r: T?) -> T? {
        if l == r { return l }
        if let b, b == l { return r }
        if let b, b == r { return l }
        return r
    }

    static func mergeSet(_ b: [String]?, _ l: [String], _ r: [String]) -> [String] {
        let base = Set(b ?? [])
        let (ls, rs) = (Set(l), Set(r))
        var out = r.filter { ls.contains($0) || !base.contains($0) }
        var seen = Set(out)
        for x in l where !seen.contains(x) && (!base.contains(x)) && !rs.contains(x) {
            out.append(x)
            seen.insert(x)
        }
        return out
    }

    static func mergeFields(_ b: [Field]?, _ l: [Field], _ r: [Field], conflicts: inout [String]) -> [Field] {
        let base = Dictionary((b ?? []).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let local = Dictionary(l.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let remote = Dictionary(r.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var order = r.map(\.id)
        var seen = Set(order)
        for (i, f) in l.enumerated() where !seen.contains(f.id) {
            // A field added here goes after the field it follows here.
            let after = i > 0 ? order.firstIndex(of: l[i - 1].id) : nil
            order.insert(f.id, at: after.map { $0 + 1 } ?? min(i, order.count))
            seen.insert(f.id)
        }
        var out: [Field] = []
        for id in order {
            let (bf, lf, rf) = (base[id], local[id], remote[id])
            if lf == rf {
                if let lf { out.append(lf) }
            } else if b != nil && bf == lf {
                if let rf { out.append(rf) }
            } else if b != nil && bf == rf {
                if let lf { out.append(lf) }
            } else if let lf, let rf {
                conflicts.append(rf.label)
                _ = lf
                out.append(rf)
            } else if let kept = lf ?? rf {
                // Deleted on one side, changed (or added) on the other: the edit is kept.
                out.append(kept)
            }
        }
        return out
    }
}
