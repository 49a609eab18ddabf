import Foundation
import PassboxPostgres
import PassboxSQL
import PassboxSQLite

/// Where a server keeps its accounts.
public enum ServerDatabase: Sendable, Equatable {
    /// `server.sqlite` in this directory (the embedded default).
    case sqlite(directory: String)
    /// A PostgreSQL database, by libpq connection URI (`postgresql://passbox@db.example.org/passbox`); a
    /// password comes from libpq's password file, never from the URI.
    case postgres(String)
}

/// The connections shared by the HTTP worker threads. On PostgreSQL each request holds a connection of its
/// own and runs beside the others. On SQLite, which has one writer, every request of this process is handed
/// to one committer thread that runs the requests waiting at that moment one after another inside one
/// transaction and makes them durable with one synced commit (group commit): a request's answer is sent only
/// after the commit that holds its writes, so nothing acknowledged is lost, and under load one fsync serves
/// many requests instead of each paying its own.
final class ConnectionPool: @unchecked Sendable {
    // @unchecked: `idle` is touched only under `lock`; a connection is used by one thread at a time.
    private let lock = NSLock()
    private var idle: [any SQLConnection] = []
    private let open: @Sendable () throws -> any SQLConnection
    private let committer: GroupCommitter?

    /// Opens the database, bringing its schema up to date.
    init(_ database: ServerDatabase) throws {
        switch database {
        case .sqlite(let directory):
            let path = directory + "/server.sqlite"
            open = { try Database(path: path) }
            let first = try Database(path: path)
            try first.migrate(ServerSchema.migrations)
            chmod(path, 0o600)
            committer = try GroupCommitter(first, checkpointer: try Database(path: path))
        case .postgres(let uri):
            open = { try PostgresConnection(uri) }
            committer = nil
            let first = try open()
            try first.migrate(ServerSchema.postgresMigrations)
            idle.append(first)
        }
    }

    deinit { committer?.stop() }

    /// Runs `body` with a connection (on SQLite in the committer's next group; see the type). A connection
    /// that broke (a restarted PostgreSQL) is dropped, and the next request opens a new one.
    func with<R>(_ body: (any SQLConnection) throws -> R) throws -> R {
        if let committer { return try committer.run(body) }
        lock.lock()
        let kept = idle.popLast()
        lock.unlock()
        let database = try kept ?? open()
        defer {
            if database.isUsable {
                lock.lock()
                idle.append(database)
                lock.unlock()
            }
        }
        return try body(database)
    }
}

/// Group commit on one SQLite connection (see `ConnectionPool`). Each request runs inside a savepoint of the
/// group's transaction, released whether it returns or throws: what a request wrote before it failed (a
/// failed sign-in's count) is kept, as it would be with a transaction of its own, and a nested
/// `transaction` that threw has already rolled itself back to its own savepoint. If the group's commit
/// fails, every request in it gets that error.
final class GroupCommitter: @unchecked Sendable {
    // @unchecked: `pending` and `stopping` are touched only under `condition`; the connection only by the thread.
    private final class Job {
        /// Dropped (by the committer, before it signals) so the request's closure does not outlive `run`.
        var work: ((Database) -> Void)?
        var commitError: Error?
        let done = DispatchSemaphore(value: 0)
        init(_ work: @escaping (Database) -> Void) { self.work = work }
    }

    private let database: Database
    private let condition = NSCondition()
    private var pending: [Job] = []
    private var stopping = false
    /// The most requests one commit holds (a bound on how long the first of them waits).
    static let largestGroup = 128

    /// The connection that copies the write-ahead log into the database file, on a thread of its own. Left to
    /// the committing connection (SQLite's automatic checkpoint), that copy and its fsync fall inside a commit
    /// every thousand pages and hold up every request of that group (the p99 of writes: 150 ms).
    private let checkpointer: Database
    private let checkpoints = DispatchSemaphore(value: 0)

    init(_ database: Database, checkpointer: Database) throws {
        self.database = database
        self.checkpointer = checkpointer
        try database.execute("PRAGMA wal_autocheckpoint = 0")
        // The threads hold the committer until `stop` ends them. An unowned capture crashed when a thread was
        // first scheduled after a short-lived store had already gone.
        let thread = Thread { self.loop() }
        thread.name = "passbox-group-commit"
        thread.start()
        let copier = Thread { self.checkpointLoop() }
        copier.name = "passbox-checkpoint"
        copier.start()
    }

    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
        checkpoints.signal()
    }

    /// Copies the log into the database every thousand commits, or every second, without blocking the
    /// committer (`PASSIVE`: it copies what no reader still needs). Every 25 or 200 commits measured worse
    /// (write p99 at 64 connections 177 and 70-110 ms against 17 ms): the checkpoint's fsync of the database
    /// file holds up the log's. (Committing on the requests' own threads, a leader at a time, measured worse
    /// too: 3,467 writes/s at 64 connections against 6,342.)
    private func checkpointLoop() {
        while true {
            _ = checkpoints.wait(timeout: .now() + 1)
            condition.lock()
            let done = stopping
            condition.unlock()
            _ = try? checkpointer.rows("PRAGMA wal_checkpoint(PASSIVE)", [])
            if done { return }
        }
    }

    private var commitsSinceCheckpoint = 0

    /// Runs `body` in the next group and returns once that group is committed.
    func run<R>(_ body: (any SQLConnection) throws -> R) throws -> R {
        var outcome: Result<R, Error>?
        try withoutActuallyEscaping(body) { body in
            let job = Job { db in outcome = Result { try body(db) } }
            condition.lock()
            pending.append(job)
            condition.signal()
            condition.unlock()
            job.done.wait()
            if let error = job.commitError { throw error }
        }
        guard let outcome else { throw SQLiteError(code: .error, message: "the group commit ended before running the request") }
        return try outcome.get()
    }

    private func loop() {
        while true {
            condition.lock()
            while pending.isEmpty && !stopping { condition.wait() }
            if pending.isEmpty && stopping {
                condition.unlock()
                return
            }
            let group = Array(pending.prefix(Self.largestGroup))
            pending.removeFirst(group.count)
            condition.unlock()
            commit(group)
        }
    }

    private func commit(_ group: [Job]) {
        var failure: Error?
        do {
            try database.execute("BEGIN IMMEDIATE")
            for job in group {
                try database.execute("SAVEPOINT passbox_request")
                job.work?(database)
                job.work = nil
                // After a failed statement SQLite may have ended the transaction (a full disk, I/O): then the
                // group fails as a whole below.
                guard database.isInTransaction else { throw SQLiteError(code: .error, message: "the group's transaction ended early") }
                try database.execute("RELEASE passbox_request")
            }
            try database.execute("COMMIT")
            commitsSinceCheckpoint += 1
            if commitsSinceCheckpoint >= 1000 {
                commitsSinceCheckpoint = 0
                checkpoints.signal()
            }
        } catch {
            failure = error
            if database.isInTransaction { try? database.execute("ROLLBACK") }
        }
        for job in group {
            job.work = nil
            job.commitError = failure
            job.done.signal()
        }
    }
}

/// Milliseconds since 1970, as stored.
func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
func date(milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
