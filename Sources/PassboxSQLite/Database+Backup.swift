import Foundation
internal import CSQLite

/// Online backups with SQLite's backup API (`passbox server backup` and `restore`): a consistent copy of the
/// whole database while other connections go on writing, written to a new file and renamed into place.
extension Database {
    /// Copies this database into a new file at `path` (0600; the copy is made beside it and renamed, so a
    /// failure leaves nothing at `path`). The copy is one self-contained file (rollback journal, no WAL).
    public func backup(to path: String) throws(SQLiteError) {
        try copy(to: path, journalMode: "DELETE", doing: "writing the backup")
    }

    /// Opens the database file at `path` read-only, changing nothing in it (not even its journal mode).
    public static func openReadOnly(_ path: String) throws(SQLiteError) -> Database {
        Database(readOnlyHandle: try openHandle(path, flags: SQLITE_OPEN_READONLY, doing: "opening \(path)"))
    }

    /// Copies this database into a new database file at `path` in write-ahead-log mode, as a server opens it
    /// (made beside it and renamed; 0600).
    public func restore(into path: String) throws(SQLiteError) {
        try copy(to: path, journalMode: "WAL", doing: "restoring into")
    }

    /// A copy made beside `path` and linked to it once whole, never over a file that appeared there meanwhile
    /// (a server started on the directory, say: `EEXIST`); a failure removes it. Made by root, the copy belongs
    /// to the owner of its directory, so a service's own user can open a database restored into its state
    /// directory (`DynamicUser=`).
    private func copy(to path: String, journalMode: String, doing: String) throws(SQLiteError) {
        let temporary = path + ".tmp-\(getpid())"
        unlink(temporary)
        do {
            try Self.copy(from: handle, toNewFile: temporary, journalMode: journalMode)
        } catch {
            unlink(temporary)
            throw error
        }
        for suffix in ["-wal", "-shm"] { unlink(temporary + suffix) }
        var folder = stat()
        if geteuid() == 0, stat((path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent, &folder) == 0 {
            _ = chown(temporary, folder.st_uid, folder.st_gid)
        }
        defer { unlink(temporary) }
        guard link(temporary, path) == 0 else {
            let reason = errno == EEXIST ? "it exists already" : String(cString: strerror(errno))
            throw SQLiteError(code: .error, message: "\(doing) \(path): \(reason)")
        }
    }

    /// The whole of `source` into a new file: one backup step over every page (a read transaction on the
    /// source for its length, so the copy is one moment's database), synced, in `journalMode`.
    private static func copy(from source: OpaquePointer, toNewFile path: String, journalMode: String) throws(SQLiteError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw SQLiteError(code: .cannotOpen, message: "making \(path): \(String(cString: strerror(errno)))") }
        close(descriptor)
        let target = try openHandle(path, flags: SQLITE_OPEN_READWRITE, doing: "opening \(path)")
        defer { sqlite3_close_v2(target) }
        guard let backup = sqlite3_backup_init(target, "main", source, "main") else {
            throw SQLiteError(code: ResultCode(rawValue: sqlite3_errcode(target)), message: "starting the copy: \(String(cString: sqlite3_errmsg(target)))")
        }
        var step = sqlite3_backup_step(backup, -1)
        // Busy or locked: another connection holds a lock this step needs for a moment; the step is tried again.
        var tries = 0
        while step == SQLITE_BUSY || step == SQLITE_LOCKED, tries < 1_000 {
            tries += 1
            sqlite3_sleep(5)
            step = sqlite3_backup_step(backup, -1)
        }
        let finished = sqlite3_backup_finish(backup)
        guard step == SQLITE_DONE else { throw SQLiteError(code: ResultCode(rawValue: step), message: "copying the database: \(String(cString: sqlite3_errstr(step)))") }
        try check(finished, target, "finishing the copy")
        try check(sqlite3_exec(target, "PRAGMA journal_mode = \(journalMode); PRAGMA synchronous = FULL;", nil, nil, nil), target, "setting the copy's journal")
    }
}
