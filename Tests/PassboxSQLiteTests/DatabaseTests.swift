import Foundation
import PassboxSQLite
import PassboxTestKit
import Testing

/// The SQLiteError `body` throws, or nil when it succeeds.
func sqliteError(_ body: () throws -> Void) -> SQLiteError? {
    do {
        try body()
        return nil
    } catch {
        return error as? SQLiteError
    }
}

@Suite struct DatabaseTests {
    func openTable(_ dir: TemporaryDirectory) throws -> Database {
        let db = try Database(path: dir.file("test.sqlite").path)
        try db.execute("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, name TEXT UNIQUE, data BLOB, score REAL)")
        return db
    }

    @Test func valuesRoundTripThroughBoundParameters() throws {
        let dir = try TemporaryDirectory()
        let db = try openTable(dir)
        let big = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let rows: [[Value]] = [
            [.integer(1), .text("plain"), .blob([0, 1, 0, 255]), .real(1.5)],
            [.integer(Int64.max), .text("ünïcödé ✓ \u{0}inside"), .blob([]), .null],
            [.integer(Int64.min), .null, .blob(big), .real(-0.25)],
        ]
        for row in rows { try db.run("INSERT INTO t (id, name, data, score) VALUES (?, ?, ?, ?)", row) }
        let back = try db.rows("SELECT id, name, data, score FROM t ORDER BY id")
        #expect(back.map(\.values) == [rows[2], rows[0], rows[1]])
        #expect(back[1]["name"] == "plain")
        #expect(back[1]["missing"] == .null)
    }

    @Test func aValueIsNeverReadAsSQL() throws {
        let dir = try TemporaryDirectory()
        let db = try openTable(dir)
        let hostile = "x'); DROP TABLE t; --"
        try db.run("INSERT INTO t (name) VALUES (?)", [.text(hostile)])
        #expect(try db.rows("SELECT name FROM t WHERE name = ?", [.text(hostile)]).first?[0] == .text(hostile))
        #expect(try db.rows("SELECT count(*) FROM sqlite_master WHERE name = 't'").first?[0] == .integer(1))
    }

    @Test func misuseIsRefusedClearly() throws {
        let dir = try TemporaryDirectory()
        let db = try openTable(dir)
        #expect(throws: SQLiteError.self) { try db.run("INSERT INTO t (name) VALUES (?)", []) }
        let error = try #require(sqliteError { try db.run("INSERT INTO t (name) VALUES (?)", ["a", "b"]) })
        #expect(error.code == .range)
        #expect(throws: SQLiteError.self) { try db.prepare("SELECT 1; SELECT 2") }
        #expect(throws: SQLiteError.self) { try db.run("SELECT * FROM nowhere") }
    }

    @Test func aConstraintFailureHasItsCodeAndNoValue() throws {
        let dir = try TemporaryDirectory()
        let db = try openTable(dir)
        try db.run("INSERT INTO t (name) VALUES (?)", ["secret-value-123"])
        let error = try #require(sqliteError { try db.run("INSERT INTO t (name) VALUES (?)", ["secret-value-123"]) })
        #expect(error.code ~= .constraint)
        #expect(error.code != .constraint, "the extended code (UNIQUE) is kept")
        #expect(!error.description.contains("secret-value-123"))
    }

    @Test func aTransactionCommitsOrLeavesNothing() throws {
        struct Planned: Error {}
        let dir = try TemporaryDirectory()
        let db = try openTable(dir)
        _ = try db.transaction { try db.run("INSERT INTO t (name) VALUES ('kept')") }
        #expect(throws: Planned.self) {
            try db.transaction {
                try db.run("INSERT INTO t (name) VALUES ('dropped')")
                throw Planned()
            }
        }
        // A failed inner step rolls back only itself.
        try db.transaction {
            try db.run("INSERT INTO t (name) VALUES ('outer')")
            _ = try? db.transaction {
                _ = try db.run("INSERT INTO t (name) VALUES ('inner')")
                throw Planned()
            }
        }
        #expect(!db.isInTransaction)
        #expect(try db.rows("SELECT name FROM t ORDER BY id").map { $0[0] } == ["kept", "outer"])
    }

    @Test func anotherConnectionSeesOnlyCommittedWrites() throws {
        let dir = try TemporaryDirectory()
        let writer = try openTable(dir)
        let reader = try Database(path: dir.file("test.sqlite").path)
        try writer.execute("BEGIN IMMEDIATE")
        try writer.run("INSERT INTO t (name) VALUES ('pending')")
        #expect(try reader.rows("SELECT count(*) FROM t").first?[0] == .integer(0))
        try writer.execute("COMMIT")
        #expect(try reader.rows("SELECT count(*) FROM t").first?[0] == .integer(1))
        #expect(try reader.rows("PRAGMA journal_mode").first?[0] == "wal")
    }

    @Test func aFileThatIsNotADatabaseIsRefusedAndKept() throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("junk.sqlite")
        let junk = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 13) })
        try junk.write(to: url)
        let error = try #require(sqliteError { _ = try Database(path: url.path) })
        #expect(error.code ~= .notADatabase)
        #expect(try Data(contentsOf: url) == junk)
    }
}

@Suite struct MigrationTests {
    static let steps = [
        Migration(1, "CREATE TABLE accounts (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE)"),
        Migration(2, "ALTER TABLE accounts ADD COLUMN created INTEGER NOT NULL DEFAULT 0"),
    ]

    @Test func migrationsApplyOnceInOrder() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("server.sqlite").path
        do {
            let db = try Database(path: path)
            #expect(try db.migrate(Self.steps) == (0, 2))
            try db.run("INSERT INTO accounts (email, created) VALUES (?, ?)", ["a@example.org", 5])
        }
        let db = try Database(path: path)
        #expect(try db.migrate(Self.steps) == (2, 2))
        #expect(try db.migrate(Self.steps + [Migration(3, "CREATE INDEX accounts_created ON accounts (created)")]) == (2, 3))
        #expect(try db.schemaVersion() == 3)
        #expect(try db.rows("SELECT email, created FROM accounts").first?.values == ["a@example.org", 5])
    }

    @Test func aFailingStepLeavesTheDatabaseAtTheStepBefore() throws {
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.file("server.sqlite").path)
        let broken = [Self.steps[0], Migration(2, "CREATE TABLE devices (id INTEGER); ALTER TABLE nowhere ADD COLUMN x")]
        #expect(throws: SQLiteError.self) { try db.migrate(broken) }
        #expect(try db.schemaVersion() == 1)
        #expect(try db.rows("SELECT name FROM sqlite_master WHERE name = 'devices'").isEmpty)
        #expect(try db.migrate(Self.steps) == (1, 2))
    }

    @Test func aNewerDatabaseIsRefusedUntouched() throws {
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.file("server.sqlite").path)
        try db.migrate(Self.steps + [Migration(3, "CREATE TABLE later (id INTEGER)")])
        #expect(throws: MigrationError.databaseIsNewer(database: 3, newestKnown: 2)) { try db.migrate(Self.steps) }
        #expect(try db.schemaVersion() == 3)
    }
}
