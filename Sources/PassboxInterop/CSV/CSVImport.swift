import Foundation
import PassboxCore

/// CSV files as items: the password exports of Chrome, Firefox, Bitwarden and 1Password, and any other CSV
/// with its columns named by a mapping (docs/CLI.md "Imports and exports"). Each row with a username,
/// password, website or one-time password is a login, else a secure note; columns not mapped become custom
/// text fields, so nothing in the file is dropped silently.
public enum CSVImport {
    /// What a column can be mapped to.
    public static let targets: Set<String> = ["title", "username", "password", "url", "notes", "otp", "folder", "tags", "favorite"]

    /// Column names other apps write, lower-cased, by what they are.
    static let known: [String: String] = [
        "name": "title", "title": "title", "account": "title",
        "username": "username", "login_username": "username", "user name": "username", "login name": "username", "user": "username",
        "password": "password", "login_password": "password",
        "url": "url", "login_uri": "url", "website": "url", "web site": "url", "uri": "url", "origin": "url",
        "note": "notes", "notes": "notes", "extra": "notes", "comments": "notes",
        "totp": "otp", "login_totp": "otp", "otpauth": "otp", "otp": "otp", "one-time password": "otp",
        "folder": "folder", "grouping": "folder", "group": "folder",
        "tags": "tags", "favorite": "favorite", "fav": "favorite",
    ]

    /// Columns of the apps above that carry nothing an item keeps (ids, times of use, form details).
    static let ignored: Set<String> = [
        "guid", "httprealm", "formactionorigin", "timelastused", "timecreated", "timepasswordchanged", "type", "reprompt", "fields", "archived",
    ]

    /// `mapping` is target → column name (case-insensitive), over the columns found by name.
    public static func plan(_ bytes: [UInt8], mapping: [String: String], groupsAsVaults: Bool, now: Date) throws -> ImportPlan {
        let table = try CSVTable(parsing: bytes)
        var columns: [String: Int] = [:]
        for (index, name) in table.header.enumerated() {
            if let target = known[name.lowercased()], columns[target] == nil { columns[target] = index }
        }
        for (target, column) in mapping {
            guard targets.contains(target) else { throw InteropError.badMapping(name: target, columns: table.header.joined(separator: ", ")) }
            guard let index = table.header.firstIndex(where: { $0.caseInsensitiveCompare(column) == .orderedSame }) else {
                throw InteropError.badMapping(name: column, columns: table.header.joined(separator: ", "))
            }
            columns[target] = index
        }
        guard columns["title"] != nil || columns["username"] != nil || columns["password"] != nil || columns["url"] != nil else {
            throw InteropError.unknownColumns(columns: table.header.prefix(20).joined(separator: ", "))
        }
        let used = Set(columns.values)
        var plan = ImportPlan()
        plan.source = "CSV; columns \(table.header.prefix(20).joined(separator: ", "))"
        let firefoxTime = table.header.firstIndex { $0.lowercased() == "timecreated" }
        for row in table.rows {
            func value(_ target: String) -> String {
                guard let i = columns[target], i < row.count else { return "" }
                return row[i].trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let username = value("username"), password = row.indices.contains(columns["password"] ?? -1) ? row[columns["password"]!] : ""
            let url = value("url"), otp = value("otp")
            let isLogin = !username.isEmpty || !password.isEmpty || !url.isEmpty || !otp.isEmpty
            var item = Item(category: isLogin ? .login : .secureNote, title: value("title"), notes: columns["notes"].flatMap { row.indices.contains($0) ? row[$0] : nil } ?? "")
            if !username.isEmpty { item.setValue(username, for: "username") }
            if !password.isEmpty { item.setValue(password, for: "password") }
            item.addOneTimePassword(otp)
            item.addWebsite(url)
            item.tags = value("tags").split(whereSeparator: { $0 == "," || $0 == ";" }).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            item.isFavorite = ["1", "true", "yes", "x"].contains(value("favorite").lowercased())
            if let t = firefoxTime, t < row.count, let ms = Double(row[t]), ms > 0 { item.created = Date(timeIntervalSince1970: ms / 1000).storedPrecision }
            for (i, cell) in row.enumerated() where !used.contains(i) && !cell.isEmpty && i < table.header.count && !ignored.contains(table.header[i].lowercased()) {
                item.fields.append(Field(label: KeePassImport.uniqueLabel(table.header[i], in: item), kind: cell.contains("\n") ? .multiline : .text, value: cell))
            }
            let extra = row.count > table.header.count ? row[table.header.count...].filter { !$0.isEmpty } : []
            for cell in extra { item.fields.append(Field(label: KeePassImport.uniqueLabel("Column", in: item), kind: .text, value: cell)) }
            if item.isBlank {
                plan.skip("emptyEntry")
                continue
            }
            let folder = value("folder")
            if !folder.isEmpty, !groupsAsVaults { item.tags.append(folder) }
            plan.entries.append(.init(item: item, vaultName: groupsAsVaults && !folder.isEmpty ? folder : nil))
        }
        return plan
    }
}
