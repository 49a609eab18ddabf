import Foundation
import PassboxSQL
import PassboxSQLite

/// `passbox server backup` and `restore` for the SQLite database (issue 36): an online, consistent copy of
/// `server.sqlite` (accounts, sessions, items, manifests, blobs: the server keeps everything there) while the
/// server runs, and a copy brought back into a data directory that has no database. PostgreSQL has its own
/// tools for both (`pg_dump`, `pg_restore`; docs/CLI.md).
public enum ServerBackup {
    public struct Summary: Sendable {
        public let accounts: Int
        public let bytes: Int
        public let schemaVersion: Int
    }

    /// Copies the data directory's database into `file` (a new file, 0600). Refused when the directory has no
    /// database.
    public static func backup(dataDirectory: String, to file: String) throws -> Summary {
        let path = dataDirectory + "/server.sqlite"
        guard FileManager.default.fileExists(atPath: path) else { throw ServerStartError(reason: "\(dataDirectory) has no server database (server.sqlite)", kind: .noDatabase) }
        guard !FileManager.default.fileExists(atPath: file) else { throw ServerStartError(reason: "\(file) exists already: a backup is written to a new file") }
        do {
            try Database(path: path).backup(to: file)
            return try check(file)
        } catch let error as SQLiteError {
            throw ServerStartError(reason: "the backup failed: \(error.message)")
        }
    }

    /// Brings the backup `file` back as the data directory's database, which must not have one yet. The file is
    /// checked first: SQLite's integrity check, and a schema of this server's (a newer server's backup is
    /// refused by name; an older one is brought up to date when the server starts).
    public static func restore(from file: String, dataDirectory: String) throws -> Summary {
        let path = dataDirectory + "/server.sqlite"
        guard !FileManager.default.fileExists(atPath: path) else {
            throw ServerStartError(reason: "\(dataDirectory) has a server database already: restore only into a data directory without one")
        }
        // An earlier database's write-ahead log left beside it would be read into the restored one.
        for leftover in [path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: leftover) {
            throw ServerStartError(reason: "\(dataDirectory) still has \((leftover as NSString).lastPathComponent) of an earlier database: move it away with the database")
        }
        let summary = try check(file)
        try PassboxServer.makeDataDirectory(dataDirectory)
        do {
            try Database.openReadOnly(file).restore(into: path)
        } catch {
            throw ServerStartError(reason: "the restore failed: \(error.message)")
        }
        return summary
    }

    /// What a backup file holds, once it passed SQLite's integrity check and is a Passbox server's database.
    static func check(_ file: String) throws -> Summary {
        let latest = ServerSchema.migrations.last?.version ?? 0
        do {
            let db = try Database.openReadOnly(file)
            guard try db.rows("PRAGMA integrity_check").first?[0].text == "ok" else { throw ServerStartError(reason: "\(file) is damaged (SQLite's integrity check fails)") }
            let version = Int(try db.rows("PRAGMA user_version").first?[0].integer ?? 0)
            let tables = Set(try db.rows("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { $0[0].text })
            guard version > 0, tables.isSuperset(of: ["accounts", "sync_items", "sync_blob_parts"]) else {
                throw ServerStartError(reason: "\(file) is not a Passbox server's database")
            }
            guard version <= latest else {
                throw ServerStartError(reason: "\(file) comes from a newer Passbox server (schema \(version); this one knows up to \(latest))")
            }
            let accounts = Int(try db.rows("SELECT count(*) FROM accounts").first?[0].integer ?? 0)
            let bytes = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
            return Summary(accounts: accounts, bytes: bytes, schemaVersion: version)
        } catch let error as SQLiteError {
            throw ServerStartError(reason: "\(file) is not a database this server can read: \(error.message)")
        }
    }
}
